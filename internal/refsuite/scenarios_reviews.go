package refsuite

const (
	tokenReviewPath = "/apis/authentication.k8s.io/v1/tokenreviews"
	ssrPath         = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
	sarPath         = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
	ssarPath        = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	ssrrPath        = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
	lsarPath        = "/apis/authorization.k8s.io/v1/namespaces/${ns}/localsubjectaccessreviews"
)

func reviewScenarios() []Scenario {
	const th = "reviews"
	return []Scenario{
		sc("tokenreview-invalid-token", th,
			post(tokenReviewPath, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"not-a-token"}}`),
			post(tokenReviewPath, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"not-a-token","audiences":["api"]}}`)),
		sc("tokenreview-empty", th, post(tokenReviewPath, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{}}`),
			post(tokenReviewPath, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview"}`)),
		sc("tokenreview-kubectl", th, kubectlIn("apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: abc\n", "create", "-f", "-", "-o", "yaml")),
		sc("tokenreview-get-unsupported", th, get(tokenReviewPath), get(tokenReviewPath+"/x"), del(tokenReviewPath+"/x")),
		sc("selfsubjectreview", th, post(ssrPath, `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`),
			kubectl("auth", "whoami"), kubectl("auth", "whoami", "-o", "yaml")),
		sc("selfsubjectreview-impersonated", th,
			post(ssrPath, `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`, "Impersonate-User: alice", "Impersonate-Group: devs", "Impersonate-Group: system:masters", "Impersonate-Extra-scopes: view"),
			kubectl("auth", "whoami", "--as=bob", "--as-group=system:masters")),
		sc("sar-admin", th,
			post(sarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"${admin}","groups":["system:masters"],"resourceAttributes":{"verb":"get","resource":"configmaps","namespace":"${ns}"}}}`),
			post(sarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"someone","groups":["system:masters"],"nonResourceAttributes":{"verb":"get","path":"/healthz"}}}`)),
		sc("sar-invalid", th,
			post(sarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"resourceAttributes":{"verb":"get"}}}`),
			post(sarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"a","resourceAttributes":{"verb":"get"},"nonResourceAttributes":{"verb":"get","path":"/"}}}`),
			post(sarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"a"}}`)),
		sc("sar-unprivileged", th,
			post(sarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"nobody","resourceAttributes":{"verb":"delete","resource":"namespaces"}}}`)),
		sc("ssar", th,
			post(ssarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"create","resource":"configmaps","namespace":"${ns}"}}}`),
			post(ssarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"nonResourceAttributes":{"verb":"get","path":"/version"}}}`),
			post(ssarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{}}`)),
		sc("ssar-selectors", th,
			post(ssarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"list","resource":"configmaps","labelSelector":{"rawSelector":"a=b"},"fieldSelector":{"rawSelector":"metadata.name=x"}}}}`)),
		sc("ssrr", th,
			post(ssrrPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{"namespace":"${ns}"}}`),
			post(ssrrPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{}}`)),
		sc("lsar", th,
			post(lsarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","spec":{"user":"x","groups":["system:masters"],"resourceAttributes":{"verb":"get","resource":"configmaps","namespace":"${ns}"}}}`),
			post(lsarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","spec":{"user":"x","resourceAttributes":{"verb":"get","resource":"configmaps","namespace":"other"}}}`)),
		sc("auth-can-i", th,
			kubectl("auth", "can-i", "create", "configmaps", "-n", "${ns}"),
			kubectl("auth", "can-i", "*", "*"),
			kubectl("auth", "can-i", "get", "/healthz"),
			kubectl("auth", "can-i", "list", "apiservices.apiregistration.k8s.io"),
			kubectl("auth", "can-i", "get", "flunders.wardle.example.com", "--as=alice", "--as-group=system:masters")),
		sc("auth-can-i-list", th, kubectl("auth", "can-i", "--list", "-n", "${ns}")),
		sc("auth-can-i-unprivileged", th, kubectl("auth", "can-i", "get", "configmaps", "--as=nobody"),
			kubectl("get", "configmaps", "-n", "default", "--as=nobody")),
		sc("review-bad-bodies", th,
			post(sarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":`),
			post(ssarPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"ConfigMap"}`),
			post(tokenReviewPath, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":5}}`)),
	}
}
