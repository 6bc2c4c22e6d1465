package main

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/demo"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// demoAvailableTimeout bounds how long `serve --demo` waits for the demo
// APIServices to become Available.
const demoAvailableTimeout = 60 * time.Second

// aggregatedDiscoveryAccept is the Accept header that asks /apis for
// aggregated discovery (apidiscovery.k8s.io/v2), as kubectl 1.30+ sends it.
const aggregatedDiscoveryAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// demoRecordLimit is how many requests `serve --demo`'s backend keeps
// for /debug/requests.
const demoRecordLimit = 2000

// startDemo starts the demo wardle.example.com backend in-process on a free
// loopback port and registers it with srv like a cluster would (issue 6:
// the one-command sandbox): a serving cert for api.wardle.svc signed by the
// CA in <dataDir>/demo (created on first use), flunders kept in
// <dataDir>/demo/wardle.db, Namespace wardle, Service and Endpoints
// wardle/api, both APIServices with the real caBundle, and the RBAC
// objects a real deployment applies (demo.Objects; serve --demo runs with
// --authorization-mode=RBAC unless told otherwise). It waits until both
// are Available (demoAvailableTimeout), installs the Topping and Pizza
// CRDs (waiting until each is Established) and the pizza admission
// webhooks, all served by the backend, then prints what to try next to
// out. The backend stops when runCtx ends.
func startDemo(ctx, runCtx context.Context, srv *aggregator.Server, pki *certs.PKI, dataDir string, out io.Writer, logger *slog.Logger) error {
	dir := filepath.Join(dataDir, "demo")
	bc, err := ensureDemoCerts(dir, demo.ServiceName, demo.Namespace)
	if err != nil {
		return err
	}
	serving, err := bc.Serving.TLSCertificate()
	if err != nil {
		return fmt.Errorf("demo serving certificate: %w", err)
	}
	st, err := storage.OpenBolt(filepath.Join(dir, "wardle.db"), storage.BoltOptions{})
	if err != nil {
		return fmt.Errorf("demo store: %w", err)
	}
	frontProxyCA := pki.FrontProxyCAPool
	b, err := demo.NewBackend(demo.Options{
		GetCertificate:        demo.StaticCertificate(serving),
		RequestHeaderClientCA: func() *x509.CertPool { return frontProxyCA },
		Storage:               st,
		Logger:                logger.With("component", "demo-backend"),
		// the walkthrough (run three times by its e2e test) reads jane's
		// request after a few hundred availability and discovery probes
		RecordLimit: demoRecordLimit,
	})
	if err != nil {
		st.Close()
		return err
	}
	if err := b.Start("127.0.0.1:0"); err != nil {
		st.Close()
		return err
	}
	go func() {
		<-runCtx.Done()
		_ = b.Close()
		_ = st.Close()
	}()
	port := b.Addr().Port
	// The demo's objects go into kube-system among others: the system
	// namespaces exist once the server is ready (a faster start-up met
	// `namespaces "kube-system" not found` here).
	select {
	case <-srv.Ready():
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := demo.Apply(ctx, srv.API(), demo.Objects(int32(port), bc.CA.CertPEM)); err != nil {
		return fmt.Errorf("register the demo backend: %w", err)
	}
	fmt.Fprintf(out, "demo: wardle.example.com backend serving on %s (Service %s/%s, Endpoints 127.0.0.1:%d, CA %s)\n",
		b.URL(), demo.Namespace, demo.ServiceName, port, filepath.Join(dir, certs.CACertName))
	if err := demo.WaitAvailable(ctx, srv.API(), demo.APIServiceNames(), demoAvailableTimeout, 0); err != nil {
		return err
	}
	fmt.Fprintf(out, "demo: APIServices %s are Available\n", strings.Join(demo.APIServiceNames(), " and "))
	// the Topping CRD next to the aggregated API (demo/crd.go)
	if err := demo.Apply(ctx, srv.API(), []meta.Object{demo.ToppingCRD()}); err != nil {
		return fmt.Errorf("install the demo CRD: %w", err)
	}
	if err := demo.WaitEstablished(ctx, srv.API(), demo.ToppingCRDName, demoAvailableTimeout); err != nil {
		return err
	}
	fmt.Fprintf(out, "demo: CustomResourceDefinition %s is Established\n", demo.ToppingCRDName)
	// the two-version Pizza CRD, converted by the demo backend (demo/pizza.go)
	if err := demo.Apply(ctx, srv.API(), []meta.Object{demo.PizzaCRD(bc.CA.CertPEM)}); err != nil {
		return fmt.Errorf("install the demo Pizza CRD: %w", err)
	}
	if err := demo.WaitEstablished(ctx, srv.API(), demo.PizzaCRDName, demoAvailableTimeout); err != nil {
		return err
	}
	fmt.Fprintf(out, "demo: CustomResourceDefinition %s is Established (conversion webhook %s%s)\n", demo.PizzaCRDName, b.URL(), demo.ConversionPath)
	// admission webhooks for pizzas, served by the demo backend (demo/pizza_admission.go)
	if err := demo.Apply(ctx, srv.API(), demo.PizzaWebhookConfigurations(bc.CA.CertPEM)); err != nil {
		return fmt.Errorf("register the demo pizza webhooks: %w", err)
	}
	fmt.Fprintf(out, "demo: admission webhooks %s (%s%s) and %s (%s%s)\n", demo.PizzaDefaultsWebhook, b.URL(), demo.MutatePizzaPath, demo.PizzaChecksWebhook, b.URL(), demo.ValidatePizzaPath)
	kubeconfigPath := filepath.Join(dataDir, certs.KubeconfigName)
	server, err := kubeconfigServer(kubeconfigPath)
	if err != nil {
		return err
	}
	fmt.Fprint(out, demoBanner(demoBannerInput{
		Kubeconfig: kubeconfigPath, Server: server, PKIDir: pki.Dir,
		BackendURL: b.URL(), BackendCA: filepath.Join(dir, certs.CACertName),
	}))
	return nil
}

// ensureDemoCerts issues the demo backend's serving certificate for
// <service>.<namespace>.svc (plus localhost, 127.0.0.1, ::1) into dir: the
// CA dir/ca.crt + ca.key is created on first use and reused afterwards (so
// caBundle stays stable across restarts); tls.crt/tls.key are re-issued on
// every start.
func ensureDemoCerts(dir, service, namespace string) (*certs.BackendCerts, error) {
	opts := certs.BackendOptions{Service: service, Namespace: namespace}
	caCert, caKey := filepath.Join(dir, certs.CACertName), filepath.Join(dir, certs.CAKeyName)
	if demoFileExists(caCert) && demoFileExists(caKey) {
		opts.CACertFile, opts.CAKeyFile = caCert, caKey
	}
	bc, err := certs.IssueBackend(opts)
	if err != nil {
		return nil, fmt.Errorf("demo certificates: %w", err)
	}
	if _, err := bc.WriteDir(dir); err != nil {
		return nil, fmt.Errorf("demo certificates: %w", err)
	}
	return bc, nil
}

func demoFileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// kubeconfigServer returns clusters[0].cluster.server of a kubeconfig file.
func kubeconfigServer(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	kc, err := certs.ParseKubeconfig(data)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if len(kc.Clusters) == 0 || kc.Clusters[0].Cluster.Server == "" {
		return "", fmt.Errorf("read %s: no cluster server", path)
	}
	return kc.Clusters[0].Cluster.Server, nil
}

// demoBannerInput is what the "try next" banner needs.
type demoBannerInput struct {
	Kubeconfig string // admin kubeconfig path
	Server     string // aggsim's URL
	PKIDir     string // aggsim's PKI directory
	BackendURL string // the demo backend's URL
	BackendCA  string // the CA that signed the backend's serving cert
}

// demoBanner returns the lines printed once the demo is Available. Every
// line starting with two spaces is a command; the e2e test runs the curl
// ones.
func demoBanner(in demoBannerInput) string {
	pki := func(name string) string { return shellQuote(filepath.Join(in.PKIDir, name)) }
	admin := fmt.Sprintf("--cacert %s --cert %s --key %s", pki(certs.CACertName), pki(certs.AdminCertName), pki(certs.AdminKeyName))
	frontProxy := fmt.Sprintf("--cacert %s --cert %s --key %s", shellQuote(in.BackendCA), pki(certs.FrontProxyClientCertName), pki(certs.FrontProxyClientKeyName))
	lines := []string{
		"demo: try next (walkthrough: README.md):",
		"  export KUBECONFIG=" + shellQuote(in.Kubeconfig),
		"  kubectl get apiservices",
		"  kubectl get flunders",
		"  kubectl create -f testdata/demo/flunder.yaml",
		"  kubectl auth can-i list flunders --as=jane",
		"  kubectl create rolebinding jane-view --clusterrole=view --user=jane",
		"  kubectl get fl --as=jane",
		"  curl -sS " + admin + " " + in.Server + "/apis",
		"  curl -sS " + admin + " -H '" + "Accept: " + aggregatedDiscoveryAccept + "' " + in.Server + "/apis",
		"  curl -sS " + admin + " " + in.Server + "/apis/" + demo.Group + "/" + demo.V1alpha1,
		"  curl -sS " + frontProxy + " -H 'X-Remote-User: inspector' '" + in.BackendURL + demo.DebugRequestsPath + "?user=jane'",
	}
	return strings.Join(lines, "\n") + "\n"
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe
// characters.
func shellQuote(s string) string {
	safe := true
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._-+=:,@%", c)) {
			safe = false
			break
		}
	}
	if safe && s != "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
