package refsuite

const (
	rolePath  = "/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles"
	rbPath    = "/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings"
	crolePath = "/apis/rbac.authorization.k8s.io/v1/clusterroles"
	crbPath   = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
)

// rbacScenarios cover rbac.authorization.k8s.io/v1 (issue 14): kubectl's
// create commands, the objects as stored (defaults), tables, discovery and
// upstream's validation messages.
func rbacScenarios() []Scenario {
	const th = "rbac"
	return []Scenario{
		sc("rbac-create-kubectl", th, mkns(),
			kubectl("create", "role", "cm-reader", "-n", "${ns}", "--verb=get,list,watch", "--resource=configmaps"),
			kubectl("create", "rolebinding", "bob-cm", "-n", "${ns}", "--role=cm-reader", "--user=bob", "--group=devs", "--serviceaccount=${ns}:builder"),
			kubectl("create", "clusterrole", "${ns}-urls", "--verb=get", "--non-resource-url=/foo/*"),
			kubectl("create", "clusterrole", "${ns}-agg", "--aggregation-rule=rbac.example.com/aggregate-to-x=true"),
			kubectl("create", "clusterrolebinding", "${ns}-crb", "--clusterrole=${ns}-urls", "--user=alice"),
			kubectl("get", "role", "cm-reader", "-n", "${ns}", "-o", "yaml"),
			kubectl("get", "rolebinding", "bob-cm", "-n", "${ns}", "-o", "json"),
			kubectl("get", "clusterrole", "${ns}-agg", "-o", "yaml"),
			kubectl("get", "clusterrolebinding", "${ns}-crb", "-o", "yaml"),
			kubectl("get", "roles", "-n", "${ns}"),
			kubectl("get", "rolebindings", "-n", "${ns}", "-o", "wide"),
			kubectl("get", "clusterrolebinding", "${ns}-crb", "-o", "wide"),
			kubectl("get", "clusterrole", "${ns}-urls"),
			kubectl("delete", "clusterrole", "${ns}-urls", "${ns}-agg"),
			kubectl("delete", "clusterrolebinding", "${ns}-crb")),
		sc("rbac-discovery", th, get("/apis/rbac.authorization.k8s.io/v1"), get("/apis/rbac.authorization.k8s.io")),
		sc("rbac-defaults-json", th, mkns(),
			post(rbPath, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"d"},"roleRef":{"kind":"Role","name":"r"},"subjects":[{"kind":"User","name":"u"},{"kind":"Group","name":"g"},{"kind":"ServiceAccount","name":"s"}]}`),
			post(rolePath, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"empty"}}`),
			put(rolePath+"/created-by-put", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"created-by-put"},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]}`)),
		sc("rbac-invalid", th, mkns(),
			post(rolePath, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"bad"},"rules":[{"verbs":[]},{"verbs":["get"],"nonResourceURLs":["/x"],"resources":["a"]}]}`),
			post(crolePath, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"${ns}-bad%"},"rules":[{"verbs":["get"]}],"aggregationRule":{}}`),
			post(crolePath, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"${ns}-sel"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"-x":"y"},"matchExpressions":[{"key":"k","operator":"In"},{"key":"k","operator":"Bogus","values":["a b"]}]}]}}`),
			post(rbPath, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"bad"},"roleRef":{"apiGroup":"x","kind":"Foo","name":""},"subjects":[{"kind":"Bar","name":""},{"kind":"ServiceAccount","name":"A_b","apiGroup":"g"},{"kind":"User","name":"u","apiGroup":"x"}]}`),
			post(crbPath, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"${ns}-bad"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"a/b"},"subjects":[{"kind":"ServiceAccount","name":"sa"}]}`)),
		sc("rbac-roleref-immutable", th, mkns(),
			quiet(post(rbPath, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"b"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"}}`)),
			put(rbPath+"/b", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"b"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"other"}}`),
			kubectl("get", "rolebinding", "b", "-n", "${ns}", "-o", "wide")),
		sc("rbac-apply-server-side", th, mkns(),
			kubectlIn(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"ssa"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},"subjects":[{"kind":"User","name":"bob"}]}`,
				"apply", "--server-side", "-n", "${ns}", "-f", "-"),
			kubectl("get", "rolebinding", "ssa", "-n", "${ns}", "-o", "yaml", "--show-managed-fields")),
		// the reference runs --authorization-mode=RBAC; so does the suite's
		// aggsim: bob's rights come from a Role in the scenario's namespace
		// and the bootstrap policy (system:basic-user, system:discovery,
		// system:public-info-viewer)
		sc("rbac-authz-kubectl", th, mkns(),
			quiet(kubectl("create", "role", "cm-reader", "-n", "${ns}", "--verb=get,list,watch", "--resource=configmaps,configmaps/status")),
			quiet(kubectl("create", "rolebinding", "bob-cm-reader", "-n", "${ns}", "--role=cm-reader", "--user=bob")),
			quiet(kubectl("create", "rolebinding", "devs-view", "-n", "${ns}", "--clusterrole=system:auth-delegator", "--group=devs")),
			kubectl("get", "configmaps", "-n", "${ns}", "--as=bob"),
			kubectl("get", "configmaps", "-n", "default", "--as=bob"),
			kubectl("delete", "configmap", "nothing", "-n", "${ns}", "--as=bob"),
			kubectl("get", "--raw", "/metrics", "--as=bob"),
			kubectl("get", "--raw", "/version", "--as=bob"),
			kubectl("auth", "can-i", "list", "configmaps", "-n", "${ns}", "--as=bob"),
			kubectl("auth", "can-i", "delete", "configmaps", "-n", "${ns}", "--as=bob"),
			kubectl("auth", "can-i", "list", "configmaps", "--as=bob"),
			kubectl("auth", "can-i", "get", "configmaps", "--subresource=status", "-n", "${ns}", "--as=bob"),
			kubectl("auth", "can-i", "update", "configmaps", "--subresource=status", "-n", "${ns}", "--as=bob"),
			kubectl("auth", "can-i", "get", "/healthz", "--as=bob"),
			kubectl("auth", "can-i", "get", "/metrics", "--as=bob"),
			kubectl("auth", "can-i", "list", "configmaps", "-n", "${ns}", "--as=system:serviceaccount:${ns}:builder"),
			kubectl("auth", "can-i", "--list", "-n", "${ns}", "--as=bob"),
			kubectl("auth", "can-i", "--list", "-n", "${ns}", "--as=bob", "--as-group=devs"),
			kubectl("auth", "can-i", "create", "subjectaccessreviews", "-n", "${ns}", "--as=carol", "--as-group=devs"),
			kubectl("auth", "whoami", "--as=bob", "--as-group=devs"),
			post(sarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"bob","resourceAttributes":{"namespace":"${ns}","verb":"list","resource":"configmaps"}}}`),
			post(sarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"bob","resourceAttributes":{"namespace":"${ns}","verb":"delete","resource":"configmaps"}}}`),
			post(sarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"x","groups":["system:authenticated"],"nonResourceAttributes":{"verb":"get","path":"/apis/wardle.example.com"}}}`),
			post(sarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"x","groups":["system:serviceaccounts"],"resourceAttributes":{"verb":"create","group":"authorization.k8s.io","resource":"selfsubjectrulesreviews"}}}`)),
		sc("rbac-missing-role", th, mkns(),
			quiet(kubectl("create", "rolebinding", "to-nothing", "-n", "${ns}", "--role=nothing", "--user=carol")),
			kubectl("get", "configmaps", "-n", "${ns}", "--as=carol"),
			post(sarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"carol","resourceAttributes":{"namespace":"${ns}","verb":"list","resource":"configmaps"}}}`)),
		// escalation prevention: bob may create roles and rolebindings in
		// the namespace but grant only what he holds, or bind what "bind"
		// allows him to
		sc("rbac-escalation", th, mkns(),
			quiet(kubectl("create", "role", "cm-reader", "-n", "${ns}", "--verb=get,list,watch", "--resource=configmaps")),
			quiet(kubectl("create", "rolebinding", "bob-cm-reader", "-n", "${ns}", "--role=cm-reader", "--user=bob")),
			quiet(kubectl("create", "role", "role-admin", "-n", "${ns}", "--verb=get,list,watch,create,update,patch,delete", "--resource=roles,rolebindings")),
			quiet(kubectl("create", "rolebinding", "bob-role-admin", "-n", "${ns}", "--role=role-admin", "--user=bob")),
			kubectl("create", "role", "cm-get", "-n", "${ns}", "--verb=get", "--resource=configmaps", "--resource-name=a", "--as=bob"),
			kubectl("create", "role", "sub", "-n", "${ns}", "--verb=get", "--resource=configmaps/status", "--as=bob"),
			kubectl("create", "role", "multi", "-n", "${ns}", "--verb=list,get,delete", "--resource=configmaps,services", "--as=bob"),
			kubectl("create", "rolebinding", "bob-admin", "-n", "${ns}", "--clusterrole=cluster-admin", "--user=bob", "--as=bob"),
			kubectl("create", "rolebinding", "bob-missing", "-n", "${ns}", "--clusterrole=does-not-exist", "--user=bob", "--as=bob"),
			kubectl("create", "rolebinding", "alice-cm", "-n", "${ns}", "--role=cm-reader", "--user=alice", "--as=bob"),
			kubectl("create", "rolebinding", "bob-delegator", "-n", "${ns}", "--clusterrole=system:auth-delegator", "--user=bob", "--as=bob"),
			quiet(kubectl("create", "role", "binder", "-n", "${ns}", "--verb=bind", "--resource=clusterroles", "--resource-name=system:auth-delegator")),
			quiet(kubectl("create", "rolebinding", "bob-binder", "-n", "${ns}", "--role=binder", "--user=bob")),
			kubectl("create", "rolebinding", "bob-delegator", "-n", "${ns}", "--clusterrole=system:auth-delegator", "--user=bob", "--as=bob"),
			put(rolePath+"/cm-reader", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"cm-reader"},"rules":[{"verbs":["*"],"apiGroups":[""],"resources":["configmaps"]}]}`, "Impersonate-User: bob")),
	}
}
