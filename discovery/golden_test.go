package discovery

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// Golden tests: aggsim's documents for the APIService sets of
// ../testdata/discovery (copies of ../shared/testdata/kube-1.33 captures)
// must equal what kube-apiserver 1.33 answered, built-in groups removed
// (see filterGroups).

func TestGoldenADiscovery(t *testing.T) {
	svcs := loadAPIServices(t, "a-discovery", "apiservices.yaml")
	f := newFakeBackends()
	f.set("api", 8443, legacyBackend(t))
	m := newTestManager(t, f, svcs)

	t.Run("legacy /apis", func(t *testing.T) {
		rec := get(m, "/apis", "Accept", "application/json")
		assertHeaders(t, rec, http.StatusOK, map[string]string{
			"Content-Type":  "application/json",
			"Cache-Control": "no-cache, private",
		})
		if !bytes.HasSuffix(rec.Body.Bytes(), []byte("}\n")) {
			t.Errorf("compact body must end with a newline: %q", tail(rec.Body.Bytes()))
		}
		assertSameGroups(t, rec.Body.Bytes(), readFile(t, "a-discovery", "apis.legacy.json"), svcs)
	})

	t.Run("/apis/<group>", func(t *testing.T) {
		for _, g := range []string{"wardle.example.com", "order.example.com", "vp.example.com"} {
			want := readFile(t, "a-discovery", "apis."+g+".json")
			// curl's User-Agent gets upstream's indented JSON (no trailing
			// newline), which is byte-for-byte the re-indented capture.
			rec := get(m, "/apis/"+g, "Accept", "application/json", "User-Agent", "curl/8.5.0")
			assertHeaders(t, rec, http.StatusOK, map[string]string{"Content-Type": "application/json", "Cache-Control": "no-cache, private"})
			if got := rec.Body.String(); got != strings.TrimSuffix(string(want), "\n") {
				t.Errorf("/apis/%s pretty\n got %s\nwant %s", g, got, want)
			}
			// kubectl gets compact JSON with a newline.
			var compact bytes.Buffer
			if err := json.Compact(&compact, want); err != nil {
				t.Fatal(err)
			}
			if got := get(m, "/apis/"+g).Body.String(); got != compact.String()+"\n" {
				t.Errorf("/apis/%s compact\n got %s\nwant %s", g, got, compact.String())
			}
		}
		// Capture a-discovery/apis.wardle.example.com.headers.txt: content-length 368.
		if n := get(m, "/apis/wardle.example.com", "User-Agent", "curl/8.5.0").Body.Len(); n != 368 {
			t.Errorf("pretty /apis/wardle.example.com is %d bytes, capture says 368", n)
		}
	})

	t.Run("aggregated /apis", func(t *testing.T) {
		rec := get(m, "/apis", "Accept", aggAccept)
		etag := rec.Header().Get("Etag")
		assertHeaders(t, rec, http.StatusOK, map[string]string{
			"Content-Type":  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
			"Cache-Control": "public",
			"Vary":          "Accept",
			"Etag":          etag,
		})
		if !regexp.MustCompile(`^"[0-9A-F]{128}"$`).MatchString(etag) {
			t.Errorf("ETag %q is not a quoted upper-case SHA-512", etag)
		}
		body := rec.Body.Bytes()
		assertSameGroups(t, body, readFile(t, "a-discovery", "apis.aggregated.v2.json"), svcs)
		// The ETag covers the list without kind and apiVersion.
		if want := etagOf(t, body); etag != want {
			t.Errorf("ETag = %s, want %s", etag, want)
		}

		// If-None-Match with the ETag: 304, no body, same ETag/Vary/Cache-Control.
		rec = get(m, "/apis", "Accept", aggAccept, "If-None-Match", etag)
		assertHeaders(t, rec, http.StatusNotModified, map[string]string{"Cache-Control": "public", "Vary": "Accept", "Etag": etag})
		if rec.Body.Len() != 0 {
			t.Errorf("304 has a body: %q", rec.Body.String())
		}
		// A different tag, or a list, is not a match (exact compare, as upstream).
		for _, inm := range []string{`"other"`, etag + `, "x"`, "W/" + etag} {
			if rec := get(m, "/apis", "Accept", aggAccept, "If-None-Match", inm); rec.Code != http.StatusOK {
				t.Errorf("If-None-Match %q: code %d, want 200", inm, rec.Code)
			}
		}
		// kubectl's Accept (capture apis.kubectl-accept.headers.txt) gets the same document.
		kubectl := "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
		if rec := get(m, "/apis", "Accept", kubectl); rec.Header().Get("Etag") != etag || !bytes.Equal(rec.Body.Bytes(), body) {
			t.Errorf("kubectl Accept: got a different document")
		}
	})

	t.Run("v2beta1 is 406", func(t *testing.T) {
		rec := get(m, "/apis", "Accept", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList")
		assertHeaders(t, rec, http.StatusNotAcceptable, map[string]string{"Content-Type": "application/json", "Cache-Control": "no-cache, private"})
		want := strings.TrimSuffix(string(readFile(t, "a-discovery", "apis.aggregated.v2beta1.json")), "\n")
		if rec.Body.String() != want {
			t.Errorf("406 body\n got %s\nwant %s", rec.Body.String(), want)
		}
		if rec.Body.Len() != 262 { // capture: content-length 262
			t.Errorf("406 body is %d bytes, capture says 262", rec.Body.Len())
		}
	})

	t.Run("unknown group", func(t *testing.T) {
		rec := get(m, "/apis/nosuch.example.com")
		assertHeaders(t, rec, http.StatusNotFound, map[string]string{"Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff"})
		if rec.Body.String() != "404 page not found\n" {
			t.Errorf("404 body %q", rec.Body.String())
		}
	})
}

// TestETagOfCapture re-encodes the complete captured aggregated document
// with this package's wire types and checks that the captured ETag is the
// SHA-512 of that encoding without kind and apiVersion: the wire types
// produce kube-apiserver's exact bytes.
func TestETagOfCapture(t *testing.T) {
	var list APIGroupDiscoveryList
	if err := json.Unmarshal(readFile(t, "a-discovery", "apis.aggregated.v2.json"), &list); err != nil {
		t.Fatal(err)
	}
	list.Kind, list.APIVersion = "", ""
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum512(b)
	got := `"` + strings.ToUpper(hex.EncodeToString(sum[:])) + `"`
	headers := string(readFile(t, "a-discovery", "apis.aggregated.v2.headers.txt"))
	want := regexp.MustCompile(`(?m)^etag: (".*")\s*$`).FindStringSubmatch(headers)
	if want == nil || got != want[1] {
		t.Errorf("ETag of re-encoded capture = %s, captured %v", got, want)
	}
}

// TestHandEncodingMatchesEncodingJSON: the hand-written encoders produce the
// bytes encoding/json produces for the same documents.
func TestHandEncodingMatchesEncodingJSON(t *testing.T) {
	svcs := loadAPIServices(t, "a-discovery", "apiservices.yaml")
	svcs = append(svcs, APIService{Name: "v1.we<ird>&.example", Group: "we<ird>&.example", Version: "v1", GroupPriorityMinimum: 7, Available: true, Resources: []byte(`{"groupVersion":"x","resources":[{"name":"a<b","kind":"K","namespaced":true,"verbs":[]}]}`)})
	f := newFakeBackends()
	f.set("api", 8443, legacyBackend(t))
	m := newTestManager(t, f, svcs)
	check := func(path, accept string, v any) {
		body := get(m, path, "Accept", accept).Body.Bytes()
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(body) != string(want)+"\n" {
			t.Errorf("%s (%s):\n hand %s\n json %s", path, accept, body, want)
		}
	}
	check("/apis", "application/json", &APIGroupList{})
	check("/apis/wardle.example.com", "application/json", &APIGroup{})
	check("/apis/we<ird>&.example", "application/json", &APIGroup{})
	check("/apis", aggAccept, &APIGroupDiscoveryList{})
	check("/api", aggAccept, &APIGroupDiscoveryList{})
	check("/api", "application/json", &APIVersions{})
}

// TestGoldenBStatus: unavailable APIServices stay in legacy /apis; in
// aggregated discovery their version has no resources and is Stale, and so
// is every backend whose fetch fails even though it is Available (wrong CA,
// wrong name, no caBundle, ExternalName IP).
func TestGoldenBStatus(t *testing.T) {
	svcs := loadAPIServices(t, "b-status", "apiservices.yaml")
	unavailable := map[string]bool{}
	for _, line := range strings.Split(string(readFile(t, "b-status", "summary.txt")), "\n") {
		if fields := strings.Fields(line); len(fields) > 1 && fields[1] == "False" {
			unavailable[fields[0]] = true
		}
	}
	for i := range svcs {
		svcs[i].Available = !unavailable[svcs[i].Name]
	}
	f := newFakeBackends()
	// Only the flaky (8445) and insecure (8444 with insecureSkipTLSVerify)
	// backends answered discovery; the others fail TLS or are unreachable.
	f.set("api", 8445, legacyBackend(t))
	broken := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
	})
	f.set("api", 8443, broken)
	f.set("api-ip", 8443, broken)
	f.set("api", 8446, broken)
	fetcher := FetcherFunc(func(ctx context.Context, svc APIService, req *http.Request) (*http.Response, error) {
		if svc.Service.Port == 8444 && !svc.InsecureSkipTLSVerify {
			return nil, errors.New("tls: failed to verify certificate: x509: certificate signed by unknown authority")
		}
		if svc.Service.Port == 8444 {
			rec := httptest.NewRecorder()
			legacyBackend(t).ServeHTTP(rec, req)
			return rec.Result(), nil
		}
		return f.Do(ctx, svc, req)
	})
	m := newTestManager(t, fetcher, svcs)
	assertSameGroups(t, get(m, "/apis").Body.Bytes(), readFile(t, "b-status", "discovery-legacy-with-unavailable.json"), svcs)
	assertSameGroups(t, get(m, "/apis", "Accept", aggAccept).Body.Bytes(), readFile(t, "b-status", "discovery-aggregated-with-unavailable.json"), svcs)
	// Unavailable backends are not asked at all.
	if reqs := f.requests("nosuchsvc", 8443); len(reqs) != 0 {
		t.Errorf("unavailable backend was fetched: %v", reqs)
	}
}

// TestGoldenHBackendAggregated: backends that serve aggregated discovery
// (v2 and v2beta1) are used directly, only for registered group/versions; a
// registered version missing from the backend's document is Current with no
// resources; a backend answering /apis with 404 falls back to
// /apis/<g>/<v>. The requests each backend receives are those captured.
func TestGoldenHBackendAggregated(t *testing.T) {
	svcs := loadAPIServices(t, "h-backend-aggregated", "apiservices.yaml")
	f := newFakeBackends()
	f.set("api", 8470, aggregatedBackend(readFile(t, "h-backend-aggregated", "backend-aggd.apis.json"), "v2", `"backend-agg-etag-1"`))
	f.set("api", 8471, aggregatedBackend(readFile(t, "h-backend-aggregated", "backend-aggb.apis.json"), "v2beta1", `"backend-agg-etag-1"`))
	f.set("api", 8472, legacyBackend(t))
	m := newTestManager(t, f, svcs)
	assertSameGroups(t, get(m, "/apis", "Accept", aggAccept).Body.Bytes(), readFile(t, "h-backend-aggregated", "merged-aggregated-discovery.json"), svcs)
	assertSameGroups(t, get(m, "/apis").Body.Bytes(), readFile(t, "h-backend-aggregated", "merged-legacy-discovery.json"), svcs)
	etag := get(m, "/apis", "Accept", aggAccept).Header().Get("Etag")

	m.Sync(context.Background()) // the periodic refresh: If-None-Match, 304
	if got := get(m, "/apis", "Accept", aggAccept).Header().Get("Etag"); got != etag {
		t.Errorf("ETag changed after a 304 refresh: %s -> %s", etag, got)
	}
	masters := []string{"system:masters"}
	want := map[int32][]recordedRequest{
		8470: {
			{Path: "/apis", Accept: DiscoveryAccept, User: DiscoveryUser, Groups: masters},
			{Path: "/apis", Accept: DiscoveryAccept, IfNoneMatch: `"backend-agg-etag-1"`, User: DiscoveryUser, Groups: masters},
		},
		8471: {
			{Path: "/apis", Accept: DiscoveryAccept, User: DiscoveryUser, Groups: masters},
			{Path: "/apis", Accept: DiscoveryAccept, IfNoneMatch: `"backend-agg-etag-1"`, User: DiscoveryUser, Groups: masters},
		},
		8472: {
			{Path: "/apis", Accept: DiscoveryAccept, User: DiscoveryUser, Groups: masters},
			{Path: "/apis/l404.example.com/v1", Accept: "application/json", User: DiscoveryUser},
			{Path: "/apis", Accept: DiscoveryAccept, User: DiscoveryUser, Groups: masters},
			{Path: "/apis/l404.example.com/v1", Accept: "application/json", User: DiscoveryUser},
		},
	}
	for port, w := range want {
		got := f.requests("api", port)
		if indent(t, got) != indent(t, w) {
			t.Errorf("backend %d received\n%v\nwant\n%v", port, got, w)
		}
	}
}

// TestGoldenILocalCustom: a Local APIService of a group aggsim does not
// serve (no service, no resources) is in legacy /apis and /apis/<g> but
// absent from aggregated /apis.
func TestGoldenILocalCustom(t *testing.T) {
	svcs := []APIService{{Name: "v1.localx.example.com", Group: "localx.example.com", Version: "v1", GroupPriorityMinimum: 1000, VersionPriority: 10, Available: true}}
	m := newTestManager(t, nil, svcs)
	legacy := decodeMap(t, get(m, "/apis").Body.Bytes())
	filterGroups(legacy, map[string]bool{"localx.example.com": true})
	if got, want := indent(t, legacy["groups"]), indent(t, decodeAny(t, readFile(t, "i-lifecycle", "local-custom.legacy-entry.json"))); got != want {
		t.Errorf("legacy entry\n got %s\nwant %s", got, want)
	}
	agg := decodeMap(t, get(m, "/apis", "Accept", aggAccept).Body.Bytes())
	if names := groupNames(agg); strings.Join(names, ",") != apiRegistrationGroup {
		t.Errorf("aggregated groups = %v, want only %s", names, apiRegistrationGroup)
	}
	client := string(readFile(t, "i-lifecycle", "local-custom_apis_localx.example.com.client.txt"))
	wantBody := client[strings.Index(client, "\n{")+1:]
	if got := get(m, "/apis/localx.example.com", "User-Agent", "curl/8.5.0").Body.String(); got != wantBody {
		t.Errorf("/apis/localx.example.com\n got %q\nwant %q", got, wantBody)
	}
}

func decodeAny(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// etagOf computes the expected ETag of a compact aggregated body.
func etagOf(t testing.TB, body []byte) string {
	t.Helper()
	var list APIGroupDiscoveryList
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	list.Kind, list.APIVersion = "", ""
	b, _ := json.Marshal(list)
	sum := sha512.Sum512(b)
	return `"` + strings.ToUpper(hex.EncodeToString(sum[:])) + `"`
}

// assertHeaders checks the status code and that the response header map
// is exactly want.
func assertHeaders(t *testing.T, rec *httptest.ResponseRecorder, code int, want map[string]string) {
	t.Helper()
	if rec.Code != code {
		t.Errorf("code = %d, want %d", rec.Code, code)
	}
	got := map[string]string{}
	for k, v := range rec.Header() {
		got[k] = strings.Join(v, ",")
	}
	if indent(t, got) != indent(t, want) {
		t.Errorf("headers\n got %v\nwant %v", got, want)
	}
}

func tail(b []byte) []byte {
	if len(b) > 20 {
		return b[len(b)-20:]
	}
	return b
}
