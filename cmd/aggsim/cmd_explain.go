package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/aggregator"
)

// explainOptions are the flags of `aggsim explain apiservice`: where the
// aggsim server is and how to authenticate, read from a kubeconfig as
// kubectl does (--kubeconfig, $KUBECONFIG, ~/.kube/config) and overridden
// by kubectl's flag names.
type explainOptions struct {
	kubeconfig    string
	context       string
	server        string
	caFile        string
	certFile      string
	keyFile       string
	token         string
	insecure      bool
	output        string
	requestTimout time.Duration
}

func (o *explainOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file (default $KUBECONFIG, then ~/.kube/config)")
	f.StringVar(&o.context, "context", "", "kubeconfig context to use (default current-context)")
	f.StringVarP(&o.server, "server", "s", "", "aggsim server URL, overriding the kubeconfig")
	f.StringVar(&o.caFile, "certificate-authority", "", "CA file that verifies the server's certificate")
	f.StringVar(&o.certFile, "client-certificate", "", "client certificate file")
	f.StringVar(&o.keyFile, "client-key", "", "client key file")
	f.StringVar(&o.token, "token", "", "bearer token")
	f.BoolVar(&o.insecure, "insecure-skip-tls-verify", false, "do not verify the server's certificate")
	f.StringVarP(&o.output, "output", "o", "", "output format: '' (text) or json")
	f.DurationVar(&o.requestTimout, "request-timeout", 30*time.Second, "how long to wait for the answer (explain probes the backend, up to about 10 s)")
}

// newExplainCommand builds `aggsim explain apiservice [<name>]`.
func newExplainCommand() *cobra.Command {
	explain := &cobra.Command{
		Use:   "explain",
		Short: "Explain the state of aggsim objects",
	}
	o := &explainOptions{}
	cmd := &cobra.Command{
		Use:     "apiservice [NAME]",
		Aliases: []string{"apiservices"},
		Short:   "Explain why an APIService is (un)available and whether proxying to it works",
		Long: `Without NAME, list every APIService with its Available condition. With NAME,
run the availability checks now and show each result, the resolved address,
the serving certificate chain the backend presents against what spec.caBundle
and <service>.<namespace>.svc require, and one line of advice.
Reads GET ` + aggregator.DebugAPIServicesPath + `[/NAME] from the aggsim server.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			return runExplain(o, name, cmd.OutOrStdout())
		},
	}
	o.addFlags(cmd)
	explain.AddCommand(cmd)
	return explain
}

func runExplain(o *explainOptions, name string, out io.Writer) error {
	switch o.output {
	case "", "json":
	default:
		return fmt.Errorf("--output: unsupported format %q (use json or leave empty)", o.output)
	}
	cfg, err := o.clientConfig()
	if err != nil {
		return err
	}
	client, err := cfg.httpClient(o.requestTimout)
	if err != nil {
		return err
	}
	u := strings.TrimRight(cfg.server, "/") + aggregator.DebugAPIServicesPath
	if name != "" {
		u += "/" + url.PathEscape(name)
	}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	if o.output == "json" {
		req.Header.Set("Accept", "application/json")
	} else {
		req.Header.Set("Accept", "text/plain")
	}
	if cfg.token != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var st struct {
			Kind, Reason, Message string
		}
		if json.Unmarshal(body, &st) == nil && st.Kind == "Status" {
			return fmt.Errorf("Error from server (%s): %s", st.Reason, st.Message)
		}
		return fmt.Errorf("the server answered %s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	_, err = out.Write(body)
	return err
}

// clientConfig is where and how to reach the server.
type clientConfig struct {
	server   string
	caPEM    []byte
	certPEM  []byte
	keyPEM   []byte
	token    string
	insecure bool
}

// kubeconfigFile is the part of a kubeconfig (client-go/tools/clientcmd/api/v1)
// explain reads.
type kubeconfigFile struct {
	Clusters []struct {
		Name    string `json:"name"`
		Cluster struct {
			Server                   string `json:"server"`
			CertificateAuthority     string `json:"certificate-authority"`
			CertificateAuthorityData string `json:"certificate-authority-data"`
			InsecureSkipTLSVerify    bool   `json:"insecure-skip-tls-verify"`
		} `json:"cluster"`
	} `json:"clusters"`
	Users []struct {
		Name string `json:"name"`
		User struct {
			ClientCertificate     string `json:"client-certificate"`
			ClientCertificateData string `json:"client-certificate-data"`
			ClientKey             string `json:"client-key"`
			ClientKeyData         string `json:"client-key-data"`
			Token                 string `json:"token"`
			TokenFile             string `json:"tokenFile"`
		} `json:"user"`
	} `json:"users"`
	Contexts []struct {
		Name    string `json:"name"`
		Context struct {
			Cluster string `json:"cluster"`
			User    string `json:"user"`
		} `json:"context"`
	} `json:"contexts"`
	CurrentContext string `json:"current-context"`
}

// kubeconfigPath is --kubeconfig, else the first file of $KUBECONFIG, else
// ~/.kube/config; "" when none is set and the default does not exist.
func (o *explainOptions) kubeconfigPath() string {
	if o.kubeconfig != "" {
		return o.kubeconfig
	}
	if env := os.Getenv("KUBECONFIG"); env != "" {
		return filepath.SplitList(env)[0]
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".kube", "config")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// clientConfig merges the kubeconfig (if any) with the flags; flags win.
// Paths inside the kubeconfig are relative to its directory.
func (o *explainOptions) clientConfig() (*clientConfig, error) {
	cfg := &clientConfig{}
	if path := o.kubeconfigPath(); path != "" {
		if err := cfg.loadKubeconfig(path, o.context); err != nil {
			return nil, err
		}
	} else if o.server == "" {
		return nil, errors.New("no kubeconfig found: pass --kubeconfig or --server")
	}
	var err error
	if o.server != "" {
		cfg.server = o.server
	}
	if o.caFile != "" {
		if cfg.caPEM, err = os.ReadFile(o.caFile); err != nil {
			return nil, err
		}
	}
	if o.certFile != "" {
		if cfg.certPEM, err = os.ReadFile(o.certFile); err != nil {
			return nil, err
		}
	}
	if o.keyFile != "" {
		if cfg.keyPEM, err = os.ReadFile(o.keyFile); err != nil {
			return nil, err
		}
	}
	if o.token != "" {
		cfg.token = o.token
	}
	if o.insecure {
		cfg.insecure = true
	}
	if cfg.server == "" {
		return nil, errors.New("no server: the kubeconfig context has no cluster server and --server is empty")
	}
	return cfg, nil
}

func (c *clientConfig) loadKubeconfig(path, contextName string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var kc kubeconfigFile
	if err := yaml.Unmarshal(raw, &kc); err != nil {
		return fmt.Errorf("kubeconfig %s: %w", path, err)
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
		return fmt.Errorf("kubeconfig %s: context %q not found", path, contextName)
	}
	dir := filepath.Dir(path)
	readRel := func(p string) ([]byte, error) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return os.ReadFile(p)
	}
	for _, cl := range kc.Clusters {
		if cl.Name != clusterName {
			continue
		}
		c.server = cl.Cluster.Server
		c.insecure = cl.Cluster.InsecureSkipTLSVerify
		switch {
		case cl.Cluster.CertificateAuthorityData != "":
			if c.caPEM, err = base64.StdEncoding.DecodeString(cl.Cluster.CertificateAuthorityData); err != nil {
				return fmt.Errorf("kubeconfig %s: certificate-authority-data: %w", path, err)
			}
		case cl.Cluster.CertificateAuthority != "":
			if c.caPEM, err = readRel(cl.Cluster.CertificateAuthority); err != nil {
				return err
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
			if c.certPEM, err = base64.StdEncoding.DecodeString(us.ClientCertificateData); err != nil {
				return fmt.Errorf("kubeconfig %s: client-certificate-data: %w", path, err)
			}
		case us.ClientCertificate != "":
			if c.certPEM, err = readRel(us.ClientCertificate); err != nil {
				return err
			}
		}
		switch {
		case us.ClientKeyData != "":
			if c.keyPEM, err = base64.StdEncoding.DecodeString(us.ClientKeyData); err != nil {
				return fmt.Errorf("kubeconfig %s: client-key-data: %w", path, err)
			}
		case us.ClientKey != "":
			if c.keyPEM, err = readRel(us.ClientKey); err != nil {
				return err
			}
		}
		c.token = us.Token
		if c.token == "" && us.TokenFile != "" {
			b, err := readRel(us.TokenFile)
			if err != nil {
				return err
			}
			c.token = strings.TrimSpace(string(b))
		}
	}
	return nil
}

// httpClient returns a client that trusts caPEM (or the system roots) and
// presents the client certificate when there is one.
func (c *clientConfig) httpClient(timeout time.Duration) (*http.Client, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: c.insecure} //nolint:gosec // --insecure-skip-tls-verify
	if len(c.caPEM) > 0 && !c.insecure {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(c.caPEM) {
			return nil, errors.New("certificate authority: no PEM certificate found")
		}
		tc.RootCAs = pool
	}
	if len(c.certPEM) > 0 || len(c.keyPEM) > 0 {
		cert, err := tls.X509KeyPair(c.certPEM, c.keyPEM)
		if err != nil {
			return nil, fmt.Errorf("client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	tr := &http.Transport{TLSClientConfig: tc, ForceAttemptHTTP2: true, Proxy: http.ProxyFromEnvironment}
	return &http.Client{Transport: tr, Timeout: timeout}, nil
}
