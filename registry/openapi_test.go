package registry

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	"k8s.io/kube-openapi/pkg/spec3"
)

func gvkMatches(ext any, info ResourceInfo) bool {
	b, _ := json.Marshal(ext)
	var one map[string]string
	if json.Unmarshal(b, &one) == nil {
		return one["group"] == info.Group && one["version"] == info.Version && one["kind"] == info.Kind
	}
	var many []map[string]string
	if json.Unmarshal(b, &many) == nil {
		for _, m := range many {
			if m["group"] == info.Group && m["version"] == info.Version && m["kind"] == info.Kind {
				return true
			}
		}
	}
	return false
}

// TestOpenAPIV3 parses the index and every document the way client-go
// does, checks the hashes, that each Kind has a schema with its
// x-kubernetes-group-version-kind, and that every PATCH operation of the
// kind lists fieldValidation (kubectl's server-side validation probe).
func TestOpenAPIV3(t *testing.T) {
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPIV3Index(OpenAPIV3IndexEntry{Path: "apis/wardle.example.com/v1alpha1", ServerRelativeURL: "/openapi/v3/apis/wardle.example.com/v1alpha1?hash=AB"}), &index); err != nil {
		t.Fatal(err)
	}
	// aggsim's own documents (api, api/v1, apis, and apis/<group> and
	// apis/<group>/v1 of apiregistration, admissionregistration,
	// authentication, authorization, coordination, flowcontrol, rbac and
	// apiextensions, and version) plus the extra entry.
	if len(index.Paths) != 21 || index.Paths["apis/wardle.example.com/v1alpha1"].ServerRelativeURL != "/openapi/v3/apis/wardle.example.com/v1alpha1?hash=AB" {
		t.Fatalf("index %+v", index)
	}
	for _, s := range Strategies(nil) {
		info := s.Info()
		gv := gvPath(info)
		doc, ok := OpenAPIV3GroupVersion(gv)
		if !ok {
			t.Fatalf("no document for %s", gv)
		}
		hash := OpenAPIHash(doc)
		if len(hash) != 128 || strings.ToUpper(hash) != hash || index.Paths[gv].ServerRelativeURL != "/openapi/v3/"+gv+"?hash="+hash {
			t.Fatalf("%s: index entry %q, hash %s", gv, index.Paths[gv].ServerRelativeURL, hash)
		}
		if h, _ := OpenAPIV3Hash("/" + gv); h != hash {
			t.Fatalf("OpenAPIV3Hash %s", h)
		}
		var o spec3.OpenAPI
		if err := json.Unmarshal(doc, &o); err != nil {
			t.Fatalf("%s: %v", gv, err)
		}
		found := false
		for name, sch := range o.Components.Schemas {
			if gvkMatches(sch.Extensions["x-kubernetes-group-version-kind"], info) {
				found = true
				if name != definitionName(Strategies(nil), info, info.Kind) {
					t.Errorf("%s: kind schema named %s", info.Kind, name)
				}
			}
		}
		if !found {
			t.Errorf("%s: no schema with its GVK", info.Kind)
		}
		patches := 0
		for p, item := range o.Paths.Paths {
			op := item.Patch
			if op == nil || !gvkMatches(op.Extensions["x-kubernetes-group-version-kind"], info) {
				continue
			}
			patches++
			has := false
			for _, prm := range op.Parameters {
				if prm.Name == "fieldValidation" && prm.In == "query" {
					has = true
				}
			}
			if !has {
				t.Errorf("%s PATCH %s lacks fieldValidation", info.Kind, p)
			}
		}
		if patches == 0 {
			t.Errorf("%s: no PATCH operation", info.Kind)
		}
	}
	if _, ok := OpenAPIV3GroupVersion("apis/nope/v1"); ok {
		t.Fatal("unknown group-version found")
	}
	// Patch metadata kubectl apply reads.
	doc, _ := OpenAPIV3GroupVersion("apis/apiregistration.k8s.io/v1")
	var o spec3.OpenAPI
	_ = json.Unmarshal(doc, &o)
	cond := o.Components.Schemas["io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceStatus"].Properties["conditions"]
	if cond.Extensions["x-kubernetes-patch-merge-key"] != "type" || cond.Extensions["x-kubernetes-patch-strategy"] != "merge" {
		t.Fatalf("conditions extensions %v", cond.Extensions)
	}
	if ca := o.Components.Schemas["io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceSpec"].Properties["caBundle"]; ca.Format != "byte" {
		t.Fatalf("caBundle format %q", ca.Format)
	}
}

// TestOpenAPIV2 parses the swagger document with gnostic (as kubectl's
// v2 fallback does) and runs the same GVK and fieldValidation checks.
func TestOpenAPIV2(t *testing.T) {
	doc, err := openapi_v2.ParseDocument(OpenAPIV2())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range Strategies(nil) {
		info := s.Info()
		found := false
		for _, d := range doc.GetDefinitions().GetAdditionalProperties() {
			for _, ext := range d.GetValue().GetVendorExtension() {
				if ext.GetName() == "x-kubernetes-group-version-kind" && strings.Contains(ext.GetValue().GetYaml(), "kind: "+info.Kind+"\n") &&
					strings.Contains(ext.GetValue().GetYaml(), "group: \""+info.Group+"\"") == (info.Group == "") {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("%s: no definition with its GVK", info.Kind)
		}
		patches := 0
		for _, p := range doc.GetPaths().GetPath() {
			op := p.GetValue().GetPatch()
			if op == nil {
				continue
			}
			isKind := false
			for _, ext := range op.GetVendorExtension() {
				if ext.GetName() == "x-kubernetes-group-version-kind" && strings.Contains(ext.GetValue().GetYaml(), "kind: "+info.Kind+"\n") &&
					strings.Contains(ext.GetValue().GetYaml(), "version: "+info.Version) && strings.Contains(p.GetName(), "/"+info.Resource+"/") {
					isKind = true
				}
			}
			if !isKind {
				continue
			}
			patches++
			has := false
			for _, prm := range op.GetParameters() {
				if prm.GetParameter().GetNonBodyParameter().GetQueryParameterSubSchema().GetName() == "fieldValidation" {
					has = true
				}
			}
			if !has {
				t.Errorf("%s PATCH %s lacks fieldValidation", info.Kind, p.GetName())
			}
		}
		if patches == 0 {
			t.Errorf("%s: no PATCH operation", info.Kind)
		}
	}
}

// TestOpenAPIKubectlExplain serves discovery and /openapi/v3 from a
// loopback test server and runs the real kubectl explain against it.
func TestOpenAPIKubectlExplain(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not on PATH")
	}
	mux := http.NewServeMux()
	writeJSON := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	resources := func(group string) []any {
		var out []any
		for _, s := range Strategies(nil) {
			i := s.Info()
			if i.Group != group {
				continue
			}
			out = append(out, map[string]any{"name": i.Resource, "singularName": i.Singular, "namespaced": i.Namespaced, "kind": i.Kind, "verbs": i.Verbs, "shortNames": i.ShortNames, "categories": i.Categories})
		}
		return out
	}
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"kind": "APIVersions", "versions": []string{"v1"}, "serverAddressByClientCIDRs": []any{}})
	})
	mux.HandleFunc("/apis", func(w http.ResponseWriter, r *http.Request) {
		gv := map[string]string{"groupVersion": "apiregistration.k8s.io/v1", "version": "v1"}
		writeJSON(w, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": []any{map[string]any{"name": "apiregistration.k8s.io", "versions": []any{gv}, "preferredVersion": gv}}})
	})
	mux.HandleFunc("/api/v1", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"kind": "APIResourceList", "groupVersion": "v1", "resources": resources("")})
	})
	mux.HandleFunc("/apis/apiregistration.k8s.io/v1", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "apiregistration.k8s.io/v1", "resources": resources(apiregistration.GroupAPIRegistration)})
	})
	// kubectl 1.27 explains from /openapi/v2 in protobuf; the test
	// converts the JSON document with gnostic as a real server would.
	mux.HandleFunc("/openapi/v2", func(w http.ResponseWriter, r *http.Request) {
		doc, err := openapi_v2.ParseDocument(OpenAPIV2())
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		b, _ := proto.Marshal(doc)
		w.Header().Set("Content-Type", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf")
		_, _ = w.Write(b)
	})
	mux.HandleFunc("/openapi/v3", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(OpenAPIV3Index())
	})
	mux.HandleFunc("/openapi/v3/", func(w http.ResponseWriter, r *http.Request) {
		doc, ok := OpenAPIV3GroupVersion(strings.TrimPrefix(r.URL.Path, "/openapi/v3/"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(doc)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: %s\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\nusers:\n- name: u\n  user: {}\ncurrent-context: c\n", srv.URL)
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	binaries := []string{kubectl}
	if old := filepath.Join(filepath.Dir(resolved(kubectl)), "kubectl.1.27"); fileExists(old) {
		binaries = append(binaries, old) // the oldest client we support
	}
	for _, bin := range binaries {
		for _, tt := range []struct {
			args []string
			want []string
		}{
			{[]string{"explain", "apiservices.spec"}, []string{"GROUP:      apiregistration.k8s.io", "KIND:       APIService", "VERSION:    v1", "caBundle\t<string>", "groupPriorityMinimum\t<integer> -required-", "service\t<ServiceReference>"}},
			{[]string{"explain", "svc.spec.ports"}, []string{"KIND:       Service", "port\t<integer> -required-", "targetPort\t<"}},
			{[]string{"explain", "apiservices.status.conditions"}, []string{"type\t<string> -required-"}},
			{[]string{"explain", "cm"}, []string{"binaryData\t<map[string]string>", "immutable\t<boolean>"}},
			{[]string{"explain", "ep.subsets.addresses"}, []string{"ip\t<string> -required-"}},
			{[]string{"explain", "ns.status"}, []string{"phase\t<string>"}},
		} {
			cmd := exec.Command(bin, append([]string{"--kubeconfig", kubeconfig}, tt.args...)...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s %v: %v\n%s", bin, tt.args, err, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("%s %v: output lacks %q:\n%s", bin, tt.args, w, out)
				}
			}
			if strings.Contains(string(out), "Warning") {
				t.Errorf("%s %v warned:\n%s", bin, tt.args, out)
			}
		}
	}
}

func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
