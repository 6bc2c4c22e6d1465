package demo

// Tests of the backend's OpenAPI documents (openapi.go): what the
// aggregator fetches and kubectl ends up reading. Checked: the documents
// are served byte for byte behind the front-proxy authentication with an
// ETag and 304; the definitions have the sample-apiserver's names and
// their group-version-kind; every POST, PUT and PATCH of flunders and
// fischers has dryRun, fieldManager and fieldValidation; the v3 index lists
// exactly both group-versions by hash, and each document parses as OpenAPI
// 3 with only its own version's kinds.

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"k8s.io/kube-openapi/pkg/spec3"

	"github.com/aggsim/aggsim/registry"
)

func TestOpenAPIServed(t *testing.T) {
	f := newFixture(t)
	as := []string{"X-Remote-User", "system:aggregator", "Accept", "application/json"}

	code, h, body := f.do(t, f.proxy, "GET", "/openapi/v2", "", as...)
	etag := `"` + registry.OpenAPIHash(OpenAPIV2()) + `"`
	if code != 200 || body != string(OpenAPIV2()) || h.Get("Etag") != etag || h.Get("Content-Type") != "application/json" {
		t.Fatalf("/openapi/v2: %d %v", code, h)
	}
	if code, _, body := f.do(t, f.proxy, "GET", "/openapi/v2", "", append(as, "If-None-Match", etag)...); code != 304 || body != "" {
		t.Errorf("/openapi/v2 If-None-Match: %d %q", code, body)
	}
	if code, _, body := f.do(t, f.noCert, "GET", "/openapi/v2", ""); code != 401 || body != unauthorized {
		t.Errorf("/openapi/v2 without credentials: %d %q", code, body)
	}

	code, _, body = f.do(t, f.proxy, "GET", "/openapi/v3", "", as...)
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(body), &index); err != nil || code != 200 {
		t.Fatalf("/openapi/v3: %d %v %s", code, err, body)
	}
	var keys []string
	for k := range index.Paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, " "); got != "apis/wardle.example.com/v1alpha1 apis/wardle.example.com/v1beta1" {
		t.Fatalf("index keys %q", got)
	}
	for _, k := range keys {
		doc, _ := OpenAPIV3(k)
		hash := registry.OpenAPIHash(doc)
		if u := index.Paths[k].ServerRelativeURL; u != "/openapi/v3/"+k+"?hash="+hash {
			t.Errorf("%s: serverRelativeURL %s", k, u)
		}
		code, h, body := f.do(t, f.proxy, "GET", index.Paths[k].ServerRelativeURL, "", as...)
		if code != 200 || body != string(doc) || h.Get("Etag") != `"`+hash+`"` || h.Get("Cache-Control") != "public, immutable" {
			t.Errorf("%s: %d %v", k, code, h)
		}
	}
	if code, _, _ := f.do(t, f.proxy, "GET", "/openapi/v3/apis/nope/v1", "", as...); code != 404 {
		t.Errorf("unknown key: %d", code)
	}
}

func TestOpenAPIV2Document(t *testing.T) {
	if _, err := openapi_v2.ParseDocument(OpenAPIV2()); err != nil {
		t.Fatalf("gnostic cannot parse the document: %v", err)
	}
	var doc struct {
		Info        map[string]string                     `json:"info"`
		Paths       map[string]map[string]json.RawMessage `json:"paths"`
		Definitions map[string]struct {
			GVK []map[string]string `json:"x-kubernetes-group-version-kind"`
		} `json:"definitions"`
		// Parameters are the shared parameters operations refer to
		// (#/parameters/<name>-<hash>, as kube-openapi deduplicates them).
		Parameters map[string]struct{ Name, In string } `json:"parameters"`
	}
	if err := json.Unmarshal(OpenAPIV2(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Info["title"] != "Wardle" || doc.Info["version"] != "0.1" {
		t.Errorf("info %v", doc.Info)
	}
	var wardle []string
	for name, d := range doc.Definitions {
		rest, ok := strings.CutPrefix(name, "io.k8s.sample-apiserver.pkg.apis.wardle.")
		if !ok {
			continue
		}
		wardle = append(wardle, rest)
		parts := strings.Split(rest, ".")
		isKind := !strings.HasSuffix(parts[1], "Spec") && !strings.HasSuffix(parts[1], "Status")
		if isKind && (len(d.GVK) != 1 || d.GVK[0]["group"] != Group || d.GVK[0]["version"] != parts[0] || d.GVK[0]["kind"] != parts[1]) {
			t.Errorf("%s: x-kubernetes-group-version-kind %v", name, d.GVK)
		}
	}
	sort.Strings(wardle)
	if got, want := strings.Join(wardle, " "), "v1alpha1.Fischer v1alpha1.FischerList v1alpha1.Flunder v1alpha1.FlunderList v1alpha1.FlunderSpec v1alpha1.FlunderStatus v1beta1.Flunder v1beta1.FlunderList v1beta1.FlunderSpec v1beta1.FlunderStatus"; got != want {
		t.Errorf("wardle definitions\n%s\nwant\n%s", got, want)
	}
	items := []string{
		"/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders",
		"/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders/{name}",
		"/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders/{name}/status",
		"/apis/wardle.example.com/v1beta1/namespaces/{namespace}/flunders/{name}",
		"/apis/wardle.example.com/v1alpha1/fischers",
		"/apis/wardle.example.com/v1alpha1/fischers/{name}",
	}
	for _, p := range items {
		ops, ok := doc.Paths[p]
		if !ok {
			t.Errorf("path %s missing", p)
			continue
		}
		for _, verb := range []string{"post", "put", "patch"} {
			raw, ok := ops[verb]
			if !ok {
				continue
			}
			var op struct {
				Parameters []struct {
					Name, In string
					Ref      string `json:"$ref"`
				} `json:"parameters"`
			}
			_ = json.Unmarshal(raw, &op)
			var query []string
			for _, prm := range op.Parameters {
				if name, ok := strings.CutPrefix(prm.Ref, "#/parameters/"); ok {
					shared := doc.Parameters[name]
					prm.Name, prm.In = shared.Name, shared.In
				}
				if prm.In == "query" {
					query = append(query, prm.Name)
				}
			}
			q := strings.Join(query, ",")
			for _, want := range []string{"dryRun", "fieldManager", "fieldValidation"} {
				if !strings.Contains(q, want) {
					t.Errorf("%s %s: query parameters %s lack %s", strings.ToUpper(verb), p, q, want)
				}
			}
		}
	}
}

func TestOpenAPIV3Documents(t *testing.T) {
	for _, tc := range []struct{ version, kinds string }{
		{V1alpha1, "Fischer FischerList Flunder FlunderList FlunderSpec FlunderStatus"},
		{V1beta1, "Flunder FlunderList FlunderSpec FlunderStatus"},
	} {
		b, ok := OpenAPIV3("apis/" + Group + "/" + tc.version)
		if !ok {
			t.Fatalf("%s: no document", tc.version)
		}
		var o spec3.OpenAPI
		if err := json.Unmarshal(b, &o); err != nil {
			t.Fatalf("%s: %v", tc.version, err)
		}
		var kinds []string
		for name := range o.Components.Schemas {
			if k, ok := strings.CutPrefix(name, "io.k8s.sample-apiserver.pkg.apis.wardle."+tc.version+"."); ok {
				kinds = append(kinds, k)
			} else if strings.HasPrefix(name, "io.k8s.sample-apiserver.") {
				t.Errorf("%s: schema of another version %s", tc.version, name)
			}
		}
		sort.Strings(kinds)
		if got := strings.Join(kinds, " "); got != tc.kinds {
			t.Errorf("%s: kinds %q, want %q", tc.version, got, tc.kinds)
		}
		patch := o.Paths.Paths["/apis/"+Group+"/"+tc.version+"/namespaces/{namespace}/flunders/{name}"].Patch
		found := false
		for _, p := range patch.Parameters {
			found = found || p.Name == "fieldValidation"
		}
		if !found {
			t.Errorf("%s: PATCH flunder lacks fieldValidation", tc.version)
		}
	}
}
