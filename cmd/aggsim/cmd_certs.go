package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	neturl "net/url"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/aggsim/aggsim/certs"
)

func newCertsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "certs",
		Short: "Create the PKI aggsim serves with, or certificates for an aggregated API backend",
	}
	cmd.AddCommand(newCertsInitCommand(), newCertsBackendCommand())
	return cmd
}

// certOptions are the key and validity flags both certs subcommands share.
type certOptions struct {
	keyType    string
	validity   time.Duration
	caValidity time.Duration
	extraSANs  []string
}

func (o *certOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.keyType, "key-type", string(certs.KeyTypeECDSA), "private key algorithm of new keys: ecdsa (P-256) or rsa (2048 bits)")
	f.DurationVar(&o.validity, "validity", certs.DefaultValidity, "lifetime of new leaf certificates")
	f.DurationVar(&o.caValidity, "ca-validity", certs.DefaultCAValidity, "lifetime of new CA certificates")
	f.StringSliceVar(&o.extraSANs, "extra-sans", nil, "extra DNS names or IP addresses for the serving certificate")
}

// toOptions checks the flags and turns them into certs.Options.
func (o *certOptions) toOptions() (certs.Options, error) {
	kt, err := certs.ParseKeyType(o.keyType)
	if err != nil {
		return certs.Options{}, fmt.Errorf("--key-type: %w", err)
	}
	if o.validity <= 0 || o.caValidity <= 0 {
		return certs.Options{}, errors.New("--validity and --ca-validity must be positive")
	}
	dns, ips := certs.SplitSANs(o.extraSANs)
	return certs.Options{KeyType: kt, Validity: o.validity, CAValidity: o.caValidity, ExtraDNSNames: dns, ExtraIPs: ips}, nil
}

// certsInitOptions are the flags of `aggsim certs init`.
type certsInitOptions struct {
	certOptions
	dir    string
	server string
}

func (o *certsInitOptions) addFlags(cmd *cobra.Command) {
	o.certOptions.addFlags(cmd)
	cmd.Flags().StringVar(&o.dir, "dir", "", "PKI directory to create or complete (required)")
	cmd.Flags().StringVar(&o.server, "server", "https://127.0.0.1:6443", "server URL written to <dir>/kubeconfig; its host is added to the serving certificate's SANs")
	_ = cmd.MarkFlagRequired("dir")
}

func newCertsInitCommand() *cobra.Command {
	o := &certsInitOptions{}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create the CA, serving, admin and front-proxy certificates (kubeadm file names) and an admin kubeconfig",
		Long: `Create (or complete) the PKI directory that "aggsim serve" uses: ca.crt/key,
apiserver.crt/key, admin.crt/key (CN=aggsim-admin, O=system:masters),
front-proxy-ca.crt/key and front-proxy-client.crt/key (CN=front-proxy-client),
plus <dir>/kubeconfig. Existing valid files are kept.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCertsInit(o, cmd.OutOrStdout())
		},
	}
	o.addFlags(cmd)
	return cmd
}

func runCertsInit(o *certsInitOptions, out io.Writer) error {
	opts, err := o.toOptions()
	if err != nil {
		return err
	}
	u, err := neturl.Parse(o.server)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" {
		return fmt.Errorf("--server: want an https:// URL with a host, got %q", o.server)
	}
	if ip := net.ParseIP(u.Hostname()); ip != nil {
		opts.ExtraIPs = append(opts.ExtraIPs, ip)
	} else {
		opts.ExtraDNSNames = append(opts.ExtraDNSNames, u.Hostname())
	}
	p, err := certs.EnsurePKI(o.dir, opts)
	if err != nil {
		return err
	}
	for _, f := range p.Files() {
		verb := "kept   "
		if slices.Contains(p.Created, f) {
			verb = "created"
		}
		fmt.Fprintf(out, "%s %s\n", verb, f)
	}
	kcPath := filepath.Join(o.dir, certs.KubeconfigName)
	if err := p.WriteKubeconfig(kcPath, o.server); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote   %s (server %s, user %s)\n", kcPath, o.server, certs.AdminCommonName)
	fmt.Fprintf(out, "backends trust the front proxy with --requestheader-client-ca-file=%s --requestheader-allowed-names=%s\n",
		p.FrontProxyCACert, certs.FrontProxyClientCN)
	return nil
}

// certsBackendOptions are the flags of `aggsim certs backend`.
type certsBackendOptions struct {
	certOptions
	service, namespace string
	dir                string
	caCert, caKey      string
	group, version     string
	port               int
}

func (o *certsBackendOptions) addFlags(cmd *cobra.Command) {
	o.certOptions.addFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.service, "service", "", "name of the backend's Service (required)")
	f.StringVar(&o.namespace, "namespace", "", "namespace of the backend's Service (required)")
	f.StringVar(&o.dir, "dir", "", "directory for ca.crt, ca.key, tls.crt, tls.key (required)")
	f.StringVar(&o.caCert, "ca-cert", "", "sign with this CA certificate (with --ca-key) instead of <dir>/ca.crt or a new CA")
	f.StringVar(&o.caKey, "ca-key", "", "key of --ca-cert")
	f.StringVar(&o.group, "group", "", "API group for the printed APIService (with --version)")
	f.StringVar(&o.version, "version", "", "API version for the printed APIService (with --group)")
	f.IntVar(&o.port, "port", 443, "spec.service.port for the printed APIService (the backend's real port for an ExternalName Service)")
	for _, n := range []string{"service", "namespace", "dir"} {
		_ = cmd.MarkFlagRequired(n)
	}
}

func newCertsBackendCommand() *cobra.Command {
	o := &certsBackendOptions{}
	cmd := &cobra.Command{
		Use:   "backend",
		Short: "Create a serving certificate for an aggregated API backend and print its caBundle",
		Long: `Create tls.crt/tls.key for <service>.<namespace>.svc (plus localhost, 127.0.0.1
and ::1), signed by --ca-cert/--ca-key, by <dir>/ca.crt and <dir>/ca.key when both
exist (so the caBundle stays the same), or by a new CA written to <dir>.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCertsBackend(o, cmd.OutOrStdout())
		},
	}
	o.addFlags(cmd)
	return cmd
}

func runCertsBackend(o *certsBackendOptions, out io.Writer) error {
	opts, err := o.toOptions()
	if err != nil {
		return err
	}
	if (o.caCert == "") != (o.caKey == "") {
		return errors.New("--ca-cert and --ca-key must be given together")
	}
	if (o.group == "") != (o.version == "") {
		return errors.New("--group and --version must be given together")
	}
	bo := certs.BackendOptions{Service: o.service, Namespace: o.namespace, CACertFile: o.caCert, CAKeyFile: o.caKey, Options: opts}
	dirCA, dirKey := filepath.Join(o.dir, certs.CACertName), filepath.Join(o.dir, certs.CAKeyName)
	if bo.CACertFile == "" && exists(dirCA) && exists(dirKey) {
		bo.CACertFile, bo.CAKeyFile = dirCA, dirKey
		fmt.Fprintf(out, "reusing %s\n", dirCA)
	}
	b, err := certs.IssueBackend(bo)
	if err != nil {
		return err
	}
	written, err := b.WriteDir(o.dir)
	if err != nil {
		return err
	}
	if o.caCert != "" {
		// Give the directory the CA certificate too, unless it is already there.
		if abs(o.caCert) != abs(dirCA) {
			if err := os.WriteFile(dirCA, b.CA.CertPEM, 0o644); err != nil {
				return err
			}
			written = append([]string{dirCA}, written...)
		}
	}
	for _, f := range written {
		fmt.Fprintf(out, "wrote   %s\n", f)
	}
	fmt.Fprintf(out, "serverName: %s\n", b.ServerName)
	fmt.Fprintf(out, "caBundle: %s\n", b.CABundle)
	fmt.Fprintln(out)
	if o.group != "" {
		fmt.Fprintf(out, "# kubectl apply -f - <<EOF\napiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: %s.%s\nspec:\n  group: %s\n  version: %s\n  groupPriorityMinimum: 1000\n  versionPriority: 15\n",
			o.version, o.group, o.group, o.version)
	} else {
		fmt.Fprintf(out, "# APIService spec (add group, version, groupPriorityMinimum, versionPriority):\nspec:\n")
	}
	fmt.Fprintf(out, "  service:\n    name: %s\n    namespace: %s\n    port: %d\n  caBundle: %s\n", o.service, o.namespace, o.port, b.CABundle)
	fmt.Fprintf(out, "# a backend on this machine is reached through Service %s/%s of type ExternalName, externalName: localhost,\n# with spec.service.port set to the port it listens on\n", o.namespace, o.service)
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func abs(path string) string {
	a, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	return a
}
