package certs_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/aggsim/aggsim/certs"
)

// EnsurePKI creates kubeadm's file set on first use and reuses it later.
func ExampleEnsurePKI() {
	dir, _ := os.MkdirTemp("", "pki")
	defer os.RemoveAll(dir)

	p, err := certs.EnsurePKI(dir, certs.Options{})
	if err != nil {
		panic(err)
	}
	for _, f := range p.Created {
		fmt.Println("created", filepath.Base(f))
	}
	again, _ := certs.EnsurePKI(dir, certs.Options{})
	fmt.Println("created on second start:", len(again.Created))
	// Output:
	// created ca.crt
	// created ca.key
	// created apiserver.crt
	// created apiserver.key
	// created admin.crt
	// created admin.key
	// created front-proxy-ca.crt
	// created front-proxy-ca.key
	// created front-proxy-client.crt
	// created front-proxy-client.key
	// created on second start: 0
}

// IssueBackend makes the serving certificate of an aggregated API server
// and the caBundle its APIService needs.
func ExampleIssueBackend() {
	b, err := certs.IssueBackend(certs.BackendOptions{Service: "api", Namespace: "wardle"})
	if err != nil {
		panic(err)
	}
	fmt.Println(b.ServerName, b.CACreated, b.Serving.Cert.DNSNames)
	// Output: api.wardle.svc true [api.wardle.svc api.wardle.svc.cluster.local localhost]
}
