package rbac

import "github.com/aggsim/aggsim/registry/apis/meta"

// GroupRBAC is the API group of the RBAC kinds.
const GroupRBAC = "rbac.authorization.k8s.io"

// Subject kinds (k8s.io/api/rbac/v1/types.go).
const (
	// KindUser is a Subject naming a user.
	KindUser = "User"
	// KindGroup is a Subject naming a group.
	KindGroup = "Group"
	// KindServiceAccount is a Subject naming a ServiceAccount.
	KindServiceAccount = "ServiceAccount"
)

// AutoUpdateAnnotation marks a bootstrap policy object that the API server
// reconciles at start ("true") or leaves alone ("false").
const AutoUpdateAnnotation = "rbac.authorization.kubernetes.io/autoupdate"

// PolicyRule is one permission: verbs on resources of API groups (maybe
// only some names), or verbs on non-resource URLs.
// ---
// PolicyRule mirrors rbac/v1.PolicyRule.
type PolicyRule struct {
	// The actions the rule allows on every resource or URL it names; "*" allows all.
	// +listType=atomic
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// The API groups of the resources: a request for a named resource in any of
	// them matches. "" is the core group, "*" every group.
	// +optional
	// +listType=atomic
	APIGroups []string `json:"apiGroups,omitempty" protobuf:"bytes,2,rep,name=apiGroups"`
	// The resources (and "resource/subresource") the rule covers; "*" covers all.
	// +optional
	// +listType=atomic
	Resources []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	// When set, only objects with one of these names match; empty means any name.
	// +optional
	// +listType=atomic
	ResourceNames []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
	// Paths outside the resource API (such as /healthz) the rule covers; a
	// trailing "*" matches any continuation. They only count in ClusterRoles
	// bound by a ClusterRoleBinding, and a rule names either resources or
	// URLs, never both.
	// +optional
	// +listType=atomic
	NonResourceURLs []string `json:"nonResourceURLs,omitempty" protobuf:"bytes,5,rep,name=nonResourceURLs"`
}

// Subject is who a binding grants a role to: a user, a group or a
// ServiceAccount.
// ---
// Subject mirrors rbac/v1.Subject.
// +structType=atomic
type Subject struct {
	// What the subject is: User, Group or ServiceAccount.
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// The API group of the subject's kind: "" for a ServiceAccount,
	// rbac.authorization.k8s.io (the default) for a User or Group.
	// +optional
	APIGroup string `json:"apiGroup,omitempty" protobuf:"bytes,2,opt,name=apiGroup"`
	// The subject's name.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// The ServiceAccount's namespace; must stay empty for Users and Groups.
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,4,opt,name=namespace"`
}

// RoleRef names the role a binding grants.
// ---
// RoleRef mirrors rbac/v1.RoleRef.
// +structType=atomic
type RoleRef struct {
	// The API group of the role's kind (rbac.authorization.k8s.io).
	APIGroup string `json:"apiGroup" protobuf:"bytes,1,opt,name=apiGroup"`
	// Role or ClusterRole.
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	// The role's name.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
}

// Role is a set of permissions within one namespace, granted to subjects
// by RoleBindings there.
// ---
// Role mirrors rbac/v1.Role (namespaced). Rules has no omitempty: a Role
// without rules encodes `"rules":null`, as upstream's.
type Role struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The permissions the role grants.
	// +optional
	// +listType=atomic
	Rules []PolicyRule `json:"rules" protobuf:"bytes,2,rep,name=rules"`
}

// RoleList is a list of Role objects.
// ---
// RoleList mirrors rbac/v1.RoleList.
type RoleList struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The Role objects.
	Items []Role `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ClusterRole is a set of permissions that is not tied to a namespace:
// granted cluster-wide by a ClusterRoleBinding, or within one namespace by
// a RoleBinding there.
// ---
// ClusterRole mirrors rbac/v1.ClusterRole (cluster-scoped).
type ClusterRole struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The permissions the role grants.
	// +optional
	// +listType=atomic
	Rules []PolicyRule `json:"rules" protobuf:"bytes,2,rep,name=rules"`
	// When set, the rules are the union of the rules of the ClusterRoles it
	// selects, kept current by the server: changes written to rules by hand
	// are overwritten.
	// +optional
	AggregationRule *AggregationRule `json:"aggregationRule,omitempty" protobuf:"bytes,3,opt,name=aggregationRule"`
}

// AggregationRule selects the ClusterRoles whose rules a ClusterRole
// collects.
// ---
// AggregationRule mirrors rbac/v1.AggregationRule.
type AggregationRule struct {
	// Label selectors over ClusterRoles: the rules of every ClusterRole one
	// of them matches are collected.
	// +optional
	// +listType=atomic
	ClusterRoleSelectors []meta.LabelSelector `json:"clusterRoleSelectors,omitempty" protobuf:"bytes,1,rep,name=clusterRoleSelectors"`
}

// ClusterRoleList is a list of ClusterRole objects.
// ---
// ClusterRoleList mirrors rbac/v1.ClusterRoleList.
type ClusterRoleList struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The ClusterRole objects.
	Items []ClusterRole `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// RoleBinding grants the permissions of a Role in its own namespace, or of
// a ClusterRole, to subjects, within the binding's namespace only.
// ---
// RoleBinding mirrors rbac/v1.RoleBinding (namespaced).
type RoleBinding struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Who is granted the role: users, groups and ServiceAccounts.
	// +optional
	// +listType=atomic
	Subjects []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	// The role granted: a Role in this namespace or a ClusterRole. It cannot
	// be changed once the binding exists.
	RoleRef RoleRef `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}

// RoleBindingList is a list of RoleBinding objects.
// ---
// RoleBindingList mirrors rbac/v1.RoleBindingList.
type RoleBindingList struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The RoleBinding objects.
	Items []RoleBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ClusterRoleBinding grants the permissions of a ClusterRole to subjects
// in every namespace and for cluster-scoped resources.
// ---
// ClusterRoleBinding mirrors rbac/v1.ClusterRoleBinding (cluster-scoped).
type ClusterRoleBinding struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Who is granted the role: users, groups and ServiceAccounts.
	// +optional
	// +listType=atomic
	Subjects []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	// The ClusterRole granted. It cannot be changed once the binding exists.
	RoleRef RoleRef `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}

// ClusterRoleBindingList is a list of ClusterRoleBinding objects.
// ---
// ClusterRoleBindingList mirrors rbac/v1.ClusterRoleBindingList.
type ClusterRoleBindingList struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The ClusterRoleBinding objects.
	Items []ClusterRoleBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}
