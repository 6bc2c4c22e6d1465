package rbac

// DefaultRoleRef sets roleRef.apiGroup to rbac.authorization.k8s.io when
// empty, as upstream's SetDefaults_RoleBinding and
// SetDefaults_ClusterRoleBinding do (pkg/apis/rbac/v1/defaults.go).
func DefaultRoleRef(r *RoleRef) {
	if r.APIGroup == "" {
		r.APIGroup = GroupRBAC
	}
}

// DefaultSubjects sets the apiGroup of User and Group subjects to
// rbac.authorization.k8s.io when empty (ServiceAccount subjects keep ""),
// as upstream's SetDefaults_Subject does.
func DefaultSubjects(subjects []Subject) {
	for i := range subjects {
		s := &subjects[i]
		if s.APIGroup == "" && (s.Kind == KindUser || s.Kind == KindGroup) {
			s.APIGroup = GroupRBAC
		}
	}
}
