package discovery

import (
	"slices"
	"strings"
	"testing"
)

func TestCompareKubeAwareVersionStrings(t *testing.T) {
	tests := []struct {
		a, b string
		want int // sign only
	}{
		{"v1", "v1", 0},
		{"v10", "v2", 1},
		{"v2", "v10", -1},
		{"v1", "v2beta3", 1},
		{"v1beta10", "v1beta1", 1},
		{"v1beta1", "v11alpha2", 1},
		{"v11alpha2", "v1alpha2", 1},
		{"v1alpha2", "v1alpha1", 1},
		{"v1alpha1", "bar1", 1},
		{"bar1", "foo1", 1},
		{"foo1", "foo10", 1},
		{"foo10", "foo9", 1},
		{"V1", "abc", 1},
		{"v1beta", "v1.0", -1}, // both non-kube: "v1.0" < "v1beta"
		{"v1beta", "foo1", -1},
		{"v01", "v1", 0}, // upstream quirk
		{"v99999999999999999999", "foo", -1},
		{"v1", "v99999999999999999999", 1}, // overflow: not kube-like
		{"v", "v1", -1},
		{"v1gamma1", "v1alpha1", -1},
		{"valpha1", "v1alpha1", -1},
	}
	for _, tt := range tests {
		got := CompareKubeAwareVersionStrings(tt.a, tt.b)
		if sign(got) != tt.want {
			t.Errorf("CompareKubeAwareVersionStrings(%q, %q) = %d, want sign %d", tt.a, tt.b, got, tt.want)
		}
		if back := CompareKubeAwareVersionStrings(tt.b, tt.a); sign(back) != -tt.want && !(tt.a == "v01") {
			t.Errorf("CompareKubeAwareVersionStrings(%q, %q) = %d, want sign %d", tt.b, tt.a, back, -tt.want)
		}
	}
}

func sign(n int) int {
	switch {
	case n > 0:
		return 1
	case n < 0:
		return -1
	}
	return 0
}

// TestVersionOrderDocumented sorts the upstream documented examples
// (reference §2.1 and a-discovery/order-summary.txt) from a scrambled input.
func TestVersionOrderDocumented(t *testing.T) {
	for _, want := range [][]string{
		{"v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v12alpha1", "v11alpha2", "V1", "abc", "foo1", "foo10", "foo9", "v1.0", "v1beta"},
		{"v10", "v2", "v1", "v2beta3", "v1beta10", "v1beta1", "v11alpha2", "v1alpha2", "v1alpha1", "bar1", "foo1"},
	} {
		got := slices.Clone(want)
		slices.Reverse(got)
		got[0], got[len(got)/2] = got[len(got)/2], got[0]
		slices.SortFunc(got, func(a, b string) int { return -CompareKubeAwareVersionStrings(a, b) })
		if !slices.Equal(got, want) {
			t.Errorf("sorted = %v\nwant     %v", got, want)
		}
	}
}

// TestOrderSummary checks group and version order of both /apis documents
// against a-discovery/order-summary.txt, built-in groups left out.
func TestOrderSummary(t *testing.T) {
	svcs := loadAPIServices(t, "a-discovery", "apiservices.yaml")
	m := newTestManager(t, nil, svcs)
	inInput := map[string]bool{apiRegistrationGroup: true}
	for _, s := range svcs {
		inInput[s.Group] = true
	}
	var wantLegacy, wantAgg []string
	section := ""
	for _, line := range strings.Split(string(readFile(t, "a-discovery", "order-summary.txt")), "\n") {
		switch {
		case strings.HasPrefix(line, "LEGACY"):
			section = "legacy"
			continue
		case strings.HasPrefix(line, "AGGREGATED"):
			section = "agg"
			continue
		case !strings.HasPrefix(line, "  "):
			continue
		}
		name, rest, _ := strings.Cut(strings.TrimSpace(line), ": ")
		if !inInput[name] {
			continue // built-in group aggsim does not serve here
		}
		versions, _, _ := strings.Cut(rest, ";")
		entry := name + " " + versions
		if section == "legacy" {
			wantLegacy = append(wantLegacy, entry)
		} else {
			wantAgg = append(wantAgg, entry)
		}
	}
	summarise := func(doc map[string]any) []string {
		var out []string
		for _, field := range []string{"groups", "items"} {
			list, _ := doc[field].([]any)
			for _, g := range list {
				gm := g.(map[string]any)
				name, _ := gm["name"].(string)
				if md, ok := gm["metadata"].(map[string]any); ok {
					name, _ = md["name"].(string)
				}
				var vs []string
				for _, v := range gm["versions"].([]any) {
					vs = append(vs, "'"+v.(map[string]any)["version"].(string)+"'")
				}
				out = append(out, name+" ["+strings.Join(vs, ", ")+"]")
			}
		}
		return out
	}
	legacy := summarise(decodeMap(t, get(m, "/apis", "Accept", "application/json").Body.Bytes()))
	agg := summarise(decodeMap(t, get(m, "/apis", "Accept", aggAccept).Body.Bytes()))
	if !slices.Equal(legacy, wantLegacy) {
		t.Errorf("legacy order\n got %q\nwant %q", legacy, wantLegacy)
	}
	if !slices.Equal(agg, wantAgg) {
		t.Errorf("aggregated order\n got %q\nwant %q", agg, wantAgg)
	}
	// preferredVersion is the first version in /apis.
	for _, g := range decodeMap(t, get(m, "/apis").Body.Bytes())["groups"].([]any) {
		gm := g.(map[string]any)
		first := gm["versions"].([]any)[0]
		if indent(t, first) != indent(t, gm["preferredVersion"]) {
			t.Errorf("group %v: preferredVersion %v, first version %v", gm["name"], gm["preferredVersion"], first)
		}
	}
}

// TestGroupTieBreak: legacy /apis breaks groupPriorityMinimum ties on the
// APIService name, aggregated discovery on the group name (reference §2.5
// probe: b.example, metrics.k8s.io, a.example vs a.example, b.example,
// metrics.k8s.io); a group sits at its highest groupPriorityMinimum.
func TestGroupTieBreak(t *testing.T) {
	svc := func(version, group string, gpm int32) APIService {
		return APIService{Name: version + "." + group, Group: group, Version: version, GroupPriorityMinimum: gpm, VersionPriority: 10, Available: true, Resources: []byte(`{"groupVersion":"x","resources":[]}`)}
	}
	m, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	m.Set([]APIService{
		svc("v2", "a.example", 100),
		svc("v1", "b.example", 100),
		svc("v1beta1", "metrics.k8s.io", 100),
		svc("v1", "low.example", 50),
		svc("v9", "low.example", 3000), // lifts low.example to the top
	})
	legacy := groupNames(decodeMap(t, get(m, "/apis").Body.Bytes()))
	agg := groupNames(decodeMap(t, get(m, "/apis", "Accept", aggAccept).Body.Bytes()))
	wantLegacy := []string{apiRegistrationGroup, "low.example", "b.example", "metrics.k8s.io", "a.example"}
	wantAgg := []string{apiRegistrationGroup, "low.example", "a.example", "b.example", "metrics.k8s.io"}
	if !slices.Equal(legacy, wantLegacy) {
		t.Errorf("legacy = %v, want %v", legacy, wantLegacy)
	}
	if !slices.Equal(agg, wantAgg) {
		t.Errorf("aggregated = %v, want %v", agg, wantAgg)
	}
}
