package aggregator

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
	"github.com/aggsim/aggsim/registry/rest"
)

// ensureBootstrapPolicy writes kube-apiserver 1.33's bootstrap RBAC
// policy (rbac.BootstrapPolicy), as its rbac/bootstrap-roles post-start
// hook does (pkg/registry/rbac/rest/storage_rbac.go): missing objects are
// created, all at once (ensureObjects); an existing one whose
// rbac.authorization.kubernetes.io/autoupdate annotation is not "false" is
// reconciled as upstream's reconciliation does without removing anything:
// the bootstrap labels, annotations, rules (or a ClusterRole's
// aggregationRule) and subjects it lacks are added.
//
// The Roles and RoleBindings are written once namespacesDone is closed
// (their namespaces kube-system and kube-public exist then), or, on a
// fresh store, together with the namespaces.
func (s *Server) ensureBootstrapPolicy(ctx context.Context, namespacesDone <-chan struct{}) error {
	p := rbac.BootstrapPolicy()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i, w := range []struct {
		resource, kind string
		namespaced     bool
		objs           []meta.Object
	}{
		{"clusterroles", "clusterrole", false, asObjects(p.ClusterRoles)},
		{"clusterrolebindings", "clusterrolebinding", false, asObjects(p.ClusterRoleBindings)},
		{"roles", "role", true, asObjects(p.Roles)},
		{"rolebindings", "rolebinding", true, asObjects(p.RoleBindings)},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := ctx
			switch {
			case w.namespaced && isFreshStart(ctx):
				// A fresh store's: written in the transaction that
				// creates their namespaces (bootstrap_stored.go), one
				// commit fewer before ready.
				ctx = registry.WithNamespaceCreatedTogether(ctx, namespacesOf(w.objs)...)
			case w.namespaced:
				select {
				case <-namespacesDone:
				case <-ctx.Done():
					return
				}
			}
			// Written as kube-apiserver's rbac/bootstrap-roles hook writes
			// it, through a loopback client: an Update entry of manager
			// kube-apiserver (measured on the reference).
			st := rest.ObjectWriter{Store: s.api.Store(meta.GroupResource{Group: rbac.GroupRBAC, Resource: w.resource}), Manager: "kube-apiserver", CreateFields: bootstrapCreateFields(w.resource)}
			errs[i] = ensureObjects(ctx, st, w.kind, w.objs, reviseRBAC)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// asObjects returns pointers to the elements of objs.
func asObjects[T any, P interface {
	*T
	meta.Object
}](objs []T) []meta.Object {
	out := make([]meta.Object, len(objs))
	for i := range objs {
		out[i] = P(&objs[i])
	}
	return out
}

// reviseRBAC is the bootstrap policy's revise function (ensureObjects):
// nil when live's autoupdate annotation is "false" or it lacks nothing of
// want, else live with what it lacks added (reconcileRBAC).
func reviseRBAC(live, want meta.Object) meta.Object {
	if live.GetObjectMeta().Annotations[rbac.AutoUpdateAnnotation] == "false" {
		return nil
	}
	if merged, changed := reconcileRBAC(live, want); changed {
		return merged
	}
	return nil
}

// reconcileRBAC returns a copy of cur with what want has and cur lacks
// (labels, annotations, rules or aggregationRule, subjects), and whether
// anything was added.
func reconcileRBAC(cur, want meta.Object) (meta.Object, bool) {
	changed := false
	// Lists and maps are copied on their first change only (most starts
	// change nothing): cur is never modified.
	addMap := func(dst *map[string]string, src map[string]string) {
		cloned := false
		for k, v := range src {
			if (*dst)[k] != v {
				if !cloned {
					*dst, cloned = maps.Clone(*dst), true
					if *dst == nil {
						*dst = map[string]string{}
					}
				}
				(*dst)[k] = v
				changed = true
			}
		}
	}
	addRules := func(dst *[]rbac.PolicyRule, src []rbac.PolicyRule) {
		cloned := false
		for i, r := range src {
			if !containsRule(*dst, i, r) { // rbac_rule_equal.go
				if !cloned {
					*dst, cloned = slices.Clone(*dst), true
				}
				*dst = append(*dst, r)
				changed = true
			}
		}
	}
	addSubjects := func(dst *[]rbac.Subject, src []rbac.Subject) {
		cloned := false
		for _, sub := range src {
			if !slices.Contains(*dst, sub) {
				if !cloned {
					*dst, cloned = slices.Clone(*dst), true
				}
				*dst = append(*dst, sub)
				changed = true
			}
		}
	}
	var out meta.Object
	var om *meta.ObjectMeta
	switch c := cur.(type) {
	case *rbac.ClusterRole:
		n, w := *c, want.(*rbac.ClusterRole)
		if w.AggregationRule != nil {
			if !reflect.DeepEqual(n.AggregationRule, w.AggregationRule) {
				n.AggregationRule, changed = w.AggregationRule, true
			}
		} else {
			addRules(&n.Rules, w.Rules)
		}
		out, om = &n, &n.ObjectMeta
	case *rbac.Role:
		n, w := *c, want.(*rbac.Role)
		addRules(&n.Rules, w.Rules)
		out, om = &n, &n.ObjectMeta
	case *rbac.ClusterRoleBinding:
		n, w := *c, want.(*rbac.ClusterRoleBinding)
		addSubjects(&n.Subjects, w.Subjects)
		out, om = &n, &n.ObjectMeta
	case *rbac.RoleBinding:
		n, w := *c, want.(*rbac.RoleBinding)
		addSubjects(&n.Subjects, w.Subjects)
		out, om = &n, &n.ObjectMeta
	default:
		return cur, false
	}
	wm := want.GetObjectMeta()
	addMap(&om.Labels, wm.Labels)
	addMap(&om.Annotations, wm.Annotations)
	return out, changed
}
