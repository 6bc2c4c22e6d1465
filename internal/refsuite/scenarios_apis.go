package refsuite

const (
	apisvcPath = "/apis/apiregistration.k8s.io/v1/apiservices"
	arPath     = "/apis/admissionregistration.k8s.io/v1/"
	vwcPath    = arPath + "validatingwebhookconfigurations"
	mwcPath    = arPath + "mutatingwebhookconfigurations"
	vapPath    = arPath + "validatingadmissionpolicies"
	vapbPath   = arPath + "validatingadmissionpolicybindings"
	fcPath     = "/apis/flowcontrol.apiserver.k8s.io/v1/"
	fsPath     = fcPath + "flowschemas"
	plPath     = fcPath + "prioritylevelconfigurations"
)

// apiService returns an APIService for version v of group <sc>.example.com;
// svc "" makes it Local.
func apiService(v, svc string) string {
	s := `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"` + v + `.${sc}.example.com","labels":{"rs":"${sc}"}},"spec":{"group":"${sc}.example.com","version":"` + v + `","groupPriorityMinimum":1000,"versionPriority":15`
	if svc != "" {
		s += `,"service":{"namespace":"${ns}","name":"` + svc + `"},"insecureSkipTLSVerify":true`
	}
	return s + `}}`
}

func apiServiceScenarios() []Scenario {
	const th = "apiservices"
	return []Scenario{
		sc("apisvc-local-create", th, post(apisvcPath, apiService("v1", "")), get(apisvcPath+"/v1.${sc}.example.com"),
			kubectl("get", "apiservice", "v1.${sc}.example.com")),
		sc("apisvc-service-missing", th, mkns(), post(apisvcPath, apiService("v1", "api")),
			kubectl("get", "apiservice", "v1.${sc}.example.com", "-o", "yaml")),
		sc("apisvc-builtin", th, get(apisvcPath+"/v1.apiregistration.k8s.io"), get(apisvcPath+"/v1."),
			kubectl("get", "apiservices", "v1.admissionregistration.k8s.io", "v1.flowcontrol.apiserver.k8s.io", "v1.authentication.k8s.io", "v1.authorization.k8s.io")),
		sc("apisvc-list-selector", th, quiet(post(apisvcPath, apiService("v1", ""))), quiet(post(apisvcPath, apiService("v2", ""))),
			get(apisvcPath+"?labelSelector=rs%3D${sc}"), get(apisvcPath+"?labelSelector=rs%3D${sc}", acceptTable),
			kubectl("get", "apiservices", "-l", "rs=${sc}", "-o", "wide"),
			get(apisvcPath+"?labelSelector=kube-aggregator.kubernetes.io%2Fautomanaged%3Donstart&fieldSelector=metadata.name%3Dv1.authorization.k8s.io")),
		sc("apisvc-invalid", th,
			post(apisvcPath, `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"wrong"},"spec":{"group":"${sc}.example.com","version":"v1","groupPriorityMinimum":1000,"versionPriority":15}}`),
			post(apisvcPath, `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.${sc}.example.com"},"spec":{"group":"${sc}.example.com","version":"v1"}}`),
			post(apisvcPath, `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.${sc}.example.com"},"spec":{"group":"${sc}.example.com","version":"v1","groupPriorityMinimum":100000,"versionPriority":0,"caBundle":"bm90IGEgY2VydA==","insecureSkipTLSVerify":true}}`),
			post(apisvcPath, `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.${sc}.example.com"},"spec":{"group":"${sc}.example.com","version":"v1","groupPriorityMinimum":1,"versionPriority":1,"service":{"name":"api"}}}`)),
		sc("apisvc-patch-and-status", th, quiet(post(apisvcPath, apiService("v1", ""))),
			patch(apisvcPath+"/v1.${sc}.example.com", "merge", `{"spec":{"versionPriority":20}}`),
			// the availability controller writes the status of a Local APIService
			kubectl("wait", "--for=condition=Available", "apiservice/v1.${sc}.example.com", "--timeout=5s"),
			get(apisvcPath+"/v1.${sc}.example.com/status")),
		sc("apisvc-apply-server-side", th,
			patch(apisvcPath+"/v1.${sc}.example.com?fieldManager=ctl", "apply", "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: v1.${sc}.example.com\nspec:\n  group: ${sc}.example.com\n  version: v1\n  groupPriorityMinimum: 100\n  versionPriority: 10\n"),
			kubectl("get", "apiservice", "v1.${sc}.example.com", "-o", "yaml", "--show-managed-fields")),
		sc("apisvc-kubectl-apply", th, mkns(),
			kubectlIn("apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: v1beta1.${sc}.example.com\nspec:\n  group: ${sc}.example.com\n  version: v1beta1\n  groupPriorityMinimum: 100\n  versionPriority: 10\n  insecureSkipTLSVerify: true\n  service:\n    namespace: ${ns}\n    name: api\n    port: 8443\n", "apply", "-f", "-"),
			kubectl("get", "apiservice", "v1beta1.${sc}.example.com", "-o", "jsonpath={.spec}")),
		sc("apisvc-delete", th, quiet(post(apisvcPath, apiService("v1", ""))), del(apisvcPath+"/v1.${sc}.example.com"),
			kubectl("delete", "apiservice", "v1.${sc}.example.com"), del(apisvcPath+"?labelSelector=rs%3D${sc}")),
	}
}

// The webhooks' rules name only the scenario's own (unserved) group: the
// reference calls the webhooks it holds, and a rule matching configmaps would
// make every other scenario's writes fail while it exists.
const vwc = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"${sc}","labels":{"rs":"${sc}"}},"webhooks":[{"name":"check.example.com","clientConfig":{"url":"https://hook.example.com/validate"},"sideEffects":"None","admissionReviewVersions":["v1"],"rules":[{"operations":["CREATE"],"apiGroups":["${sc}.example.com"],"apiVersions":["v1"],"resources":["widgets"]}]}]}`

const mwc = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"${sc}","labels":{"rs":"${sc}"}},"webhooks":[{"name":"mutate.example.com","clientConfig":{"service":{"namespace":"${ns}","name":"hook"}},"sideEffects":"NoneOnDryRun","admissionReviewVersions":["v1","v1beta1"],"rules":[{"operations":["CREATE","UPDATE"],"apiGroups":["${sc}.example.com"],"apiVersions":["*"],"resources":["*/*"]}]}]}`

const vap = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"${sc}","labels":{"rs":"${sc}"}},"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},"validations":[{"expression":"object.metadata.name.startsWith('ok')","message":"name must start with ok"}]}}`

const vapb = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"${sc}","labels":{"rs":"${sc}"}},"spec":{"policyName":"${sc}","validationActions":["Warn","Audit"]}}`

func admissionScenarios() []Scenario {
	const th = "admissionregistration"
	return []Scenario{
		sc("vwc-create-defaults", th, post(vwcPath, vwc), get(vwcPath+"/${sc}"), kubectl("get", "validatingwebhookconfiguration", "${sc}", "-o", "yaml")),
		sc("vwc-table", th, quiet(post(vwcPath, vwc)), kubectl("get", "validatingwebhookconfigurations", "-l", "rs=${sc}"),
			get(vwcPath+"?labelSelector=rs%3D${sc}", acceptTable)),
		sc("vwc-invalid-names", th,
			post(vwcPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"${sc}"},"webhooks":[{"name":"nodots","clientConfig":{"url":"https://h.example.com"},"sideEffects":"None","admissionReviewVersions":["v1"]}]}`),
			post(vwcPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"${sc}"},"webhooks":[{"name":"a.example.com","clientConfig":{"url":"https://h.example.com"},"sideEffects":"None","admissionReviewVersions":["v1"]},{"name":"a.example.com","clientConfig":{"url":"https://h.example.com"},"sideEffects":"None","admissionReviewVersions":["v1"]}]}`)),
		sc("vwc-invalid-required", th,
			post(vwcPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"${sc}"},"webhooks":[{"name":"a.example.com","clientConfig":{"url":"https://h.example.com"}}]}`),
			post(vwcPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"${sc}"},"webhooks":[{"name":"a.example.com","clientConfig":{},"sideEffects":"Some","admissionReviewVersions":["v9"]}]}`)),
		sc("vwc-invalid-client-config", th,
			post(vwcPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"${sc}"},"webhooks":[{"name":"a.example.com","clientConfig":{"url":"http://h.example.com/x"},"sideEffects":"None","admissionReviewVersions":["v1"]}]}`),
			post(vwcPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"${sc}"},"webhooks":[{"name":"a.example.com","clientConfig":{"url":"https://h.example.com","service":{"namespace":"n","name":"s"}},"sideEffects":"None","admissionReviewVersions":["v1"]}]}`),
			post(vwcPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"${sc}"},"webhooks":[{"name":"a.example.com","clientConfig":{"service":{"namespace":"n","name":"s","port":0,"path":"noslash"}},"sideEffects":"None","admissionReviewVersions":["v1"],"timeoutSeconds":31,"failurePolicy":"Maybe"}]}`)),
		sc("vwc-patch-update", th, quiet(post(vwcPath, vwc)),
			patch(vwcPath+"/${sc}", "json", `[{"op":"replace","path":"/webhooks/0/timeoutSeconds","value":5}]`),
			patch(vwcPath+"/${sc}", "strategic", `{"webhooks":[{"name":"check.example.com","failurePolicy":"Ignore"}]}`),
			patch(vwcPath+"/${sc}", "merge", `{"webhooks":[]}`)),
		sc("vwc-apply-delete", th,
			kubectlIn("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: ${sc}\nwebhooks:\n- name: a.example.com\n  clientConfig:\n    url: https://h.example.com\n  sideEffects: None\n  admissionReviewVersions: [v1]\n", "apply", "--server-side", "-f", "-", "-o", "yaml"),
			kubectl("delete", "validatingwebhookconfiguration", "${sc}"), del(vwcPath+"/${sc}")),
		sc("mwc-create-defaults", th, mkns(), post(mwcPath, mwc), kubectl("get", "mutatingwebhookconfiguration", "${sc}", "-o", "yaml")),
		sc("mwc-table", th, mkns(), quiet(post(mwcPath, mwc)), kubectl("get", "mutatingwebhookconfigurations", "-l", "rs=${sc}", "-o", "wide")),
		sc("mwc-invalid", th,
			post(mwcPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"${sc}"},"webhooks":[{"name":"m.example.com","clientConfig":{"url":"https://h.example.com"},"sideEffects":"None","admissionReviewVersions":["v1"],"reinvocationPolicy":"Always","matchPolicy":"Fuzzy","rules":[{"operations":["READ"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"],"scope":"Everywhere"}]}]}`),
			post(mwcPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"${sc}"},"webhooks":[{"name":"m.example.com","clientConfig":{"url":"https://h.example.com"},"sideEffects":"None","admissionReviewVersions":["v1"],"matchConditions":[{"name":"bad","expression":"object.("}]}]}`)),
		sc("mwc-list-delete-collection", th, mkns(), quiet(post(mwcPath, mwc)), get(mwcPath+"?labelSelector=rs%3D${sc}"),
			del(mwcPath+"?labelSelector=rs%3D${sc}"), get(mwcPath+"?labelSelector=rs%3D${sc}")),
		sc("vap-create-defaults", th, post(vapPath, vap), vapTypeChecked(), kubectl("get", "validatingadmissionpolicy", "${sc}", "-o", "yaml")),
		sc("vap-invalid", th,
			post(vapPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"${sc}"},"spec":{"validations":[{"expression":"true"}]}}`),
			post(vapPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"${sc}"},"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},"validations":[{"expression":"object.("}]}}`),
			post(vapPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"${sc}"},"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},"validations":[],"failurePolicy":"Sometimes"}}`)),
		sc("vap-table-status", th, quiet(post(vapPath, vap)), vapTypeChecked(), kubectl("get", "validatingadmissionpolicies", "-l", "rs=${sc}"),
			get(vapPath+"/${sc}/status"),
			patch(vapPath+"/${sc}/status", "merge", `{"status":{"observedGeneration":1}}`)),
		sc("vap-update-generation", th, quiet(post(vapPath, vap)), vapTypeChecked(),
			patch(vapPath+"/${sc}", "merge", `{"spec":{"validations":[{"expression":"true"}]}}`),
			patch(vapPath+"/${sc}", "merge", `{"metadata":{"labels":{"x":"y"}}}`)),
		sc("vapb-create-defaults", th, post(vapbPath, vapb), kubectl("get", "validatingadmissionpolicybinding", "${sc}", "-o", "yaml"),
			kubectl("get", "validatingadmissionpolicybindings", "-l", "rs=${sc}")),
		sc("vapb-invalid", th,
			post(vapbPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"${sc}"},"spec":{}}`),
			post(vapbPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"${sc}"},"spec":{"policyName":"p","validationActions":["Deny","Warn"]}}`),
			post(vapbPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"${sc}"},"spec":{"policyName":"p","validationActions":["Explode"]}}`)),
		sc("vapb-delete", th, quiet(post(vapbPath, vapb)), del(vapbPath+"/${sc}"), del(vapbPath+"/${sc}")),
	}
}

// vapTypeChecked waits until the policy's status is written: the
// reference's type-checking controller writes status.typeChecking and
// observedGeneration shortly after each spec change.
func vapTypeChecked() Step {
	return kubectl("wait", "--for=jsonpath={.status.observedGeneration}=1", "validatingadmissionpolicy/${sc}", "--timeout=5s")
}

const plBody = `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"${sc}","labels":{"rs":"${sc}"}},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Reject"}}}}`

const fsBody = `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"${sc}","labels":{"rs":"${sc}"}},"spec":{"priorityLevelConfiguration":{"name":"${sc}"},"matchingPrecedence":5000,"rules":[{"subjects":[{"kind":"User","user":{"name":"alice"}}],"resourceRules":[{"verbs":["get"],"apiGroups":[""],"resources":["configmaps"],"namespaces":["*"]}]}]}}`

func flowControlScenarios() []Scenario {
	const th = "flowcontrol"
	return []Scenario{
		sc("pl-create-defaults", th, post(plPath, plBody), kubectl("get", "prioritylevelconfiguration", "${sc}", "-o", "yaml")),
		sc("pl-queuing-defaults", th,
			post(plPath, `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"${sc}"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Queue"}}}}`)),
		sc("pl-invalid", th,
			post(plPath, `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"${sc}"},"spec":{"type":"Limited"}}`),
			post(plPath, `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"${sc}"},"spec":{"type":"Exempt","limited":{"nominalConcurrencyShares":5}}}`),
			post(plPath, `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"${sc}"},"spec":{"type":"Limited","limited":{"lendablePercent":200,"limitResponse":{"type":"Queue","queuing":{"queues":0,"handSize":100}}}}}`)),
		sc("pl-bootstrap", th, get(plPath+"/exempt"), get(plPath+"/catch-all"),
			kubectl("get", "prioritylevelconfigurations", "exempt", "catch-all")),
		sc("pl-table-list", th, quiet(post(plPath, plBody)), kubectl("get", "prioritylevelconfigurations", "-l", "rs=${sc}"),
			get(plPath+"?labelSelector=rs%3D${sc}", acceptTable), get(plPath+"?labelSelector=rs%3D${sc}")),
		sc("pl-patch-delete", th, quiet(post(plPath, plBody)),
			patch(plPath+"/${sc}", "merge", `{"spec":{"limited":{"nominalConcurrencyShares":7}}}`),
			patch(plPath+"/${sc}/status", "merge", `{"status":{"conditions":[{"type":"ConcurrencyShared","status":"True"}]}}`),
			del(plPath+"/${sc}"), del(plPath+"/${sc}")),
		sc("fs-create-defaults", th, quiet(post(plPath, plBody)), post(fsPath, fsBody),
			// the Dangling condition is written by a controller shortly after the create
			kubectl("wait", "--for=condition=Dangling=False", "flowschema/${sc}", "--timeout=5s"),
			kubectl("get", "flowschema", "${sc}", "-o", "yaml")),
		sc("fs-dangling", th, post(fsPath, fsBody), kubectl("wait", "--for=condition=Dangling", "flowschema/${sc}", "--timeout=5s"),
			get(fsPath+"/${sc}")),
		sc("fs-invalid", th,
			post(fsPath, `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"${sc}"},"spec":{"priorityLevelConfiguration":{"name":"x"},"matchingPrecedence":20000}}`),
			post(fsPath, `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"${sc}"},"spec":{"priorityLevelConfiguration":{"name":""},"distinguisherMethod":{"type":"ByColor"},"rules":[{"subjects":[{"kind":"Robot"}]}]}}`),
			post(fsPath, `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"${sc}"},"spec":{"priorityLevelConfiguration":{"name":"x"},"rules":[{"subjects":[{"kind":"User","user":{"name":"a"}}],"resourceRules":[{"verbs":[],"apiGroups":["*"],"resources":["*"]}]}]}}`)),
		sc("fs-bootstrap", th, get(fsPath+"/exempt"), get(fsPath+"/catch-all"), kubectl("get", "flowschemas", "exempt", "catch-all")),
		sc("fs-table-patch-delete", th, quiet(post(plPath, plBody)), quiet(post(fsPath, fsBody)),
			kubectl("get", "flowschemas", "-l", "rs=${sc}"),
			patch(fsPath+"/${sc}", "merge", `{"spec":{"matchingPrecedence":6000}}`),
			patch(fsPath+"/${sc}", "merge", `{"spec":{"matchingPrecedence":0}}`),
			del(fsPath+"?labelSelector=rs%3D${sc}"), get(fsPath+"?labelSelector=rs%3D${sc}")),
	}
}
