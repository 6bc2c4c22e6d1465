package main

import (
	"crypto/tls"
	"crypto/x509"
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

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/certs"
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
	no := &explainOptions{}
	nsCmd := &cobra.Command{
		Use:     "namespace NAME",
		Aliases: []string{"namespaces", "ns"},
		Short:   "Explain why a namespace is (still) Terminating and what would unblock it",
		Long: `Show the namespace's phase, finalizers and the namespace controller's
conditions; the APIServices whose unavailability blocks its deletion, with
their own explanation (as 'aggsim explain apiservice'); the content that
remains per resource (with finalizers); and what would unblock it.
Reads GET ` + aggregator.DebugNamespacesPath + `/NAME from the aggsim server.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExplainPath(no, aggregator.DebugNamespacesPath, args[0], cmd.OutOrStdout())
		},
	}
	no.addFlags(nsCmd)
	explain.AddCommand(nsCmd)
	explain.AddCommand(newExplainAccessCommand()) // cmd_explain_access.go

	explain.AddCommand(newExplainGCCommand()) // cmd_explain_gc.go

	explain.AddCommand(newExplainWebhookCommands()...) // cmd_explain_webhook.go
	explain.AddCommand(newExplainCRDCommand())         // cmd_explain_crd.go
	return explain
}

func runExplain(o *explainOptions, name string, out io.Writer) error {
	return runExplainPath(o, aggregator.DebugAPIServicesPath, name, out)
}

// runExplainPath GETs base[/name] from the server and prints the answer.
func runExplainPath(o *explainOptions, base, name string, out io.Writer) error {
	switch o.output {
	case "", "json":
	default:
		return fmt.Errorf("--output: unsupported format %q (use json or leave empty)", o.output)
	}
	cfg, err := o.clientConfig()
	if err != nil {
		return err
	}
	if name != "" {
		base += "/" + url.PathEscape(name)
	}
	return getExplanation(o, cfg, base, out)
}

// getExplanation GETs pathAndQuery from the server cfg names and prints
// the answer; a non-200 answer is an error (kubectl's `Error from server
// (Reason): message` for a Status).
func getExplanation(o *explainOptions, cfg *certs.KubeconfigClient, pathAndQuery string, out io.Writer) error {
	client, err := explainHTTPClient(cfg, o.requestTimout)
	if err != nil {
		return err
	}
	u := strings.TrimRight(cfg.Server, "/") + pathAndQuery
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	if o.output == "json" {
		req.Header.Set("Accept", "application/json")
	} else {
		req.Header.Set("Accept", "text/plain")
	}
	if cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.Token)
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

// clientConfig merges the kubeconfig (if any, see
// certs.LoadKubeconfigClient) with the flags; flags win.
func (o *explainOptions) clientConfig() (*certs.KubeconfigClient, error) {
	cfg := &certs.KubeconfigClient{}
	if path := o.kubeconfigPath(); path != "" {
		var err error
		if cfg, err = certs.LoadKubeconfigClient(path, o.context); err != nil {
			return nil, err
		}
	} else if o.server == "" {
		return nil, errors.New("no kubeconfig found: pass --kubeconfig or --server")
	}
	var err error
	if o.server != "" {
		cfg.Server = o.server
	}
	if o.caFile != "" {
		if cfg.CAPEM, err = os.ReadFile(o.caFile); err != nil {
			return nil, err
		}
	}
	if o.certFile != "" {
		if cfg.CertPEM, err = os.ReadFile(o.certFile); err != nil {
			return nil, err
		}
	}
	if o.keyFile != "" {
		if cfg.KeyPEM, err = os.ReadFile(o.keyFile); err != nil {
			return nil, err
		}
	}
	if o.token != "" {
		cfg.Token = o.token
	}
	if o.insecure {
		cfg.InsecureSkipTLSVerify = true
	}
	if cfg.Server == "" {
		return nil, errors.New("no server: the kubeconfig context has no cluster server and --server is empty")
	}
	return cfg, nil
}

// explainHTTPClient returns a client that trusts c.CAPEM (or the system
// roots) and presents the client certificate when there is one.
func explainHTTPClient(c *certs.KubeconfigClient, timeout time.Duration) (*http.Client, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: c.InsecureSkipTLSVerify} //nolint:gosec // --insecure-skip-tls-verify
	if len(c.CAPEM) > 0 && !c.InsecureSkipTLSVerify {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(c.CAPEM) {
			return nil, errors.New("certificate authority: no PEM certificate found")
		}
		tc.RootCAs = pool
	}
	if len(c.CertPEM) > 0 || len(c.KeyPEM) > 0 {
		cert, err := tls.X509KeyPair(c.CertPEM, c.KeyPEM)
		if err != nil {
			return nil, fmt.Errorf("client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	tr := &http.Transport{TLSClientConfig: tc, ForceAttemptHTTP2: true, Proxy: http.ProxyFromEnvironment}
	return &http.Client{Transport: tr, Timeout: timeout}, nil
}
