package rbac

import "github.com/aggsim/aggsim/registry/apis/meta"

// Policy is a set of RBAC objects: kube-apiserver's bootstrap policy
// (BootstrapPolicy).
type Policy struct {
	ClusterRoles        []ClusterRole
	ClusterRoleBindings []ClusterRoleBinding
	Roles               []Role
	RoleBindings        []RoleBinding
}

// BootstrapPolicy returns kube-apiserver 1.33's bootstrap policy
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy), every object exactly
// as a fresh 1.33.13 server holds it: 66 ClusterRoles (admin, edit and
// view with their aggregationRule and null rules, the
// system:aggregate-to-* roles, system:discovery, system:basic-user,
// system:public-info-viewer, system:auth-delegator, the controllers'...),
// 47 ClusterRoleBindings, and the 7 Roles and RoleBindings of kube-system
// and kube-public (extension-apiserver-authentication-reader among them),
// each labelled kubernetes.io/bootstrapping=rbac-defaults and annotated
// rbac.authorization.kubernetes.io/autoupdate=true. The data is generated
// from the captured objects (testdata/bootstrap, zz_generated.bootstrap.go);
// every call returns new objects the caller may keep and change.
func BootstrapPolicy() Policy {
	p := bootstrapPolicy()
	tm := func(kind string) meta.TypeMeta { return meta.TypeMeta{Kind: kind, APIVersion: GroupRBAC + "/v1"} }
	for i := range p.ClusterRoles {
		p.ClusterRoles[i].TypeMeta = tm("ClusterRole")
	}
	for i := range p.ClusterRoleBindings {
		p.ClusterRoleBindings[i].TypeMeta = tm("ClusterRoleBinding")
	}
	for i := range p.Roles {
		p.Roles[i].TypeMeta = tm("Role")
	}
	for i := range p.RoleBindings {
		p.RoleBindings[i].TypeMeta = tm("RoleBinding")
	}
	return p
}

// s returns its arguments: the generated data's string lists.
func s(v ...string) []string { return v }

// autoupdate returns the annotations of a bootstrap object.
func autoupdate() map[string]string { return map[string]string{AutoUpdateAnnotation: "true"} }

// bootstrapping returns the labels of a bootstrap object: the
// kubernetes.io/bootstrapping=rbac-defaults label plus the key, value
// pairs kv.
func bootstrapping(kv ...string) map[string]string {
	m := make(map[string]string, 1+len(kv)/2)
	m["kubernetes.io/bootstrapping"] = "rbac-defaults"
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}
