package certs

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// Names used inside the generated kubeconfig.
const (
	KubeconfigCluster = "aggsim"
	KubeconfigUser    = "aggsim-admin"
	KubeconfigContext = "aggsim"
)

// Kubeconfig is aggsim's one model of a kubeconfig file, for writing (the
// admin kubeconfig of `aggsim certs` and `aggsim serve`, see NewKubeconfig)
// and reading (`aggsim explain`, see LoadKubeconfigClient). It is the wire
// shape of client-go's clientcmd v1 Config
// (client-go/tools/clientcmd/api/v1/types.go) reduced to the fields aggsim
// writes or reads; other fields of a file read are ignored. The fields
// aggsim never writes are omitted when empty, so what it writes holds
// exactly apiVersion, kind, clusters (server, certificate-authority-data),
// users (client-certificate-data, client-key-data), contexts,
// current-context and an empty preferences.
type Kubeconfig struct {
	APIVersion     string                   `json:"apiVersion"`
	Kind           string                   `json:"kind"`
	Clusters       []KubeconfigNamedCluster `json:"clusters"`
	Users          []KubeconfigNamedUser    `json:"users"`
	Contexts       []KubeconfigNamedContext `json:"contexts"`
	CurrentContext string                   `json:"current-context"`
	// Preferences is always written empty; a file's preferences are
	// ignored (like kubectl, decoding wants a mapping there).
	Preferences struct{} `json:"preferences"`
}

// KubeconfigNamedCluster is one entry of a kubeconfig's clusters
// (clientcmd v1 NamedCluster and Cluster).
type KubeconfigNamedCluster struct {
	Name    string `json:"name"`
	Cluster struct {
		// Server is the API server's URL.
		Server string `json:"server"`
		// CertificateAuthority is a CA file path, relative to the
		// kubeconfig's directory unless absolute.
		CertificateAuthority string `json:"certificate-authority,omitempty"`
		// CertificateAuthorityData is base64 PEM; it wins over
		// CertificateAuthority.
		CertificateAuthorityData string `json:"certificate-authority-data,omitempty"`
		// InsecureSkipTLSVerify skips verification of the server's
		// certificate.
		InsecureSkipTLSVerify bool `json:"insecure-skip-tls-verify,omitempty"`
	} `json:"cluster"`
}

// KubeconfigNamedUser is one entry of a kubeconfig's users (clientcmd v1
// NamedAuthInfo and AuthInfo). A *Data field wins over the file path beside
// it; paths are relative to the kubeconfig's directory unless absolute.
type KubeconfigNamedUser struct {
	Name string `json:"name"`
	User struct {
		ClientCertificate     string `json:"client-certificate,omitempty"`
		ClientCertificateData string `json:"client-certificate-data,omitempty"`
		ClientKey             string `json:"client-key,omitempty"`
		ClientKeyData         string `json:"client-key-data,omitempty"`
		// Token is a bearer token; it wins over TokenFile.
		Token     string `json:"token,omitempty"`
		TokenFile string `json:"tokenFile,omitempty"`
	} `json:"user"`
}

// KubeconfigNamedContext is one entry of a kubeconfig's contexts
// (clientcmd v1 NamedContext and Context): a cluster and a user by name.
type KubeconfigNamedContext struct {
	Name    string `json:"name"`
	Context struct {
		Cluster string `json:"cluster"`
		User    string `json:"user"`
	} `json:"context"`
}

// NewKubeconfig returns the admin kubeconfig aggsim writes: cluster
// "aggsim" (server, embedded caPEM), user "aggsim-admin" (embedded client
// certPEM/keyPEM) and one context named contextName ("" means "aggsim")
// selected as current-context; an empty caPEM means the system roots.
// Errors: server is empty, or only one of certPEM and keyPEM is given.
func NewKubeconfig(server string, caPEM, certPEM, keyPEM []byte, contextName string) (*Kubeconfig, error) {
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
	kc := &Kubeconfig{APIVersion: "v1", Kind: "Config", CurrentContext: contextName}
	var c KubeconfigNamedCluster
	c.Name = KubeconfigCluster
	c.Cluster.Server = server
	if len(caPEM) > 0 {
		c.Cluster.CertificateAuthorityData = b64(caPEM)
	}
	var u KubeconfigNamedUser
	u.Name = KubeconfigUser
	if len(certPEM) > 0 {
		u.User.ClientCertificateData = b64(certPEM)
		u.User.ClientKeyData = b64(keyPEM)
	}
	var x KubeconfigNamedContext
	x.Name = contextName
	x.Context.Cluster = KubeconfigCluster
	x.Context.User = KubeconfigUser
	kc.Clusters = []KubeconfigNamedCluster{c}
	kc.Users = []KubeconfigNamedUser{u}
	kc.Contexts = []KubeconfigNamedContext{x}
	return kc, nil
}

// Marshal returns k as kubeconfig YAML, keys sorted as sigs.k8s.io/yaml
// writes them. Errors: the YAML encoder's, prefixed "kubeconfig: ".
func (k *Kubeconfig) Marshal() ([]byte, error) {
	out, err := yaml.Marshal(k)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return out, nil
}

// ParseKubeconfig decodes kubeconfig YAML (or JSON), as kubectl reads the
// fields Kubeconfig has. Errors: the YAML decoder's, unwrapped.
func ParseKubeconfig(data []byte) (*Kubeconfig, error) {
	var kc Kubeconfig
	if err := yaml.Unmarshal(data, &kc); err != nil {
		return nil, err
	}
	return &kc, nil
}

// KubeconfigBytes returns NewKubeconfig(...) as YAML. Errors: those of
// NewKubeconfig and Marshal.
func KubeconfigBytes(server string, caPEM, certPEM, keyPEM []byte, contextName string) ([]byte, error) {
	kc, err := NewKubeconfig(server, caPEM, certPEM, keyPEM, contextName)
	if err != nil {
		return nil, err
	}
	return kc.Marshal()
}

// WriteKubeconfig writes KubeconfigBytes(...) to path atomically with mode
// 0600 (it embeds a private key). Errors: those of KubeconfigBytes and of
// writing the file.
func WriteKubeconfig(path, server string, caPEM, certPEM, keyPEM []byte, contextName string) error {
	data, err := KubeconfigBytes(server, caPEM, certPEM, keyPEM, contextName)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, data, 0o600)
}

// KubeconfigClient is what one kubeconfig context says about reaching its
// server: the cluster's server, CA and insecure flag, and the user's client
// certificate, key and bearer token, with embedded data decoded and files
// read.
type KubeconfigClient struct {
	// Server is the cluster's server URL.
	Server string
	// CAPEM verifies the server's certificate; empty means the system
	// roots.
	CAPEM []byte
	// CertPEM and KeyPEM are the client certificate and key; empty when
	// the user has none.
	CertPEM, KeyPEM []byte
	// Token is the bearer token (a token file's content without
	// surrounding white space).
	Token string
	// InsecureSkipTLSVerify is the cluster's insecure-skip-tls-verify.
	InsecureSkipTLSVerify bool
}

// LoadKubeconfigClient reads the kubeconfig file at path and resolves the
// context contextName ("" means current-context) as kubectl does for the
// fields Kubeconfig has: the context's cluster gives Server,
// InsecureSkipTLSVerify and the CA (certificate-authority-data, else the
// certificate-authority file), its user the client certificate and key
// (*-data, else the file) and the token (token, else tokenFile). File paths
// are relative to path's directory unless absolute. A cluster or user the
// context names but the file lacks leaves its fields empty; when a name
// appears more than once, the last context and cluster win and the users'
// fields are applied in order. Errors: reading path or a referenced file
// (os.ReadFile's *fs.PathError as is); `kubeconfig <path>: <decode error>`;
// `kubeconfig <path>: context "<name>" not found`; `kubeconfig <path>:
// certificate-authority-data: <base64 error>` (likewise
// client-certificate-data and client-key-data).
func LoadKubeconfigClient(path, contextName string) (*KubeconfigClient, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	kc, err := ParseKubeconfig(raw)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	if contextName == "" {
		contextName = kc.CurrentContext
	}
	var clusterName, userName string
	found := false
	for _, ctx := range kc.Contexts {
		if ctx.Name == contextName {
			clusterName, userName, found = ctx.Context.Cluster, ctx.Context.User, true
		}
	}
	if !found {
		return nil, fmt.Errorf("kubeconfig %s: context %q not found", path, contextName)
	}
	dir := filepath.Dir(path)
	readRel := func(p string) ([]byte, error) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return os.ReadFile(p)
	}
	c := &KubeconfigClient{}
	for _, cl := range kc.Clusters {
		if cl.Name != clusterName {
			continue
		}
		c.Server = cl.Cluster.Server
		c.InsecureSkipTLSVerify = cl.Cluster.InsecureSkipTLSVerify
		switch {
		case cl.Cluster.CertificateAuthorityData != "":
			if c.CAPEM, err = base64.StdEncoding.DecodeString(cl.Cluster.CertificateAuthorityData); err != nil {
				return nil, fmt.Errorf("kubeconfig %s: certificate-authority-data: %w", path, err)
			}
		case cl.Cluster.CertificateAuthority != "":
			if c.CAPEM, err = readRel(cl.Cluster.CertificateAuthority); err != nil {
				return nil, err
			}
		}
	}
	for _, u := range kc.Users {
		if u.Name != userName {
			continue
		}
		us := u.User
		switch {
		case us.ClientCertificateData != "":
			if c.CertPEM, err = base64.StdEncoding.DecodeString(us.ClientCertificateData); err != nil {
				return nil, fmt.Errorf("kubeconfig %s: client-certificate-data: %w", path, err)
			}
		case us.ClientCertificate != "":
			if c.CertPEM, err = readRel(us.ClientCertificate); err != nil {
				return nil, err
			}
		}
		switch {
		case us.ClientKeyData != "":
			if c.KeyPEM, err = base64.StdEncoding.DecodeString(us.ClientKeyData); err != nil {
				return nil, fmt.Errorf("kubeconfig %s: client-key-data: %w", path, err)
			}
		case us.ClientKey != "":
			if c.KeyPEM, err = readRel(us.ClientKey); err != nil {
				return nil, err
			}
		}
		c.Token = us.Token
		if c.Token == "" && us.TokenFile != "" {
			b, err := readRel(us.TokenFile)
			if err != nil {
				return nil, err
			}
			c.Token = strings.TrimSpace(string(b))
		}
	}
	return c, nil
}
