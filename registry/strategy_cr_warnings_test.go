package registry

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestCustomResourceRatchetingWarnings replays
// testdata/crd-ratchet-warnings/reference.txt: an object stored under a
// CRD that later got a maxLength and two x-kubernetes-validations rules
// it breaks is updated without touching those values. kube-apiserver
// 1.33.13 answered 200 with a Warning for each ratcheted rule failure, on
// the main resource and on /status alike. aggsim warned of none: its
// WarningsOnUpdate ran the schema validation again without ratcheting,
// which the unchanged spec.a (too long) blocked, and /status got no
// warnings at all.
func TestCustomResourceRatchetingWarnings(t *testing.T) {
	const dir = "testdata/crd-ratchet-warnings/"
	readCRD := func(f string) *apiextensions.CustomResourceDefinition {
		var crd apiextensions.CustomResourceDefinition
		b, err := os.ReadFile(dir + f)
		if err == nil {
			err = json.Unmarshal(b, &crd)
		}
		if err != nil {
			t.Fatal(err)
		}
		apiextensions.SetDefaults(&crd)
		crd.Status.AcceptedNames = crd.Spec.Names
		return &crd
	}
	storeOf := func(st storage.Storage, crd *apiextensions.CustomResourceDefinition) *Store {
		s, err := NewCustomResourceStrategy(crd, "v1", nil)
		if err != nil {
			t.Fatal(err)
		}
		return NewStore(st, s, StoreOptions{})
	}
	want := referenceWarnings(t, dir+"reference.txt")
	if len(want) != 2 {
		t.Fatalf("reference.txt: %d answers", len(want))
	}

	ctx := context.Background()
	st := storage.NewMemory()
	loose := storeOf(st, readCRD("quills.crd.json"))
	obj := &Unstructured{}
	if b, err := os.ReadFile(dir + "quill.json"); err != nil || json.Unmarshal(b, obj) != nil {
		t.Fatal("quill.json", err)
	}
	if _, err := loose.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	set := func(s *Store, path, value string, status bool) []string {
		t.Helper()
		o, err := s.Get(ctx, "default", "q1")
		if err != nil {
			t.Fatal(err)
		}
		u := o.(*Unstructured)
		parts := strings.Split(path, ".")
		m := u.Content
		for _, p := range parts[:len(parts)-1] {
			next, _ := m[p].(map[string]any)
			if next == nil {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		m[parts[len(parts)-1]] = value
		var got []string
		wctx := WithWarningSink(ctx, func(w string) { got = append(got, w) })
		if status {
			_, err = s.UpdateStatus(wctx, u)
		} else {
			_, err = s.Update(wctx, u)
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		slices.Sort(got)
		return got
	}
	set(loose, "status.d.y", "bad", true) // quill.status-patch.json
	tight := storeOf(st, readCRD("quills.crd-patched.json"))
	for i, c := range []struct {
		path   string
		status bool
	}{{"spec.b", false}, {"status.s", true}} {
		if got := set(tight, c.path, "new", c.status); !slices.Equal(got, want[i]) {
			t.Errorf("%s: warnings %q, want %q", c.path, got, want[i])
		}
	}
}

// referenceWarnings returns the Warning texts of each answer ("$ " command
// line) in a captured reference file, sorted (upstream's order varies).
func referenceWarnings(t *testing.T, file string) [][]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "$ "):
			out = append(out, nil)
		case strings.HasPrefix(line, "warning: 299 - ") && len(out) > 0:
			text, err := strconv.Unquote(strings.TrimPrefix(line, "warning: 299 - "))
			if err != nil {
				t.Fatalf("%s: %q: %v", file, line, err)
			}
			out[len(out)-1] = append(out[len(out)-1], text)
		}
	}
	for _, ws := range out {
		slices.Sort(ws)
	}
	return out
}
