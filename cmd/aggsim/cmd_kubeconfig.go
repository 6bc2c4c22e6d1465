package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/aggsim/aggsim/certs"
)

// kubeconfigOptions are the flags of `aggsim kubeconfig`: the client
// flags of `aggsim explain` (who asks for the token) and the token's.
type kubeconfigOptions struct {
	client         explainOptions
	serviceAccount string
	audiences      []string
	duration       time.Duration
	file           string
}

func newKubeconfigCommand() *cobra.Command {
	o := &kubeconfigOptions{}
	cmd := &cobra.Command{
		Use:   "kubeconfig --service-account NAMESPACE/NAME",
		Short: "Write a kubeconfig that authenticates as a ServiceAccount with a token aggsim issues",
		Long: `Request a token for the ServiceAccount (POST serviceaccounts/NAME/token, as
'kubectl create token' does) with the credentials of --kubeconfig (default
$KUBECONFIG, then ~/.kube/config), and write a kubeconfig with the same server
and CA and that token: what a program such as an aggregated API server gets in
a Pod, for one running on this machine. The token expires (--duration, default
the server's one hour); run the command again for a new one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runKubeconfig(o, cmd.OutOrStdout())
		},
	}
	o.client.addFlags(cmd)
	_ = cmd.Flags().MarkHidden("output")
	f := cmd.Flags()
	f.StringVar(&o.serviceAccount, "service-account", "", "NAMESPACE/NAME of the ServiceAccount (required)")
	f.StringArrayVar(&o.audiences, "audience", nil, "audience of the token, repeatable (default: the server's API audiences)")
	f.DurationVar(&o.duration, "duration", 0, "requested lifetime of the token (default: the server's, one hour)")
	f.StringVarP(&o.file, "file", "f", "", "write the kubeconfig to this file (mode 0600) instead of stdout")
	return cmd
}

// tokenRequestBody is the authentication.k8s.io/v1 TokenRequest posted.
type tokenRequestBody struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Audiences         []string `json:"audiences,omitempty"`
		ExpirationSeconds *int64   `json:"expirationSeconds,omitempty"`
	} `json:"spec"`
}

func runKubeconfig(o *kubeconfigOptions, out io.Writer) error {
	ns, name, ok := strings.Cut(o.serviceAccount, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("--service-account: want NAMESPACE/NAME, got %q", o.serviceAccount)
	}
	cfg, err := o.client.clientConfig()
	if err != nil {
		return err
	}
	client, err := explainHTTPClient(cfg, o.client.requestTimout)
	if err != nil {
		return err
	}
	body := tokenRequestBody{APIVersion: "authentication.k8s.io/v1", Kind: "TokenRequest"}
	body.Spec.Audiences = o.audiences
	if o.duration != 0 {
		s := int64(o.duration / time.Second)
		body.Spec.ExpirationSeconds = &s
	}
	b, _ := json.Marshal(body)
	u := strings.TrimRight(cfg.Server, "/") + "/api/v1/namespaces/" + url.PathEscape(ns) + "/serviceaccounts/" + url.PathEscape(name) + "/token"
	req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "aggsim-kubeconfig")
	if cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.Token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	rb, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusCreated {
		var st struct{ Kind, Message string }
		if json.Unmarshal(rb, &st) == nil && st.Kind == "Status" {
			return fmt.Errorf("failed to create token: %s", st.Message)
		}
		return fmt.Errorf("failed to create token: the server answered %s: %s", resp.Status, strings.TrimSpace(string(rb)))
	}
	var answer struct {
		Status struct {
			Token string `json:"token"`
		} `json:"status"`
	}
	if err := json.Unmarshal(rb, &answer); err != nil || answer.Status.Token == "" {
		return fmt.Errorf("failed to create token: the answer holds no token: %s", strings.TrimSpace(string(rb)))
	}
	kc, err := certs.NewKubeconfig(cfg.Server, cfg.CAPEM, nil, nil, "")
	if err != nil {
		return err
	}
	kc.Users[0].Name = "system:serviceaccount:" + ns + ":" + name
	kc.Users[0].User.Token = answer.Status.Token
	kc.Contexts[0].Context.User = kc.Users[0].Name
	if cfg.InsecureSkipTLSVerify {
		kc.Clusters[0].Cluster.InsecureSkipTLSVerify = true
		kc.Clusters[0].Cluster.CertificateAuthorityData = ""
	}
	data, err := kc.Marshal()
	if err != nil {
		return err
	}
	if o.file == "" {
		_, err = out.Write(data)
		return err
	}
	return os.WriteFile(o.file, data, 0o600)
}
