package main

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/demo"
)

// demoBackendOptions are the flags of `aggsim demo-backend`, named as
// k8s.io/sample-apiserver names them where the concept is the same.
type demoBackendOptions struct {
	listen                    string
	certDir                   string
	service, namespace        string
	requestheaderClientCAFile string
	requestheaderAllowedNames []string
	clientCAFile              string
	logLevel                  string
}

func (o *demoBackendOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", "127.0.0.1:0", "address to serve HTTPS on; port 0 picks a free port (the chosen address is printed)")
	f.StringVar(&o.certDir, "cert-dir", "", "directory with the serving pair tls.crt/tls.key (and ca.crt, printed as caBundle); a missing pair is issued for <service>.<namespace>.svc by ca.crt/ca.key there, created when missing (required)")
	f.StringVar(&o.service, "service", demo.ServiceName, "Service name the serving certificate is issued for")
	f.StringVar(&o.namespace, "namespace", demo.Namespace, "Service namespace the serving certificate is issued for")
	f.StringVar(&o.requestheaderClientCAFile, "requestheader-client-ca-file", "", "front-proxy CA that signs the aggregator's proxy client certificate, e.g. <aggsim data dir>/pki/front-proxy-ca.crt (required)")
	f.StringSliceVar(&o.requestheaderAllowedNames, "requestheader-allowed-names", []string{certs.FrontProxyClientCN}, "common names the front-proxy client certificate may have (empty: any)")
	f.StringVar(&o.clientCAFile, "client-ca-file", "", "optional CA that verifies plain client certificates (CN = user, O = groups)")
	f.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
}

func newDemoBackendCommand() *cobra.Command {
	o := &demoBackendOptions{}
	cmd := &cobra.Command{
		Use:   "demo-backend",
		Short: "Serve the demo wardle.example.com aggregated API (flunders, fischers) over TLS",
		Long: "Serve the demo wardle.example.com aggregated API, modelled on k8s.io/sample-apiserver: " +
			"flunders (namespaced, short name fl) and fischers in v1alpha1 and v1beta1. It authenticates the " +
			"aggregator by its front-proxy client certificate and takes the user from X-Remote-User/X-Remote-Group; " +
			"other callers get 401. GET /debug/requests lists the requests it received.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runDemoBackend(ctx, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.addFlags(cmd)
	return cmd
}

// runDemoBackend serves the demo backend until ctx ends. It prints the
// address ("demo-backend serving wardle.example.com on https://...") and
// the caBundle (base64 of ca.crt) to out.
func runDemoBackend(ctx context.Context, o *demoBackendOptions, out, errOut io.Writer) error {
	if o.certDir == "" {
		return errors.New("--cert-dir is required")
	}
	if o.requestheaderClientCAFile == "" {
		return errors.New("--requestheader-client-ca-file is required")
	}
	level, err := parseLogLevel(o.logLevel)
	if err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: level}))
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	certFile, keyFile := filepath.Join(o.certDir, certs.BackendCertName), filepath.Join(o.certDir, certs.BackendKeyName)
	if !demoFileExists(certFile) || !demoFileExists(keyFile) {
		if _, err := ensureDemoCerts(o.certDir, o.service, o.namespace); err != nil {
			return err
		}
	}
	serving, err := certs.NewDynamicCertificate(certFile, keyFile, certs.ReloadOptions{Logger: logger})
	if err != nil {
		return fmt.Errorf("serving certificate: %w", err)
	}
	go serving.Run(runCtx)
	rhCA, err := certs.NewDynamicCAFile(o.requestheaderClientCAFile, certs.ReloadOptions{Logger: logger})
	if err != nil {
		return fmt.Errorf("--requestheader-client-ca-file: %w", err)
	}
	go rhCA.Run(runCtx)
	opts := demo.Options{
		GetCertificate:            serving.GetCertificate,
		RequestHeaderClientCA:     rhCA.Pool,
		RequestHeaderAllowedNames: o.requestheaderAllowedNames,
		Logger:                    logger,
	}
	if opts.RequestHeaderAllowedNames == nil {
		opts.RequestHeaderAllowedNames = []string{} // the flag set to "": any CN
	}
	if o.clientCAFile != "" {
		clientCA, err := certs.NewDynamicCAFile(o.clientCAFile, certs.ReloadOptions{Logger: logger})
		if err != nil {
			return fmt.Errorf("--client-ca-file: %w", err)
		}
		go clientCA.Run(runCtx)
		opts.ClientCA = func() *x509.CertPool { return clientCA.Pool() }
	}
	b, err := demo.NewBackend(opts)
	if err != nil {
		return err
	}
	if err := b.Start(o.listen); err != nil {
		return err
	}
	defer b.Close()
	fmt.Fprintf(out, "demo-backend serving %s on %s\n", demo.Group, b.URL())
	if caPEM, err := os.ReadFile(filepath.Join(o.certDir, certs.CACertName)); err == nil {
		fmt.Fprintf(out, "caBundle: %s\n", base64.StdEncoding.EncodeToString(caPEM))
	} else {
		fmt.Fprintf(out, "caBundle: unknown (%s/%s not found; use the CA that signed %s)\n", o.certDir, certs.CACertName, certFile)
	}
	<-ctx.Done()
	return nil
}
