package aggregatortest_test

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

var apiServices = meta.GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}

// TestRegisterBackendCreatesObjects checks every object RegisterBackend
// creates, field by field, with the defaults applied.
func TestRegisterBackendCreatesObjects(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t)
	b := srv.RegisterBackend(t, aggregatortest.BackendOptions{Group: "widgets.example.com", Versions: []string{"v1", "v1beta1"}})

	if b.Service != "widgets-example-com" || b.Namespace != "default" || b.ServerName != "widgets-example-com.default.svc" {
		t.Errorf("service %q namespace %q serverName %q", b.Service, b.Namespace, b.ServerName)
	}
	if want := []string{"v1.widgets.example.com", "v1beta1.widgets.example.com"}; !reflect.DeepEqual(b.APIServices, want) {
		t.Errorf("APIServices %q; want %q", b.APIServices, want)
	}
	port, err := strconv.Atoi(b.URL[strings.LastIndexByte(b.URL, ':')+1:])
	if err != nil || !strings.HasPrefix(b.URL, "https://127.0.0.1:") {
		t.Fatalf("backend URL %q", b.URL)
	}
	ctx := context.Background()
	api := srv.Aggregator().API()
	obj, err := api.Store(meta.GroupResource{Resource: "services"}).Get(ctx, "default", "widgets-example-com")
	if err != nil {
		t.Fatal(err)
	}
	svc := obj.(*core.Service)
	wantPorts := []core.ServicePort{{Name: "https", Protocol: "TCP", Port: 443, TargetPort: core.FromInt(int32(port))}}
	if svc.Spec.Type != "ClusterIP" || !reflect.DeepEqual(svc.Spec.Ports, wantPorts) {
		t.Errorf("service spec %+v; want ClusterIP with ports %+v", svc.Spec, wantPorts)
	}
	obj, err = api.Store(meta.GroupResource{Resource: "endpoints"}).Get(ctx, "default", "widgets-example-com")
	if err != nil {
		t.Fatal(err)
	}
	wantSubsets := []core.EndpointSubset{{
		Addresses: []core.EndpointAddress{{IP: "127.0.0.1"}},
		Ports:     []core.EndpointPort{{Name: "https", Port: int32(port), Protocol: "TCP"}},
	}}
	if got := obj.(*core.Endpoints).Subsets; !reflect.DeepEqual(got, wantSubsets) {
		t.Errorf("endpoints subsets %+v; want %+v", got, wantSubsets)
	}
	for i, name := range b.APIServices {
		obj, err := api.Store(apiServices).Get(ctx, "", name)
		if err != nil {
			t.Fatal(err)
		}
		a := obj.(*apiregistration.APIService)
		p := int32(443)
		want := apiregistration.APIServiceSpec{
			Service: &apiregistration.ServiceReference{Namespace: "default", Name: "widgets-example-com", Port: &p},
			Group:   "widgets.example.com", Version: b.Versions[i], CABundle: b.CAPEM,
			GroupPriorityMinimum: 1000, VersionPriority: 15,
		}
		if !reflect.DeepEqual(a.Spec, want) {
			t.Errorf("%s spec %+v; want %+v", name, a.Spec, want)
		}
		if c := a.GetCondition(apiregistration.Available); c == nil || c.Status != "True" || c.Reason != "Passed" || c.Message != "all checks passed" {
			t.Errorf("%s condition %+v; want True Passed", name, c)
		}
	}
	// Legacy discovery orders the versions kube-aware: v1 is preferred.
	wantResponse(t, "GET /apis/widgets.example.com", get(t, srv.Client(), srv.URL+"/apis/widgets.example.com"), response{http.StatusOK, "application/json",
		`{"kind":"APIGroup","apiVersion":"v1","name":"widgets.example.com","versions":[{"groupVersion":"widgets.example.com/v1","version":"v1"},{"groupVersion":"widgets.example.com/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"widgets.example.com/v1","version":"v1"}}` + "\n"})
}

// TestRequireFrontProxyIdentity checks what a backend behind
// RequireFrontProxy learns about the aggregator's client: the admin
// certificate's user, its group plus system:authenticated, and the
// credential-id extra, exactly.
func TestRequireFrontProxyIdentity(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t, aggregatortest.WithToken("s3cret", "jane", "devs", "qa"))
	rec := &userRecorder{gv: "ident.example.com/v1"}
	srv.RegisterBackend(t, aggregatortest.BackendOptions{
		Handler:  srv.RequireFrontProxy(rec),
		Group:    "ident.example.com",
		Versions: []string{"v1"},
	})
	url := srv.URL + "/apis/ident.example.com/v1/namespaces/default/things/a"

	wantResponse(t, "as admin", get(t, srv.Client(), url), response{http.StatusOK, "application/json",
		`{"kind":"Thing","apiVersion":"ident.example.com/v1","metadata":{"name":"a"}}`})
	admin, err := tls.X509KeyPair(srv.AdminCertPEM(), srv.AdminKeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(admin.Certificate[0])
	wantAdmin := aggregatortest.User{
		Username: "aggsim-admin",
		Groups:   []string{"system:masters", "system:authenticated"},
		Extra:    map[string][]string{"authentication.kubernetes.io/credential-id": {"X509SHA256=" + hex.EncodeToString(sum[:])}},
	}
	if got := rec.last(t); !reflect.DeepEqual(got, wantAdmin) {
		t.Errorf("user %+v; want %+v", got, wantAdmin)
	}

	// A token user, with client-sent identity headers that must not pass.
	cfg := srv.AdminTLSConfig()
	cfg.Certificates = nil
	tokenClient := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
	wantResponse(t, "as jane", get(t, tokenClient, url, "Authorization", "Bearer s3cret", "X-Remote-User", "mallory", "X-Remote-Group", "system:masters"),
		response{http.StatusOK, "application/json", `{"kind":"Thing","apiVersion":"ident.example.com/v1","metadata":{"name":"a"}}`})
	wantJane := aggregatortest.User{Username: "jane", Groups: []string{"devs", "qa", "system:authenticated"}, Extra: map[string][]string{}}
	if got := rec.last(t); !reflect.DeepEqual(got, wantJane) {
		t.Errorf("user %+v; want %+v", got, wantJane)
	}
}

// TestRequireFrontProxyRejects sends requests straight to the backend:
// only the front-proxy client certificate with X-Remote-User gets in.
func TestRequireFrontProxyRejects(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t)
	rec := &userRecorder{gv: "guarded.example.com/v1"}
	b := srv.RegisterBackend(t, aggregatortest.BackendOptions{
		Handler:  srv.RequireFrontProxy(rec),
		Group:    "guarded.example.com",
		Versions: []string{"v1"},
	})
	frontProxy, err := tls.X509KeyPair(srv.FrontProxyClientCertPEM(), srv.FrontProxyClientKeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	admin, err := tls.X509KeyPair(srv.AdminCertPEM(), srv.AdminKeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	// A client certificate with CN front-proxy-client from another CA.
	otherCA, err := certs.NewCA("other-ca", certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kp, err := otherCA.IssueClient(certs.FrontProxyClientCN, nil)
	if err != nil {
		t.Fatal(err)
	}
	impostor, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	unauthorized := response{http.StatusUnauthorized, "application/json",
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}` + "\n"}
	url := b.URL + "/apis/guarded.example.com/v1/namespaces/default/things/a"
	for _, tc := range []struct {
		name   string
		client *http.Client
		header []string
		want   response
	}{
		{"no client certificate", backendClient(b), []string{"X-Remote-User", "bob"}, unauthorized},
		{"admin certificate (cluster CA)", backendClient(b, admin), []string{"X-Remote-User", "bob"}, unauthorized},
		{"front-proxy CN from another CA", backendClient(b, impostor), []string{"X-Remote-User", "bob"}, unauthorized},
		{"front-proxy certificate without X-Remote-User", backendClient(b, frontProxy), nil, unauthorized},
		{"front-proxy certificate with identity", backendClient(b, frontProxy),
			[]string{"X-Remote-User", "bob", "X-Remote-Group", "team-a", "X-Remote-Extra-Scopes%2fone", "x"},
			response{http.StatusOK, "application/json", `{"kind":"Thing","apiVersion":"guarded.example.com/v1","metadata":{"name":"a"}}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantResponse(t, "GET", get(t, tc.client, url, tc.header...), tc.want)
		})
	}
	wantBob := aggregatortest.User{Username: "bob", Groups: []string{"team-a", "system:authenticated"}, Extra: map[string][]string{"scopes/one": {"x"}}}
	if got := rec.last(t); !reflect.DeepEqual(got, wantBob) {
		t.Errorf("user %+v; want %+v", got, wantBob)
	}
}

// registerAddressBackend starts a TLS server of the test's own (httptest)
// with a certificate for <svc>.default.svc and registers it by address.
func registerAddressBackend(t *testing.T, srv *aggregatortest.Server, group string) *aggregatortest.Backend {
	t.Helper()
	service := strings.ReplaceAll(group, ".", "-")
	bc, err := certs.IssueBackend(certs.BackendOptions{Service: service, Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := bc.Serving.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"%s/v1","resources":[]}`, group)
	}))
	ts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	ts.EnableHTTP2 = true
	ts.StartTLS()
	t.Cleanup(ts.Close)
	return srv.RegisterBackend(t, aggregatortest.BackendOptions{
		Address:  ts.Listener.Addr().String(),
		CAPEM:    bc.CA.CertPEM,
		Group:    group,
		Versions: []string{"v1"},
		Service:  service,
	})
}

// TestRegisterAddressBackend registers a server the test started itself.
func TestRegisterAddressBackend(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t)
	b := registerAddressBackend(t, srv, "own.example.com")
	if !strings.HasPrefix(b.URL, "https://127.0.0.1:") || b.ServerName != "own-example-com.default.svc" {
		t.Errorf("URL %q ServerName %q", b.URL, b.ServerName)
	}
	wantResponse(t, "proxied", get(t, srv.Client(), srv.URL+"/apis/own.example.com/v1"), response{http.StatusOK, "application/json",
		`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"own.example.com/v1","resources":[]}`})
}

// TestAddBackendNotAvailableExplains checks the error when the APIService
// never becomes Available: it names the APIService and carries the
// explanation with upstream's reason and the probe's message.
func TestAddBackendNotAvailableExplains(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t)
	_, err := srv.AddBackend(context.Background(), aggregatortest.BackendOptions{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "broken", http.StatusInternalServerError)
		}),
		Group:    "broken.example.com",
		Versions: []string{"v1"},
		Timeout:  2 * time.Second, // bounds the wait; the first probe (1 s resync) must have failed by then, also on a loaded machine,
	})
	if err == nil {
		t.Fatal("AddBackend succeeded for a backend that answers 500")
	}
	msg := err.Error()
	for _, want := range []string{
		"aggregatortest: APIService v1.broken.example.com did not become Available: context deadline exceeded\n",
		"APIService:   v1.broken.example.com\n",
		"Available:    False (FailedDiscoveryCheck)\n",
		": bad status from https://",
		"/apis/broken.example.com/v1: 500\n",
		"Advice:       the backend answers GET /apis/broken.example.com/v1 with 500",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
}

// TestBackendOptionsErrors checks the validation of BackendOptions.
func TestBackendOptionsErrors(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t)
	h := http.NotFoundHandler()
	for _, tc := range []struct {
		name    string
		opts    aggregatortest.BackendOptions
		wantErr string
	}{
		{"no group", aggregatortest.BackendOptions{Versions: []string{"v1"}},
			"aggregatortest: BackendOptions.Group is required"},
		{"no versions", aggregatortest.BackendOptions{Group: "a.example.com"},
			"aggregatortest: BackendOptions.Versions needs at least one version"},
		{"handler and address", aggregatortest.BackendOptions{Group: "a.example.com", Versions: []string{"v1"}, Handler: h, Address: "127.0.0.1:1", CAPEM: []byte("x")},
			"aggregatortest: BackendOptions: give Handler or Address, not both"},
		{"address without CA", aggregatortest.BackendOptions{Group: "a.example.com", Versions: []string{"v1"}, Address: "127.0.0.1:1"},
			"aggregatortest: BackendOptions.CAPEM is required with Address"},
		{"address not loopback", aggregatortest.BackendOptions{Group: "a.example.com", Versions: []string{"v1"}, Address: "192.0.2.1:443", CAPEM: []byte("x")},
			`aggregatortest: BackendOptions.Address: host "192.0.2.1" is not a loopback IP or localhost`},
		{"address without port", aggregatortest.BackendOptions{Group: "a.example.com", Versions: []string{"v1"}, Address: "127.0.0.1", CAPEM: []byte("x")},
			"aggregatortest: BackendOptions.Address: address 127.0.0.1: missing port in address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := srv.AddBackend(context.Background(), tc.opts)
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("error %v; want %q", err, tc.wantErr)
			}
		})
	}
}

// TestServiceNames checks the default Service name derived from the group.
func TestServiceNames(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t)
	for _, tc := range []struct{ group, wantService string }{
		{"Metrics.K8s.IO", "metrics-k8s-io"},
		{"9lives.example.com", "svc-9lives-example-com"},
		{strings.Repeat("a", 60) + ".example.com", strings.Repeat("a", 60) + "-ex"},
		{strings.Repeat("b", 62) + ".example.com", strings.Repeat("b", 62)},
	} {
		b := srv.RegisterBackend(t, aggregatortest.BackendOptions{Group: strings.ToLower(tc.group), Versions: []string{"v1"}})
		if b.Service != tc.wantService {
			t.Errorf("group %q: service %q; want %q", tc.group, b.Service, tc.wantService)
		}
	}
}

// TestBackendCloseStopsServing checks that a closed backend refuses
// connections and its APIService turns unavailable.
func TestBackendCloseStopsServing(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t, aggregatortest.WithAvailabilityCheckInterval(10*time.Millisecond))
	b := srv.RegisterBackend(t, aggregatortest.BackendOptions{Group: "gone.example.com", Versions: []string{"v1"}})
	b.Close()
	b.Close() // idempotent
	b.WaitUnavailable(t)
	resp, err := backendClient(b).Get(b.URL + "/apis/gone.example.com/v1")
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		t.Fatalf("backend still answers after Close: %d", resp.StatusCode)
	}
}
