package registry

import (
	"reflect"
	"strings"
	"time"

	"github.com/aggsim/aggsim/internal/apidoc"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
)

// GroupRBAC is the rbac.authorization.k8s.io group.
const GroupRBAC = rbac.GroupRBAC

// RBAC kinds served by RBACStrategy.
const (
	KindRole               = "Role"
	KindClusterRole        = "ClusterRole"
	KindRoleBinding        = "RoleBinding"
	KindClusterRoleBinding = "ClusterRoleBinding"
)

// RBACStrategies returns the strategies of roles, clusterroles,
// rolebindings and clusterrolebindings (upstream
// pkg/registry/rbac/*/strategy.go). now is the clock for AGE cells.
func RBACStrategies(now func() time.Time) []Strategy {
	return []Strategy{
		RBACStrategy{Kind: KindClusterRoleBinding, Now: now},
		RBACStrategy{Kind: KindClusterRole, Now: now},
		RBACStrategy{Kind: KindRoleBinding, Now: now},
		RBACStrategy{Kind: KindRole, Now: now},
	}
}

// RBACStrategy is the Strategy of one rbac.authorization.k8s.io/v1 kind
// (Kind). None has spec or status or tracks generation: objects are
// stored as sent, after upstream's defaults (the RBAC group on roleRef
// and on User and Group subjects). An update of a missing object creates
// it, as upstream's RBAC strategies allow.
type RBACStrategy struct {
	// Kind is Role, ClusterRole, RoleBinding or ClusterRoleBinding.
	Kind string
	// Now is the clock for AGE cells; nil means time.Now.
	Now func() time.Time
}

var (
	_ Strategy            = RBACStrategy{}
	_ Defaulter           = RBACStrategy{}
	_ FieldSchemaProvider = RBACStrategy{}
	_ CreateOnUpdater     = RBACStrategy{}
)

// Info describes the kind as /apis/rbac.authorization.k8s.io/v1 discovery
// does: no short names or categories, no subresources.
func (s RBACStrategy) Info() ResourceInfo {
	resource := strings.ToLower(s.Kind) + "s"
	return ResourceInfo{
		Group: GroupRBAC, Version: VersionV1,
		Kind: s.Kind, ListKind: s.Kind + "List",
		Resource: resource, Singular: strings.ToLower(s.Kind),
		Namespaced: s.Kind == KindRole || s.Kind == KindRoleBinding,
		Verbs:      crudVerbs,
	}
}

// New returns an empty object of Kind.
func (s RBACStrategy) New() meta.Object {
	switch s.Kind {
	case KindRole:
		return &rbac.Role{}
	case KindClusterRole:
		return &rbac.ClusterRole{}
	case KindRoleBinding:
		return &rbac.RoleBinding{}
	}
	return &rbac.ClusterRoleBinding{}
}

// Default sets upstream's binding defaults (rbac.DefaultRoleRef,
// rbac.DefaultSubjects).
func (RBACStrategy) Default(obj meta.Object) {
	switch o := obj.(type) {
	case *rbac.RoleBinding:
		rbac.DefaultRoleRef(&o.RoleRef)
		rbac.DefaultSubjects(o.Subjects)
	case *rbac.ClusterRoleBinding:
		rbac.DefaultRoleRef(&o.RoleRef)
		rbac.DefaultSubjects(o.Subjects)
	}
}

// PrepareForCreate does nothing: RBAC objects are stored as sent.
func (RBACStrategy) PrepareForCreate(meta.Object) {}

// PrepareForUpdate does nothing (no status, no generation).
func (RBACStrategy) PrepareForUpdate(obj, old meta.Object) {}

// PrepareForStatusUpdate is never called: RBAC kinds have no /status.
func (RBACStrategy) PrepareForStatusUpdate(obj, old meta.Object) {}

// Validate runs the kind's upstream validation (package rbac).
func (RBACStrategy) Validate(obj meta.Object) meta.FieldErrors {
	switch o := obj.(type) {
	case *rbac.Role:
		return rbac.ValidateRole(o)
	case *rbac.ClusterRole:
		return rbac.ValidateClusterRole(o)
	case *rbac.RoleBinding:
		return rbac.ValidateRoleBinding(o)
	case *rbac.ClusterRoleBinding:
		return rbac.ValidateClusterRoleBinding(o)
	}
	return nil
}

// ValidateUpdate runs the kind's upstream update validation (roleRef is
// immutable).
func (RBACStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors {
	switch o := obj.(type) {
	case *rbac.Role:
		return rbac.ValidateRoleUpdate(o, old.(*rbac.Role))
	case *rbac.ClusterRole:
		return rbac.ValidateClusterRoleUpdate(o, old.(*rbac.ClusterRole))
	case *rbac.RoleBinding:
		return rbac.ValidateRoleBindingUpdate(o, old.(*rbac.RoleBinding))
	case *rbac.ClusterRoleBinding:
		return rbac.ValidateClusterRoleBindingUpdate(o, old.(*rbac.ClusterRoleBinding))
	}
	return nil
}

// Canonicalize does nothing for RBAC objects.
func (RBACStrategy) Canonicalize(meta.Object) {}

// ListMapKeys is empty: every RBAC list is atomic.
func (RBACStrategy) ListMapKeys() map[string][]string { return nil }

// AtomicMaps names roleRef, a +structType=atomic struct.
func (s RBACStrategy) AtomicMaps() []string {
	if s.Kind == KindRoleBinding || s.Kind == KindClusterRoleBinding {
		return []string{"roleRef"}
	}
	return nil
}

// AllowCreateOnUpdate is true, as upstream's RBAC strategies.
func (RBACStrategy) AllowCreateOnUpdate() bool { return true }

// AllowUnconditionalUpdate is true, as upstream's RBAC strategies.
func (RBACStrategy) AllowUnconditionalUpdate() bool { return true }

// Column descriptions of the RBAC tables (upstream printers.go: the
// roleRef field docs and fixed texts for the subjects).
var (
	roleBindingRoleDescription        = apidoc.FieldDoc(reflect.TypeFor[rbac.RoleBinding](), "RoleRef")
	clusterRoleBindingRoleDescription = apidoc.FieldDoc(reflect.TypeFor[rbac.ClusterRoleBinding](), "RoleRef")
)

// TableColumns are upstream's: NAME and CREATED AT (a date) for roles;
// NAME, ROLE, AGE and the wide USERS, GROUPS, SERVICEACCOUNTS for
// bindings.
func (s RBACStrategy) TableColumns() []meta.TableColumnDefinition {
	switch s.Kind {
	case KindRole, KindClusterRole:
		return []meta.TableColumnDefinition{nameColumn(), createdAtColumn()}
	}
	desc := roleBindingRoleDescription
	if s.Kind == KindClusterRoleBinding {
		desc = clusterRoleBindingRoleDescription
	}
	return []meta.TableColumnDefinition{
		nameColumn(),
		stringColumn("Role", desc),
		ageColumn(),
		{Name: "Users", Type: "string", Priority: 1, Description: "Users in the roleBinding"},
		{Name: "Groups", Type: "string", Priority: 1, Description: "Groups in the roleBinding"},
		{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: "ServiceAccounts in the roleBinding"},
	}
}

// TableRow: a role's name and creation time (RFC 3339, UTC); a binding's
// name, Kind/name of its role, age, and its users, groups and
// namespace/name service accounts joined by ", " (upstream's printers
// always fill the wide cells).
func (s RBACStrategy) TableRow(obj meta.Object) []any {
	switch o := obj.(type) {
	case *rbac.Role:
		return []any{o.Name, createdAtCell(&o.ObjectMeta)}
	case *rbac.ClusterRole:
		return []any{o.Name, createdAtCell(&o.ObjectMeta)}
	case *rbac.RoleBinding:
		return bindingRow(o.Name, o.RoleRef, o.Subjects, meta.TableAge(o.CreationTimestamp, nowOr(s.Now)))
	case *rbac.ClusterRoleBinding:
		return bindingRow(o.Name, o.RoleRef, o.Subjects, meta.TableAge(o.CreationTimestamp, nowOr(s.Now)))
	}
	return nil
}

func bindingRow(name string, ref rbac.RoleRef, subjects []rbac.Subject, age string) []any {
	var users, groups, sas []string
	for _, sub := range subjects {
		switch sub.Kind {
		case rbac.KindServiceAccount:
			sas = append(sas, sub.Namespace+"/"+sub.Name)
		case rbac.KindUser:
			users = append(users, sub.Name)
		case rbac.KindGroup:
			groups = append(groups, sub.Name)
		}
	}
	return []any{name, ref.Kind + "/" + ref.Name, age, strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", ")}
}
