package aggregator

// The OpenAPI aggregation through the whole server: through the real
// proxy the backend sees user system:aggregator with no groups, and
// client-go's openapi3 client reads the aggregated document. The
// aggregation itself is tested in aggregator/openapiaggregator.

import (
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"

	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
)

// TestOpenAPIThroughProxy runs a Server with a TLS backend: the fetches go
// through the proxy as system:aggregator, client-go reads the aggregated
// document, and deleting the APIService drops it.
func TestOpenAPIThroughProxy(t *testing.T) {
	e := avStart(t, false)
	ca, err := certs.NewCA(certs.BackendCACommonName, certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bc, err := certs.IssueBackend(certs.BackendOptions{Service: avSvc, Namespace: avNS, CA: ca})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := bc.Serving.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	b := &openAPIRecorder{group: "wardle.example.com", version: "v1"}
	srv := httptest.NewUnstartedServer(b)
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, p, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var port int32
	fmt.Sscan(p, &port)

	e.put(t, grServices, avService(443))
	e.put(t, grEndpoints, avEndpoints(port, true))
	a := avAPIService(ca.CertPEM)
	a.Spec.Version = b.version
	a.Name = b.version + "." + b.group
	e.create(t, apiServicesResource, a)
	e.waitCondition(t, a.Name, cond(apiregistration.ConditionTrue, apiregistration.ReasonPassed, apiregistration.MessagePassed))

	const key = "apis/wardle.example.com/v1"
	waitIndex := func(want bool) {
		t.Helper()
		deadline := time.Now().Add(avTimeout)
		for {
			_, body := e.proxyGet("/openapi/v3")
			if strings.Contains(body, `"`+key+`"`) == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("index never had %s = %v: %s", key, want, body)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitIndex(true)

	b.mu.Lock()
	seen := b.seen
	b.mu.Unlock()
	if len(seen) == 0 {
		t.Error("no OpenAPI request reached the backend")
	}
	for _, s := range seen {
		if got := s.header.Values("X-Remote-User"); strings.Join(got, ",") != "system:aggregator" || len(s.header.Values("X-Remote-Group")) != 0 {
			t.Errorf("%s reached the backend as %q groups %q, want system:aggregator and no groups", s.path, got, s.header.Values("X-Remote-Group"))
		}
	}

	// client-go reads the index and the document, as kubectl does.
	hs := httptest.NewServer(e.s.Handler())
	t.Cleanup(hs.Close)
	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: hs.URL})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := openapi3.NewRoot(dc.OpenAPIV3()).GVSpec(schema.GroupVersion{Group: b.group, Version: b.version})
	if err != nil {
		t.Fatalf("client-go GVSpec: %v", err)
	}
	if _, ok := spec.Components.Schemas["com.example.Flunder"]; !ok || spec.Info.Title != "Backend" {
		t.Errorf("client-go read %+v", spec.Info)
	}

	if _, err := e.store(apiServicesResource).Delete(e.ctx, "", a.Name, nil); err != nil {
		t.Fatal(err)
	}
	waitIndex(false)
	if code, _ := e.proxyGet("/openapi/v3/" + key); code != 404 {
		t.Errorf("document after delete: %d", code)
	}
}

// openAPIRecorder is a backend for one group-version that serves its
// discovery (for the availability probe), an OpenAPI v3 index and document
// (and no v2), and records the OpenAPI requests it gets.
type openAPIRecorder struct {
	group, version string
	mu             sync.Mutex
	seen           []struct {
		path   string
		header http.Header
	}
}

func (b *openAPIRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	gv := "apis/" + b.group + "/" + b.version
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/"+gv {
		fmt.Fprintf(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"%s/%s","resources":[]}`, b.group, b.version)
		return
	}
	if !strings.HasPrefix(r.URL.Path, "/openapi/") {
		http.NotFound(w, r) // aggregated discovery at /apis: the legacy documents serve
		return
	}
	b.mu.Lock()
	b.seen = append(b.seen, struct {
		path   string
		header http.Header
	}{r.URL.RequestURI(), r.Header.Clone()})
	b.mu.Unlock()
	switch r.URL.Path {
	case "/openapi/v3":
		fmt.Fprintf(w, `{"paths":{"%s":{"serverRelativeURL":"/openapi/v3/%s?hash=0123ABCD"}}}`, gv, gv)
	case "/openapi/v3/" + gv:
		_, _ = io.WriteString(w, `{"openapi":"3.0.0","info":{"title":"Backend","version":"0.1"},"paths":{},"components":{"schemas":{"com.example.Flunder":{"type":"object"}}}}`)
	default:
		http.NotFound(w, r)
	}
}
