package demo

import (
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
)

// ServiceAccountName is the ServiceAccount the demo backend runs as in
// Namespace, as k8s.io/sample-apiserver's artifacts/example/sa.yaml names
// it (wardle/apiserver).
const ServiceAccountName = "apiserver"

// Names of the demo's RBAC objects: the first four as k8s.io/sample-apiserver
// v0.33's artifacts/example (auth-delegator.yaml, auth-reader.yaml,
// rbac.yaml, rbac-bind.yaml) name them, then the two ClusterRoles that give
// users flunders and fischers through admin, edit and view.
const (
	AuthDelegatorBinding = "wardle:system:auth-delegator"
	AuthReaderBinding    = "wardle-auth-reader"
	BackendClusterRole   = "aggregated-apiserver-clusterrole"
	BackendRoleBinding   = "sample-apiserver-clusterrolebinding"
	AggregateToView      = "wardle:aggregate-to-view"
	AggregateToEdit      = "wardle:aggregate-to-edit"
)

// Objects returns everything a real deployment of the demo backend applies
// to the cluster, in creation order: Registration (Namespace, Service,
// Endpoints, APIServices) with the backend's ServiceAccount
// wardle/apiserver right after the Namespace (sample-apiserver's sa.yaml),
// then the backend's RBAC (RBACObjects), whose bindings name it.
func Objects(port int32, caBundle []byte) []meta.Object {
	reg := Registration(port, caBundle)
	sa := &core.ServiceAccount{TypeMeta: meta.TypeMeta{Kind: "ServiceAccount", APIVersion: "v1"},
		ObjectMeta: meta.ObjectMeta{Name: ServiceAccountName, Namespace: Namespace}}
	objs := append([]meta.Object{reg[0], sa}, reg[1:]...)
	return append(objs, RBACObjects()...)
}

// RBACObjects returns the demo's RBAC objects: what
// k8s.io/sample-apiserver's artifacts/example give its ServiceAccount
// (a ClusterRoleBinding to system:auth-delegator, so it may create
// TokenReviews and SubjectAccessReviews; a RoleBinding in kube-system to
// extension-apiserver-authentication-reader, so it may read the
// requestheader CA; aggregated-apiserver-clusterrole, to read namespaces,
// admission and flow-control objects, and its binding), and two
// ClusterRoles that add flunders and fischers to the bootstrap roles with
// the rbac.authorization.k8s.io/aggregate-to-* labels: reading to view (and
// edit and admin), writing to edit (and admin), as operators of aggregated
// APIs ship them.
func RBACObjects() []meta.Object {
	tm := func(kind string) meta.TypeMeta { return meta.TypeMeta{Kind: kind, APIVersion: rbac.GroupRBAC + "/v1"} }
	sa := []rbac.Subject{{Kind: rbac.KindServiceAccount, Name: ServiceAccountName, Namespace: Namespace}}
	resources := []string{"flunders", "fischers"}
	aggregate := func(to ...string) map[string]string {
		l := map[string]string{}
		for _, r := range to {
			l["rbac.authorization.k8s.io/aggregate-to-"+r] = "true"
		}
		return l
	}
	return []meta.Object{
		&rbac.ClusterRoleBinding{
			TypeMeta: tm("ClusterRoleBinding"), ObjectMeta: meta.ObjectMeta{Name: AuthDelegatorBinding},
			RoleRef:  rbac.RoleRef{APIGroup: rbac.GroupRBAC, Kind: "ClusterRole", Name: "system:auth-delegator"},
			Subjects: sa,
		},
		&rbac.RoleBinding{
			TypeMeta: tm("RoleBinding"), ObjectMeta: meta.ObjectMeta{Name: AuthReaderBinding, Namespace: "kube-system"},
			RoleRef:  rbac.RoleRef{APIGroup: rbac.GroupRBAC, Kind: "Role", Name: "extension-apiserver-authentication-reader"},
			Subjects: sa,
		},
		&rbac.ClusterRole{
			TypeMeta: tm("ClusterRole"), ObjectMeta: meta.ObjectMeta{Name: BackendClusterRole},
			Rules: []rbac.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get", "watch", "list"}},
				{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"mutatingwebhookconfigurations", "validatingwebhookconfigurations", "validatingadmissionpolicies", "validatingadmissionpolicybindings"}, Verbs: []string{"get", "watch", "list"}},
				{APIGroups: []string{"flowcontrol.apiserver.k8s.io"}, Resources: []string{"prioritylevelconfigurations", "flowschemas"}, Verbs: []string{"list", "watch"}},
			},
		},
		&rbac.ClusterRoleBinding{
			TypeMeta: tm("ClusterRoleBinding"), ObjectMeta: meta.ObjectMeta{Name: BackendRoleBinding},
			RoleRef:  rbac.RoleRef{APIGroup: rbac.GroupRBAC, Kind: "ClusterRole", Name: BackendClusterRole},
			Subjects: sa,
		},
		&rbac.ClusterRole{
			TypeMeta: tm("ClusterRole"), ObjectMeta: meta.ObjectMeta{Name: AggregateToView, Labels: aggregate("admin", "edit", "view")},
			Rules: []rbac.PolicyRule{{APIGroups: []string{Group}, Resources: resources, Verbs: []string{"get", "list", "watch"}}},
		},
		&rbac.ClusterRole{
			TypeMeta: tm("ClusterRole"), ObjectMeta: meta.ObjectMeta{Name: AggregateToEdit, Labels: aggregate("admin", "edit")},
			Rules: []rbac.PolicyRule{{APIGroups: []string{Group}, Resources: resources, Verbs: []string{"create", "update", "patch", "delete", "deletecollection"}}},
		},
	}
}
