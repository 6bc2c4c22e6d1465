package discovery

import (
	"net/http"
	"strings"
	"testing"
)

// TestNegotiation: which document each Accept header gets, at /apis and
// /apis/ (reference §2.2, §2.3, §2.5; capture a-discovery).
func TestNegotiation(t *testing.T) {
	const (
		legacyJSON = "application/json"
		legacyYAML = "application/yaml"
		aggJSON    = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
		aggYAML    = "application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
		notAcc     = "406"
	)
	tests := []struct {
		name, path, accept string
		want               string // Content-Type, or "406"
	}{
		{"no accept", "/apis", "", legacyJSON},
		{"plain json", "/apis", "application/json", legacyJSON},
		{"any", "/apis", "*/*", legacyJSON},
		{"application any", "/apis", "application/*", legacyJSON},
		{"yaml", "/apis", "application/yaml", legacyYAML},
		{"html", "/apis", "text/html", notAcc},
		{"table", "/apis", "application/json;as=Table;v=v1;g=meta.k8s.io", notAcc},
		{"protobuf alone (not written by aggsim)", "/apis", "application/vnd.kubernetes.protobuf", notAcc},
		{"protobuf then json", "/apis", "application/vnd.kubernetes.protobuf,application/json", legacyJSON},
		{"v2", "/apis", aggJSON, aggJSON},
		{"v2 params reordered", "/apis", "application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io", aggJSON},
		{"v2 with spaces", "/apis", "application/json; g=apidiscovery.k8s.io; v=v2; as=APIGroupDiscoveryList", aggJSON},
		{"legacy listed first still aggregated", "/apis", "application/json," + aggJSON, aggJSON},
		{"client-go", "/apis", aggJSON + ",application/json", aggJSON},
		{"nopeer profile", "/apis", aggJSON + ";profile=nopeer,application/json", aggJSON},
		{"application wildcard v2", "/apis", "application/*;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", aggJSON},
		{"v2 q=0 still aggregated", "/apis", aggJSON + ";q=0", aggJSON},
		{"yaml v2", "/apis", aggYAML, aggYAML},
		{"v2beta1 alone", "/apis", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", notAcc},
		{"v2beta1 then json", "/apis", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json", legacyJSON},
		{"wrong kind", "/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscovery", notAcc},
		{"trailing slash is legacy only", "/apis/", aggJSON, notAcc},
		{"trailing slash legacy", "/apis/", "application/json", legacyJSON},
		{"trailing slash client-go", "/apis/", aggJSON + ",application/json", legacyJSON},
		{"group ignores aggregated", "/apis/apiregistration.k8s.io", aggJSON + ",application/json", legacyJSON},
		{"group aggregated only", "/apis/apiregistration.k8s.io", aggJSON, notAcc},
		{"/api aggregated", "/api", aggJSON, aggJSON},
		{"/api legacy", "/api", "application/json", legacyJSON},
		{"/api html", "/api", "text/html", notAcc},
	}
	m, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := get(m, tt.path, "Accept", tt.accept)
			got := rec.Header().Get("Content-Type")
			if rec.Code == http.StatusNotAcceptable {
				got = notAcc
			} else if rec.Code != http.StatusOK {
				t.Fatalf("code %d", rec.Code)
			}
			if got != tt.want {
				t.Errorf("Accept %q at %s: got %s, want %s", tt.accept, tt.path, got, tt.want)
			}
		})
	}
}

func TestV2Beta1Option(t *testing.T) {
	m, err := New(Options{ServeV2Beta1: true})
	if err != nil {
		t.Fatal(err)
	}
	v2 := get(m, "/apis", "Accept", aggAccept)
	rec := get(m, "/apis", "Accept", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList")
	if ct := rec.Header().Get("Content-Type"); ct != "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList" {
		t.Errorf("Content-Type = %s", ct)
	}
	want := strings.Replace(v2.Body.String(), `"apidiscovery.k8s.io/v2"`, `"apidiscovery.k8s.io/v2beta1"`, 1)
	if rec.Body.String() != want {
		t.Errorf("v2beta1 body\n got %s\nwant %s", rec.Body.String(), want)
	}
	if rec.Header().Get("Etag") != v2.Header().Get("Etag") {
		t.Errorf("v2beta1 ETag differs from v2")
	}
}

// TestPretty: upstream indents JSON for ?pretty=true and for curl, Wget and
// browser User-Agents; YAML for application/yaml.
func TestPretty(t *testing.T) {
	m, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	const prettyGroup = "{\n  \"kind\": \"APIGroup\",\n  \"apiVersion\": \"v1\",\n  \"name\": \"apiregistration.k8s.io\",\n  \"versions\": [\n    {\n      \"groupVersion\": \"apiregistration.k8s.io/v1\",\n      \"version\": \"v1\"\n    }\n  ],\n  \"preferredVersion\": {\n    \"groupVersion\": \"apiregistration.k8s.io/v1\",\n    \"version\": \"v1\"\n  }\n}"
	const compactGroup = `{"kind":"APIGroup","apiVersion":"v1","name":"apiregistration.k8s.io","versions":[{"groupVersion":"apiregistration.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apiregistration.k8s.io/v1","version":"v1"}}` + "\n"
	const yamlGroup = "apiVersion: v1\nkind: APIGroup\nname: apiregistration.k8s.io\npreferredVersion:\n  groupVersion: apiregistration.k8s.io/v1\n  version: v1\nversions:\n- groupVersion: apiregistration.k8s.io/v1\n  version: v1\n"
	tests := []struct {
		path, ua, accept, want string
	}{
		{"/apis/apiregistration.k8s.io", "", "", compactGroup},
		{"/apis/apiregistration.k8s.io", "kubectl/v1.33.1", "", compactGroup},
		{"/apis/apiregistration.k8s.io?pretty=true", "", "", prettyGroup},
		{"/apis/apiregistration.k8s.io?pretty=false", "curl/8", "", compactGroup},
		{"/apis/apiregistration.k8s.io", "curl/8.5.0", "", prettyGroup},
		{"/apis/apiregistration.k8s.io", "Wget/1.21", "", prettyGroup},
		{"/apis/apiregistration.k8s.io", "Mozilla/5.0 (X11)", "", prettyGroup},
		{"/apis/apiregistration.k8s.io", "", "application/json;pretty=1", prettyGroup},
		{"/apis/apiregistration.k8s.io", "", "application/yaml", yamlGroup},
	}
	for _, tt := range tests {
		rec := get(m, tt.path, "User-Agent", tt.ua, "Accept", tt.accept)
		if rec.Body.String() != tt.want {
			t.Errorf("%s ua=%q accept=%q\n got %q\nwant %q", tt.path, tt.ua, tt.accept, rec.Body.String(), tt.want)
		}
	}
}

// TestAPI: /api answers APIVersions with the request's address (or
// ExternalAddress), and aggregated discovery of the core group.
func TestAPI(t *testing.T) {
	core := []byte(`{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["get","list"],"shortNames":["ns"]},{"name":"namespaces/status","singularName":"","namespaced":false,"kind":"Namespace","verbs":["get"]}]}`)
	m, err := New(Options{CoreResources: core})
	if err != nil {
		t.Fatal(err)
	}
	req := get(m, "/api", "Accept", "application/json")
	want := `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"example.com"}]}` + "\n"
	if req.Body.String() != want {
		t.Errorf("/api\n got %s\nwant %s", req.Body.String(), want)
	}
	assertHeaders(t, req, http.StatusOK, map[string]string{"Content-Type": "application/json", "Cache-Control": "no-cache, private"})
	if got := get(m, "/api", "User-Agent", "curl/8").Body.String(); got != "{\n  \"kind\": \"APIVersions\",\n  \"versions\": [\n    \"v1\"\n  ],\n  \"serverAddressByClientCIDRs\": [\n    {\n      \"clientCIDR\": \"0.0.0.0/0\",\n      \"serverAddress\": \"example.com\"\n    }\n  ]\n}" {
		t.Errorf("/api pretty: %q", got)
	}
	if got := get(m, "/api", "Accept", "application/yaml").Body.String(); got != "kind: APIVersions\nserverAddressByClientCIDRs:\n- clientCIDR: 0.0.0.0/0\n  serverAddress: example.com\nversions:\n- v1\n" {
		t.Errorf("/api yaml: %q", got)
	}
	agg := get(m, "/api", "Accept", aggAccept)
	wantAgg := `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"creationTimestamp":null},"versions":[{"version":"v1","resources":[{"resource":"namespaces","responseKind":{"group":"","version":"","kind":"Namespace"},"scope":"Cluster","singularResource":"namespace","verbs":["get","list"],"shortNames":["ns"],"subresources":[{"subresource":"status","responseKind":{"group":"","version":"","kind":"Namespace"},"verbs":["get"]}]}],"freshness":"Current"}]}]}` + "\n"
	if agg.Body.String() != wantAgg {
		t.Errorf("/api aggregated\n got %s\nwant %s", agg.Body.String(), wantAgg)
	}
	if agg.Header().Get("Etag") != etagOf(t, agg.Body.Bytes()) {
		t.Errorf("/api ETag mismatch")
	}

	m2, err := New(Options{ExternalAddress: "10.0.0.1:6443"})
	if err != nil {
		t.Fatal(err)
	}
	if got := get(m2, "/api").Body.String(); !strings.Contains(got, `"serverAddress":"10.0.0.1:6443"`) {
		t.Errorf("ExternalAddress not used: %s", got)
	}
}
