package registry

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"sigs.k8s.io/yaml"
)

// strategyForKind finds the strategy of a manifest's kind.
func strategyForKind(t testing.TB, kind string) Strategy {
	for _, s := range Strategies(nil) {
		if s.Info().Kind == kind {
			return s
		}
	}
	t.Fatalf("no strategy for kind %q", kind)
	return nil
}

// admitManifest decodes a manifest and runs create admission the way the
// store does, returning "" or the message the API would answer with.
func admitManifest(t testing.TB, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	var tm meta.TypeMeta
	_ = json.Unmarshal(js, &tm)
	s := strategyForKind(t, tm.Kind)
	obj := s.New()
	if err := json.Unmarshal(js, obj); err != nil {
		version := tm.APIVersion[strings.LastIndex(tm.APIVersion, "/")+1:]
		return tm.Kind + ` in version "` + version + `" cannot be handled as a ` + tm.Kind + ": " + err.Error()
	}
	s.PrepareForCreate(obj)
	if errs := s.Validate(obj); len(errs) > 0 {
		info := s.Info()
		return meta.NewInvalid(info.Group, info.Kind, obj.GetObjectMeta().Name, errs).Error()
	}
	return ""
}

// TestManifests admits every manifest under testdata/manifests: the valid
// ones must pass, each invalid one must fail with the message listed in
// invalid/EXPECTED.txt ("<file>: <message>").
func TestManifests(t *testing.T) {
	valid, _ := filepath.Glob("../testdata/manifests/*.yaml")
	if len(valid) < 8 {
		t.Fatalf("only %d manifests", len(valid))
	}
	for _, f := range valid {
		if msg := admitManifest(t, f); msg != "" {
			t.Errorf("%s: %s", f, msg)
		}
	}
	expected := map[string]string{}
	fh, err := os.Open("../testdata/manifests/invalid/EXPECTED.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			name, msg, _ := strings.Cut(line, ": ")
			expected[name] = msg
		}
	}
	invalid, _ := filepath.Glob("../testdata/manifests/invalid/*.yaml")
	if len(invalid) != len(expected) {
		t.Fatalf("%d invalid manifests, %d expectations", len(invalid), len(expected))
	}
	for _, f := range invalid {
		want, ok := expected[filepath.Base(f)]
		if !ok {
			t.Errorf("%s: no expectation", f)
			continue
		}
		if got := admitManifest(t, f); got != want {
			t.Errorf("%s:\n got %s\nwant %s", filepath.Base(f), got, want)
		}
	}
}

func TestStrategiesInfo(t *testing.T) {
	want := map[string]string{
		"apiservices": "APIService cluster [] [api-extensions] status",
		"namespaces":  "Namespace cluster [ns] [] status",
		"services":    "Service namespaced [svc] [all] status",
		"endpoints":   "Endpoints namespaced [ep] [] ",
		"configmaps":  "ConfigMap namespaced [cm] [] ",
		// kube-apiserver 1.33.13's /api/v1 (kubectl get --raw /api/v1).
		"events":          "Event namespaced [ev] [] ",
		"resourcequotas":  "ResourceQuota namespaced [quota] [] status",
		"limitranges":     "LimitRange namespaced [limits] [] ",
		"serviceaccounts": "ServiceAccount namespaced [sa] [] ",

		"mutatingwebhookconfigurations":     "MutatingWebhookConfiguration cluster [] [api-extensions] ",
		"validatingwebhookconfigurations":   "ValidatingWebhookConfiguration cluster [] [api-extensions] ",
		"validatingadmissionpolicies":       "ValidatingAdmissionPolicy cluster [] [api-extensions] status",
		"validatingadmissionpolicybindings": "ValidatingAdmissionPolicyBinding cluster [] [api-extensions] ",
		"flowschemas":                       "FlowSchema cluster [] [] status",
		"prioritylevelconfigurations":       "PriorityLevelConfiguration cluster [] [] status",
		"clusterrolebindings":               "ClusterRoleBinding cluster [] [] ",
		"clusterroles":                      "ClusterRole cluster [] [] ",
		"rolebindings":                      "RoleBinding namespaced [] [] ",
		"roles":                             "Role namespaced [] [] ",
		// kube-apiserver 1.33.13's /apis/coordination.k8s.io/v1.
		"leases":                    "Lease namespaced [] [] ",
		"customresourcedefinitions": "CustomResourceDefinition cluster [crd crds] [api-extensions] status",
	}
	for _, s := range Strategies(nil) {
		i := s.Info()
		scope := "cluster"
		if i.Namespaced {
			scope = "namespaced"
		}
		sub := ""
		if i.HasStatus {
			sub = "status"
		}
		got := i.Kind + " " + scope + " " + jsonList(i.ShortNames) + " " + jsonList(i.Categories) + " " + sub
		if got != want[i.Resource] {
			t.Errorf("%s: %q, want %q", i.Resource, got, want[i.Resource])
		}
		if len(s.TableColumns()) != len(s.TableRow(s.New())) {
			t.Errorf("%s: %d columns, %d cells", i.Resource, len(s.TableColumns()), len(s.TableRow(s.New())))
		}
		if i.ListKind != i.Kind+"List" || i.Version != "v1" {
			t.Errorf("%s: %+v", i.Resource, i)
		}
	}
}

func jsonList(s []string) string { return "[" + strings.Join(s, " ") + "]" }
