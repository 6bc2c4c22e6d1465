package refsuite

const (
	saPath    = "/api/v1/namespaces/${ns}/serviceaccounts"
	tokenPath = saPath + "/robot/token"
)

// serviceAccountScenarios cover core/v1 ServiceAccounts and their
// TokenRequest subresource (issue 14). The reference runs without
// kube-controller-manager, so no scenario lists a namespace's
// ServiceAccounts (aggsim creates "default" in each one); tokens differ
// by nature, so only TokenRequest answers without one are compared.
func serviceAccountScenarios() []Scenario {
	const th = "serviceaccounts"
	robot := `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"robot"}}`
	return []Scenario{
		sc("sa-create-get", th, mkns(), post(saPath, robot), get(saPath+"/robot"), get(saPath+"/robot", acceptTable),
			kubectl("get", "sa", "robot", "-n", "${ns}", "-o", "yaml"), kubectl("describe", "sa", "robot", "-n", "${ns}")),
		sc("sa-create-kubectl", th, mkns(), kubectl("create", "serviceaccount", "robot", "-n", "${ns}"),
			kubectl("get", "serviceaccount", "robot", "-n", "${ns}", "-o", "yaml", "--show-managed-fields")),
		sc("sa-invalid", th, mkns(),
			post(saPath, `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"Bad_Name","labels":{"a b":"c"}}}`),
			put(saPath+"/missing", `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"missing"}}`),
			kubectl("create", "sa", "UPPER", "-n", "${ns}")),
		sc("sa-update-delete", th, mkns(), quiet(post(saPath, robot)),
			patch(saPath+"/robot", "strategic", `{"secrets":[{"name":"a"}],"imagePullSecrets":[{"name":"p"}],"automountServiceAccountToken":false}`),
			patch(saPath+"/robot", "strategic", `{"secrets":[{"name":"b"}]}`),
			patch(saPath+"/robot?fieldManager=tool", "apply", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: robot\nsecrets:\n- name: c\n"),
			get(saPath+"/robot", acceptTable), del(saPath+"/robot"), get(saPath+"/robot")),
		sc("sa-token-errors", th, mkns(), quiet(post(saPath, robot)),
			post(tokenPath, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":599}}`),
			post(tokenPath, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":4294967297}}`),
			post(tokenPath, `{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"x"}}}`),
			post(tokenPath, `{"spec":{"boundObjectRef":{"kind":"ConfigMap","apiVersion":"v1","name":"x"}}}`),
			post(tokenPath, `{"metadata":{"name":"other"},"spec":{}}`),
			post(tokenPath, `{"metadata":{"namespace":"other"},"spec":{}}`),
			post(saPath+"/nosuch/token", `{"spec":{}}`), get(tokenPath),
			kubectl("create", "token", "robot", "-n", "${ns}", "--duration=5m"),
			kubectl("create", "token", "nosuch", "-n", "${ns}"),
			kubectl("create", "token", "robot", "-n", "${ns}", "--bound-object-kind=Secret", "--bound-object-name=x")),
	}
}
