package aggregator

import (
	"reflect"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
)

// reviseRBAC adds what a kept bootstrap object lacks (labels,
// annotations, rules), leaves the live object untouched, and keeps an
// object annotated rbac.authorization.kubernetes.io/autoupdate=false as
// it is (upstream's reconciliation without removal).
func TestReviseRBAC(t *testing.T) {
	rule := func(verb string) rbac.PolicyRule {
		return rbac.PolicyRule{Verbs: []string{verb}, APIGroups: []string{""}, Resources: []string{"pods"}}
	}
	want := &rbac.ClusterRole{ObjectMeta: meta.ObjectMeta{Name: "r",
		Labels:      map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"},
		Annotations: map[string]string{rbac.AutoUpdateAnnotation: "true"}},
		Rules: []rbac.PolicyRule{rule("get"), rule("list")}}
	live := &rbac.ClusterRole{ObjectMeta: meta.ObjectMeta{Name: "r", ResourceVersion: "7",
		Labels: map[string]string{"mine": "x"}},
		Rules: []rbac.PolicyRule{rule("watch"), rule("get")}}
	got := reviseRBAC(live, want)
	wantMerged := &rbac.ClusterRole{ObjectMeta: meta.ObjectMeta{Name: "r", ResourceVersion: "7",
		Labels:      map[string]string{"mine": "x", "kubernetes.io/bootstrapping": "rbac-defaults"},
		Annotations: map[string]string{rbac.AutoUpdateAnnotation: "true"}},
		Rules: []rbac.PolicyRule{rule("watch"), rule("get"), rule("list")}}
	if !reflect.DeepEqual(got, wantMerged) {
		t.Errorf("revised\n%+v\nwant\n%+v", got, wantMerged)
	}
	if len(live.Labels) != 1 || live.Annotations != nil || len(live.Rules) != 2 {
		t.Errorf("live object modified: %+v", live)
	}
	if got := reviseRBAC(wantMerged, want); got != nil {
		t.Errorf("up-to-date object revised: %+v", got)
	}
	off := &rbac.ClusterRole{ObjectMeta: meta.ObjectMeta{Name: "r", Annotations: map[string]string{rbac.AutoUpdateAnnotation: "false"}}}
	if got := reviseRBAC(off, want); got != nil {
		t.Errorf("autoupdate=false object revised: %+v", got)
	}
}
