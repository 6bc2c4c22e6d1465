package certs

import (
	"encoding/base64"
	"errors"
	"fmt"

	"sigs.k8s.io/yaml"
)

// Names used inside the generated kubeconfig.
const (
	KubeconfigCluster = "aggsim"
	KubeconfigUser    = "aggsim-admin"
	KubeconfigContext = "aggsim"
)

// The kubeconfig wire shape (client-go/tools/clientcmd/api/v1/types.go),
// reduced to the fields we write.
type kubeconfig struct {
	APIVersion     string              `json:"apiVersion"`
	Kind           string              `json:"kind"`
	Clusters       []kubeconfigCluster `json:"clusters"`
	Users          []kubeconfigUser    `json:"users"`
	Contexts       []kubeconfigContext `json:"contexts"`
	CurrentContext string              `json:"current-context"`
	Preferences    struct{}            `json:"preferences"`
}

type kubeconfigCluster struct {
	Name    string `json:"name"`
	Cluster struct {
		Server                   string `json:"server"`
		CertificateAuthorityData string `json:"certificate-authority-data,omitempty"`
	} `json:"cluster"`
}

type kubeconfigUser struct {
	Name string `json:"name"`
	User struct {
		ClientCertificateData string `json:"client-certificate-data,omitempty"`
		ClientKeyData         string `json:"client-key-data,omitempty"`
	} `json:"user"`
}

type kubeconfigContext struct {
	Name    string `json:"name"`
	Context struct {
		Cluster string `json:"cluster"`
		User    string `json:"user"`
	} `json:"context"`
}

// KubeconfigBytes returns a YAML kubeconfig with cluster "aggsim" (server,
// embedded caPEM), user "aggsim-admin" (embedded client certPEM/keyPEM) and
// one context named contextName ("" means "aggsim") selected as
// current-context. It fails if server is empty or only one of certPEM and
// keyPEM is given; an empty caPEM means the system roots.
func KubeconfigBytes(server string, caPEM, certPEM, keyPEM []byte, contextName string) ([]byte, error) {
	if server == "" {
		return nil, errors.New("kubeconfig: server is required")
	}
	if (len(certPEM) == 0) != (len(keyPEM) == 0) {
		return nil, errors.New("kubeconfig: client certificate and key must be given together")
	}
	if contextName == "" {
		contextName = KubeconfigContext
	}
	b64 := base64.StdEncoding.EncodeToString
	kc := kubeconfig{APIVersion: "v1", Kind: "Config", CurrentContext: contextName}
	var c kubeconfigCluster
	c.Name = KubeconfigCluster
	c.Cluster.Server = server
	if len(caPEM) > 0 {
		c.Cluster.CertificateAuthorityData = b64(caPEM)
	}
	var u kubeconfigUser
	u.Name = KubeconfigUser
	if len(certPEM) > 0 {
		u.User.ClientCertificateData = b64(certPEM)
		u.User.ClientKeyData = b64(keyPEM)
	}
	var x kubeconfigContext
	x.Name = contextName
	x.Context.Cluster = KubeconfigCluster
	x.Context.User = KubeconfigUser
	kc.Clusters = []kubeconfigCluster{c}
	kc.Users = []kubeconfigUser{u}
	kc.Contexts = []kubeconfigContext{x}
	out, err := yaml.Marshal(kc)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return out, nil
}

// WriteKubeconfig writes KubeconfigBytes(...) to path atomically with mode
// 0600 (it embeds a private key).
func WriteKubeconfig(path, server string, caPEM, certPEM, keyPEM []byte, contextName string) error {
	data, err := KubeconfigBytes(server, caPEM, certPEM, keyPEM, contextName)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, data, 0o600)
}
