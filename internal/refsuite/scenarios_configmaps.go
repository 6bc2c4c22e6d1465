package refsuite

const cmPath = "/api/v1/namespaces/${ns}/configmaps"

const cmA = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"app":"x"}},"data":{"k":"v"}}`

func cmBody(name, labels, data string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","labels":{` + labels + `}},"data":{` + data + `}}`
}

const cmYAML = `apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  labels:
    app: x
data:
  k: v
`

func configMapScenarios() []Scenario {
	const th = "configmaps"
	seed := func() []Step {
		return []Step{mkns(),
			quiet(post(cmPath, cmBody("a", `"app":"x","tier":"1"`, `"k":"a"`))),
			quiet(post(cmPath, cmBody("b", `"app":"x","tier":"2"`, `"k":"b"`))),
			quiet(post(cmPath, cmBody("c", `"app":"y"`, `"k":"c"`))),
		}
	}
	with := func(steps ...Step) []Step { return append(seed(), steps...) }
	return []Scenario{
		sc("cm-create-json", th, mkns(), post(cmPath, cmA), get(cmPath+"/a")),
		sc("cm-create-kubectl", th, mkns(),
			kubectl("create", "configmap", "a", "-n", "${ns}", "--from-literal=k=v", "--from-literal=z=1"),
			kubectl("get", "configmap", "a", "-n", "${ns}", "-o", "yaml")),
		sc("cm-create-yaml-body", th, mkns(), post(cmPath, cmYAML, "Content-Type: application/yaml"), get(cmPath+"/a", acceptYAML)),
		sc("cm-create-exists", th, mkns(), quiet(post(cmPath, cmA)), post(cmPath, cmA),
			kubectlIn(cmYAML, "create", "-n", "${ns}", "-f", "-")),
		sc("cm-create-invalid-name", th, mkns(), post(cmPath, cmBody("Bad_Name", "", `"k":"v"`)),
			kubectl("create", "configmap", "UPPER", "-n", "${ns}")),
		sc("cm-create-invalid-key", th, mkns(), post(cmPath, cmBody("a", "", `"bad key!":"v"`))),
		sc("cm-create-invalid-label", th, mkns(), post(cmPath, cmBody("a", `"-bad":"x"`, `"k":"v"`)),
			post(cmPath, cmBody("b", `"ok":"bad value!"`, `"k":"v"`))),
		sc("cm-create-data-binarydata-overlap", th, mkns(),
			post(cmPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"},"binaryData":{"k":"dg=="}}`)),
		sc("cm-create-namespace-missing", th, post("/api/v1/namespaces/${ns}/configmaps", cmA),
			kubectl("create", "configmap", "a", "-n", "${ns}")),
		sc("cm-create-namespace-mismatch", th, mkns(),
			post(cmPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"other"}}`)),
		sc("cm-create-dryrun", th, mkns(), post(cmPath+"?dryRun=All", cmA), get(cmPath+"/a"),
			kubectl("create", "configmap", "b", "-n", "${ns}", "--from-literal=k=v", "--dry-run=server", "-o", "yaml"),
			kubectl("get", "configmap", "-n", "${ns}")),
		sc("cm-create-generatename", th, mkns(),
			post(cmPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"rsgen-"}}`, "Content-Type: application/json"),
			// the generated suffix is random: the normaliser writes rsgen-<suffix>
			kubectl("get", "configmaps", "-n", "${ns}", "-o", "name")),
		sc("cm-field-validation-strict", th, mkns(),
			post(cmPath+"?fieldValidation=Strict", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","bogus":1},"data":{"k":"v"},"extra":true}`),
			post(cmPath+"?fieldValidation=Strict", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"},"data":{"k":"v"},"data":{"k":"w"}}`)),
		sc("cm-field-validation-warn", th, mkns(),
			post(cmPath+"?fieldValidation=Warn", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"},"extra":true}`),
			post(cmPath+"?fieldValidation=Ignore", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"},"extra":true}`),
			post(cmPath+"?fieldValidation=Bogus", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`)),
		sc("cm-kubectl-validate-unknown", th, mkns(),
			kubectlIn("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\nbogus: 1\n", "create", "-n", "${ns}", "-f", "-"),
			kubectlIn("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\nbogus: 1\n", "create", "-n", "${ns}", "--validate=warn", "-f", "-")),
		sc("cm-get-yaml", th, with(kubectl("get", "configmap", "a", "-n", "${ns}", "-o", "yaml"))...),
		sc("cm-get-json", th, with(kubectl("get", "configmap", "b", "-n", "${ns}", "-o", "json"))...),
		sc("cm-get-notfound", th, mkns(), get(cmPath+"/nope"), kubectl("get", "configmap", "nope", "-n", "${ns}")),
		sc("cm-get-table", th, with(kubectl("get", "configmaps", "-n", "${ns}"),
			kubectl("get", "configmaps", "-n", "${ns}", "--show-labels"),
			kubectl("get", "configmaps", "-n", "${ns}", "-o", "wide"),
			kubectl("get", "configmap", "a", "-n", "${ns}", "-o", "name"))...),
		sc("cm-table-http", th, with(get(cmPath, acceptTable), get(cmPath+"/a", acceptTable),
			get(cmPath+"?includeObject=Object", acceptTable))...),
		sc("cm-list-json", th, with(get(cmPath))...),
		sc("cm-list-label-selector", th, with(get(cmPath+"?labelSelector=app%3Dx"), get(cmPath+"?labelSelector=app+in+(x,y),tier!%3D2"),
			kubectl("get", "cm", "-n", "${ns}", "-l", "tier", "-o", "name"),
			kubectl("get", "cm", "-n", "${ns}", "-l", "!tier", "-o", "name"))...),
		sc("cm-list-bad-label-selector", th, mkns(), get(cmPath+"?labelSelector=app%3D%3D%3Dx"), get(cmPath+"?labelSelector=a+in+b"),
			kubectl("get", "cm", "-n", "${ns}", "-l", "bad key=x")),
		sc("cm-list-field-selector", th, with(get(cmPath+"?fieldSelector=metadata.name%3Db"),
			get(cmPath+"?fieldSelector=metadata.name!%3Db,metadata.namespace%3D${ns}"),
			kubectl("get", "cm", "-n", "${ns}", "--field-selector", "metadata.name=c", "-o", "name"))...),
		sc("cm-list-bad-field-selector", th, mkns(), get(cmPath+"?fieldSelector=data.k%3Dv"), get(cmPath+"?fieldSelector=metadata.name"),
			kubectl("get", "cm", "-n", "${ns}", "--field-selector", "data.k=v")),
		sc("cm-list-limit-continue", th, with(
			save(get(cmPath+"?limit=2"), "cont", "metadata.continue"),
			get(cmPath+"?limit=2&continue=${cont}"),
			kubectl("get", "cm", "-n", "${ns}", "--chunk-size=1", "-o", "name"))...),
		sc("cm-list-bad-continue", th, mkns(), get(cmPath+"?limit=1&continue=notatoken"),
			get(cmPath+"?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhIn0")),
		sc("cm-list-all-namespaces-selector", th, mkns(),
			quiet(post(cmPath, cmBody("a", `"rs":"${sc}","tier":"1"`, ""))), quiet(post(cmPath, cmBody("b", `"rs":"${sc}"`, ""))),
			get("/api/v1/configmaps?labelSelector=rs%3D${sc},tier+notin+(9)"),
			kubectl("get", "cm", "-A", "-l", "rs=${sc}")),
		sc("cm-list-resourceversion-zero", th, with(get(cmPath+"?resourceVersion=0&labelSelector=app%3Dy"),
			get(cmPath+"?resourceVersion=0&resourceVersionMatch=NotOlderThan&labelSelector=app%3Dy"),
			get(cmPath+"?resourceVersionMatch=Exact"))...),
		sc("cm-update-put", th, mkns(), save(post(cmPath, cmA), "rv", "metadata.resourceVersion"),
			put(cmPath+"/a", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"${rv}"},"data":{"k":"w"}}`),
			put(cmPath+"/a", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"${rv}"},"data":{"k":"stale"}}`)),
		sc("cm-update-no-rv", th, mkns(), quiet(post(cmPath, cmA)),
			put(cmPath+"/a", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"unconditional"}}`),
			put(cmPath+"/nope", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"nope"},"data":{"k":"create-on-update"}}`),
			put(cmPath+"/a", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other"}}`)),
		sc("cm-replace-kubectl", th, mkns(), quiet(post(cmPath, cmA)),
			kubectlIn("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: replaced\n", "replace", "-n", "${ns}", "-f", "-", "-o", "yaml")),
		sc("cm-patch-merge", th, mkns(), quiet(post(cmPath, cmA)),
			patch(cmPath+"/a", "merge", `{"data":{"k":null,"n":"1"},"metadata":{"labels":{"m":"y"}}}`),
			kubectl("patch", "cm", "a", "-n", "${ns}", "--type=merge", "-p", `{"data":{"z":"2"}}`)),
		sc("cm-patch-json", th, mkns(), quiet(post(cmPath, cmA)),
			patch(cmPath+"/a", "json", `[{"op":"add","path":"/data/n","value":"1"},{"op":"replace","path":"/data/k","value":"r"}]`),
			patch(cmPath+"/a", "json", `[{"op":"test","path":"/data/k","value":"wrong"}]`),
			patch(cmPath+"/a", "json", `[{"op":"remove","path":"/data/missing"}]`),
			kubectl("patch", "cm", "a", "-n", "${ns}", "--type=json", "-p", `[{"op":"add","path":"/metadata/annotations","value":{"a":"b"}}]`)),
		sc("cm-patch-strategic", th, mkns(), quiet(post(cmPath, cmA)),
			patch(cmPath+"/a", "strategic", `{"data":{"s":"1"},"metadata":{"labels":{"app":null}}}`),
			kubectl("patch", "cm", "a", "-n", "${ns}", "-p", `{"data":{"t":"2"}}`)),
		sc("cm-patch-bad-bodies", th, mkns(), quiet(post(cmPath, cmA)),
			patch(cmPath+"/a", "merge", `{"data":`),
			patch(cmPath+"/a", "json", `{"op":"add"}`),
			patch(cmPath+"/a", "strategic", `[1]`),
			patch(cmPath+"/a", "application/xml", `<x/>`),
			patch(cmPath+"/a", "merge", `{"data":{"k":1}}`)),
		sc("cm-patch-notfound", th, mkns(), patch(cmPath+"/nope", "merge", `{"data":{"k":"v"}}`),
			kubectl("patch", "cm", "nope", "-n", "${ns}", "-p", `{"data":{"k":"v"}}`)),
		sc("cm-patch-dryrun", th, mkns(), quiet(post(cmPath, cmA)),
			patch(cmPath+"/a?dryRun=All", "merge", `{"data":{"dry":"run"}}`), get(cmPath+"/a")),
		sc("cm-apply-client-side", th, mkns(),
			kubectlIn(cmYAML, "apply", "-n", "${ns}", "-f", "-"),
			kubectlIn("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v2\n", "apply", "-n", "${ns}", "-f", "-"),
			kubectl("get", "cm", "a", "-n", "${ns}", "-o", "yaml")),
		sc("cm-apply-server-side", th, mkns(),
			patch(cmPath+"/a?fieldManager=alice", "apply", cmYAML),
			patch(cmPath+"/a?fieldManager=alice", "apply", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n  k2: w\n"),
			kubectlIn("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  x: \"y\"\n", "apply", "--server-side", "-n", "${ns}", "-f", "-"),
			kubectl("get", "cm", "b", "-n", "${ns}", "-o", "yaml", "--show-managed-fields")),
		sc("cm-apply-conflict", th, mkns(),
			quiet(patch(cmPath+"/a?fieldManager=alice", "apply", cmYAML)),
			patch(cmPath+"/a?fieldManager=bob", "apply", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: bob\n"),
			patch(cmPath+"/a?fieldManager=bob&force=true", "apply", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: bob\n"),
			kubectlIn("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: carol\n", "apply", "--server-side", "--field-manager=carol", "-n", "${ns}", "-f", "-"),
			kubectlIn("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: carol\n", "apply", "--server-side", "--force-conflicts", "--field-manager=carol", "-n", "${ns}", "-f", "-", "-o", "yaml")),
		sc("cm-apply-errors", th, mkns(),
			patch(cmPath+"/a", "apply", cmYAML),
			patch(cmPath+"/a?fieldManager=x&force=true", "apply", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n"),
			patch(cmPath+"/a?fieldManager=x", "apply", "kind: ConfigMap\nmetadata:\n  name: a\n"),
			patch(cmPath+"/a?fieldManager=x", "apply", ": not yaml :")),
		sc("cm-label-annotate", th, mkns(), quiet(post(cmPath, cmA)),
			kubectl("label", "cm", "a", "-n", "${ns}", "color=blue"),
			kubectl("label", "cm", "a", "-n", "${ns}", "color=red"),
			kubectl("label", "cm", "a", "-n", "${ns}", "color=red", "--overwrite"),
			kubectl("annotate", "cm", "a", "-n", "${ns}", "note=hi"),
			kubectl("label", "cm", "a", "-n", "${ns}", "app-"),
			kubectl("get", "cm", "a", "-n", "${ns}", "-o", "jsonpath={.metadata.labels} {.metadata.annotations}")),
		sc("cm-immutable", th, mkns(),
			post(cmPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"immutable":true,"data":{"k":"v"}}`),
			patch(cmPath+"/a", "merge", `{"data":{"k":"w"}}`),
			patch(cmPath+"/a", "merge", `{"immutable":false}`),
			patch(cmPath+"/a", "merge", `{"metadata":{"labels":{"ok":"yes"}}}`)),
		sc("cm-delete", th, mkns(), quiet(post(cmPath, cmA)), del(cmPath+"/a"), del(cmPath+"/a"), get(cmPath+"/a")),
		sc("cm-delete-kubectl", th, with(kubectl("delete", "cm", "a", "-n", "${ns}"),
			kubectl("delete", "cm", "-n", "${ns}", "-l", "app=x"),
			kubectl("delete", "cm", "nope", "-n", "${ns}"),
			kubectl("delete", "cm", "nope", "-n", "${ns}", "--ignore-not-found"),
			kubectl("get", "cm", "-n", "${ns}", "-o", "name"))...),
		sc("cm-delete-preconditions", th, mkns(), quiet(post(cmPath, cmA)),
			request("DELETE", cmPath+"/a", `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}`, "Content-Type: application/json"),
			request("DELETE", cmPath+"/a", `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"resourceVersion":"1"}}`, "Content-Type: application/json"),
			del(cmPath+"/a?dryRun=All"),
			get(cmPath+"/a")),
		sc("cm-deletecollection", th, with(del(cmPath+"?labelSelector=app%3Dx"), get(cmPath), del(cmPath+"?labelSelector=%3D%3D"))...),
		sc("cm-finalizers", th, mkns(),
			post(cmPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","finalizers":["example.com/hold"]}}`),
			del(cmPath+"/a"), get(cmPath+"/a"), del(cmPath+"/a"),
			patch(cmPath+"/a", "merge", `{"metadata":{"finalizers":["example.com/hold","example.com/more"]}}`),
			patch(cmPath+"/a", "merge", `{"metadata":{"finalizers":null}}`), get(cmPath+"/a")),
		sc("cm-describe", th, with(kubectl("describe", "cm", "a", "-n", "${ns}"))...),
		sc("cm-protobuf-and-yaml", th, with(get(cmPath+"/a", acceptProtobuf), get(cmPath+"/a", acceptYAML),
			get(cmPath+"/nope", acceptYAML), get(cmPath+"/a?pretty=true"),
			get(cmPath+"/a", "Accept: application/json, */*"))...),
		sc("cm-large-body", th, mkns(),
			post(cmPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"k":"`+repeat("x", 1100000)+`"}}`),
			post(cmPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"huge"},"data":{"k":"`+repeat("x", 3200000)+`"}}`)),
	}
}

func repeat(s string, n int) string {
	b := make([]byte, 0, n*len(s))
	for range n {
		b = append(b, s...)
	}
	return string(b)
}
