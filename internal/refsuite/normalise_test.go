package refsuite

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNormaliseText(t *testing.T) {
	n := normaliser{port: "16443", admin: "kubernetes-admin", home: "/tmp/h"}
	cases := []struct{ in, want string }{
		{`"creationTimestamp":"2026-11-24T04:47:00Z"`, `"creationTimestamp":"<time>"`},
		{`time: "2026-11-24T04:47:00.123456Z"`, `time: "<time>"`},
		{`"uid":"3f1c0a52-8a4e-4f7e-9d53-0c4b7c1e2f90"`, `"uid":"<uid>"`},
		{`"resourceVersion":"123"`, `"resourceVersion":"<rv>"`},
		{`"resourceVersion": "123"`, `"resourceVersion": "<rv>"`},
		{`resourceVersion: "77"`, `resourceVersion: "<rv>"`},
		{`\"resourceVersion\":\"286\"`, `\"resourceVersion\":\"<rv>\"`},
		{`\\\"resourceVersion\\\":\\\"286\\\"`, `\\\"resourceVersion\\\":\\\"<rv>\\\"`},
		{`"resourceVersion":""`, `"resourceVersion":""`},
		{`?watch=1&resourceVersion=42`, `?watch=1&resourceVersion=<rv>`},
		{`too old resource version: 1 (250)`, `too old resource version: <rv> (<rv>)`},
		{`the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (339)`,
			`the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (<rv>)`},
		// {"v":"meta.k8s.io/v1","rv":12,"start":"b\u0000"}
		{`"continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIsInN0YXJ0IjoiYlx1MDAwMCJ9"`, `"continue":"<continue start=b\u0000>"`},
		{`"continue":"notatoken"`, `"continue":"notatoken"`},
		{`https://127.0.0.1:16443/apis`, `https://127.0.0.1:<port>/apis`},
		{`https://127.0.0.1:16444/apis`, `https://127.0.0.1:16444/apis`},
		{`"username":"kubernetes-admin"`, `"username":"<admin>"`},
		{`X509SHA256=3789a19cecc0d180aa8d2480711409261f6da0ab9e5f5bd0e61fcad973da2cbd`, `X509SHA256=<fingerprint>`},
		{`"client-ca-file":"-----BEGIN CERTIFICATE-----\nMIIB\nAB==\n-----END CERTIFICATE-----\n"`, `"client-ca-file":"<pem CERTIFICATE>"`},
		{`"clusterIP":"10.96.12.7","x":"10.101.78.52","y":"10.112.0.1"`, `"clusterIP":"<cluster-ip>","x":"<cluster-ip>","y":"10.112.0.1"`},
		{`"nodePort":31080`, `"nodePort":<node-port>`},
		{`np   NodePort   80:31101/TCP`, `np   NodePort   80:<node-port>/TCP`},
		{`/openapi/v3/api/v1?hash=0123456789ABCDEF0123456789ABCDEF0123`, `/openapi/v3/api/v1?hash=<hash>`},
		{`rsgen-x7k2p created`, `rsgen-<suffix> created`},
		{`error: open /tmp/h/cache/x`, `error: open <home>/cache/x`},
	}
	for _, c := range cases {
		if got := n.text(c.in); got != c.want {
			t.Errorf("text(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestTableDescriptions: column descriptions of a Table, also inside a
// watch event, become <description>; an empty one stays, other fields and
// values are untouched.
func TestTableDescriptions(t *testing.T) {
	n := normaliser{}
	in := `{"kind":"Table","columnDefinitions":[{"name":"Name","description":"Name must be unique"},{"name":"X","description":""}],"rows":[{"cells":["description"]}]}`
	_, text := n.body([]byte(in), "", false, false)
	want := `{"kind":"Table","columnDefinitions":[{"name":"Name","description":"<description>"},{"name":"X","description":""}],"rows":[{"cells":["description"]}]}`
	if text != indentJSON(t, want) {
		t.Errorf("table\n%s\nwant\n%s", text, indentJSON(t, want))
	}
	_, text = n.body([]byte(`{"type":"ADDED","object":`+in+`}`), "", false, false)
	if text != indentJSON(t, `{"type":"ADDED","object":`+want+`}`) {
		t.Errorf("watch event\n%s", text)
	}
	other := `{"kind":"ConfigMap","columnDefinitions":[{"description":"kept"}]}`
	if _, text = n.body([]byte(other), "", false, false); text != indentJSON(t, other) {
		t.Errorf("not a table\n%s", text)
	}
}

func indentJSON(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(s), "", "  "); err != nil {
		t.Fatal(err)
	}
	return b.String() + "\n"
}

func TestNormaliseBody(t *testing.T) {
	n := normaliser{}
	form, text := n.body([]byte(`{"kind":"Table","rows":[{"cells":["a","5s","2m3s"]}]}`), "", false, false)
	if form != "(json, compact, no final newline)" {
		t.Errorf("form %q", form)
	}
	want := "{\n  \"kind\": \"Table\",\n  \"rows\": [\n    {\n      \"cells\": [\n        \"a\",\n        \"<age>\",\n        \"<age>\"\n      ]\n    }\n  ]\n}\n"
	if text != want {
		t.Errorf("text\n%s\nwant\n%s", text, want)
	}
	form, _ = n.body([]byte("{\"type\":\"ADDED\"}\n{\"type\":\"DELETED\"}\n"), "", false, false)
	if form != "(json stream of 2 values, compact)" {
		t.Errorf("stream form %q", form)
	}
	form, text = n.body([]byte("NAME   DATA   AGE\na      1      5s\nbb     1      12m\n"), "", true, false)
	if form != "(text)" || text != "NAME   DATA   AGE\na   1   <age>\nbb   1   <age>\n" {
		t.Errorf("table: %s %q", form, text)
	}
	form, text = n.body([]byte("k8s\x00\n\x02v1"), "", false, false)
	if form != "(protobuf)" || text != "k8s\\x00 envelope\n" {
		t.Errorf("protobuf: %s %q", form, text)
	}
}

func decodeOne(t *testing.T, s string) any {
	t.Helper()
	vals, ok := decodeStream([]byte(s))
	if !ok || len(vals) != 1 {
		t.Fatalf("not one JSON value: %s", s)
	}
	return vals[0]
}

func encode(v any) string {
	var b bytes.Buffer
	encodeOrdered(&b, v)
	return b.String()
}

func TestFilterDiscovery(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"kind":"APIGroupList","groups":[{"name":"apps"},{"name":"apiregistration.k8s.io"},{"name":"other.example.com"},{"name":"mine.example.com"},{"name":"wardle.io"}]}`,
			`{"kind":"APIGroupList","groups":[{"name":"apiregistration.k8s.io"},{"name":"mine.example.com"},{"name":"wardle.io"}]}`},
		{`{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods"},{"name":"configmaps"},{"name":"namespaces/finalize"},{"name":"pods/log"},{"name":"services/proxy"}]}`,
			`{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps"},{"name":"namespaces/finalize"},{"name":"services/proxy"}]}`},
		{`{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[{"name":"deployments"}]}`,
			`{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[{"name":"deployments"}]}`},
		{`{"kind":"APIGroupDiscoveryList","items":[{"metadata":{"name":""},"versions":[{"version":"v1","resources":[{"resource":"pods"},{"resource":"services"}]}]},{"metadata":{"name":"batch"}},{"metadata":{"name":"flowcontrol.apiserver.k8s.io"}}]}`,
			`{"kind":"APIGroupDiscoveryList","items":[{"metadata":{"name":""},"versions":[{"version":"v1","resources":[{"resource":"services"}]}]},{"metadata":{"name":"flowcontrol.apiserver.k8s.io"}}]}`},
		{`{"kind":"APIServiceList","items":[{"spec":{"group":"apps"}},{"spec":{"group":"mine.example.com"}},{"spec":{"group":""}}]}`,
			`{"kind":"APIServiceList","items":[{"spec":{"group":"mine.example.com"}},{"spec":{"group":""}}]}`},
	}
	for _, c := range cases {
		v := decodeOne(t, c.in)
		filterDiscovery(v, "mine")
		if got := encode(v); got != c.want {
			t.Errorf("filterDiscovery(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestFilterOpenAPI(t *testing.T) {
	in := `{"swagger":"2.0","paths":{"/api/v1/namespaces/{namespace}/pods":{"get":{"description":"list pods","responses":{"200":{"schema":{"$ref":"#/definitions/PodList"}}}}},` +
		`"/api/v1/watch/namespaces/{namespace}/configmaps":{"get":{"description":"watch","responses":{"200":{"schema":{"$ref":"#/definitions/Event"}}}}},` +
		`"/apis/apps/v1/":{"get":{}},"/logs/":{"get":{}},"/version/":{"get":{}}},` +
		`"definitions":{"Event":{"description":"an event","properties":{"object":{"$ref":"#/definitions/Raw"},"description":{"type":"string","description":""}}},"Raw":{"type":"object"},"PodList":{"type":"object"},"Unused":{"type":"string"}}}`
	want := `{"swagger":"2.0","paths":{"/api/v1/watch/namespaces/{namespace}/configmaps":{"get":{"description":"<description>","responses":{"200":{"schema":{"$ref":"#/definitions/Event"}}}}},"/version/":{"get":{}}},` +
		`"definitions":{"Event":{"description":"<description>","properties":{"object":{"$ref":"#/definitions/Raw"},"description":{"type":"string","description":""}}},"Raw":{"type":"object"}}}`
	v := decodeOne(t, in)
	if !filterOpenAPI(v) {
		t.Fatal("filterOpenAPI reported no change")
	}
	if got := encode(v); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// A group document that lost no path keeps every schema.
	v = decodeOne(t, `{"openapi":"3.0.0","paths":{"/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas":{}},"components":{"schemas":{"A":{"type":"string"}}}}`)
	filterOpenAPI(v)
	if got := encode(v); !strings.Contains(got, `"A":{"type":"string"}`) {
		t.Errorf("schema dropped: %s", got)
	}
	for p, keep := range map[string]bool{"api/v1": true, "apis/apps/v1": false, "apis/admissionregistration.k8s.io/v1": true,
		".well-known/openid-configuration": false, "/api/v1/namespaces/{name}/finalize": true, "/api/v1/nodes": false, "/api/v1/namespaces/{namespace}/services/{name}/proxy": true} {
		if keepAPIPath(p) != keep {
			t.Errorf("keepAPIPath(%q) = %v", p, !keep)
		}
	}
}

func TestBuildFactsAndRules(t *testing.T) {
	v := decodeOne(t, `{"major":"1","minor":"33","gitVersion":"v1.33.13","gitCommit":"abc","gitTreeState":"clean","buildDate":"x","goVersion":"go1.24","compiler":"gc","platform":"linux/amd64"}`)
	buildFacts(v)
	if got, want := encode(v), `{"major":"1","minor":"33","gitVersion":"<build>","gitCommit":"<build>","gitTreeState":"<build>","buildDate":"<build>","goVersion":"<build>","compiler":"gc","platform":"linux/amd64"}`; got != want {
		t.Errorf("buildFacts: %s", got)
	}
	v = decodeOne(t, `{"kind":"SelfSubjectRulesReview","status":{"resourceRules":[{"verbs":["get"]},{"verbs":["*"]}],"nonResourceRules":[{"verbs":["z"]},{"verbs":["a"]}]}}`)
	sortRules(v)
	if got, want := encode(v), `{"kind":"SelfSubjectRulesReview","status":{"resourceRules":[{"verbs":["*"]},{"verbs":["get"]}],"nonResourceRules":[{"verbs":["a"]},{"verbs":["z"]}]}}`; got != want {
		t.Errorf("sortRules: %s", got)
	}
}

func TestExplainDescriptions(t *testing.T) {
	in := "KIND:       Service\nVERSION:    v1\n\nFIELD: ports <[]ServicePort>\n\nDESCRIPTION:\n    The list of ports.\n    \n    More text.\n\nFIELDS:\n  appProtocol\t<string>\n    The application protocol.\n    \n    * a list\n      continued\n\n  protocol\t<string>\n  enum: SCTP, TCP, UDP\n    The IP protocol.\n\n"
	want := "KIND:       Service\nVERSION:    v1\n\nFIELD: ports <[]ServicePort>\n\nDESCRIPTION:\n    <description>\nFIELDS:\n  appProtocol\t<string>\n    <description>\n  protocol\t<string>\n  enum: SCTP, TCP, UDP\n    <description>"
	if got := explainDescriptions(in); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestDiff(t *testing.T) {
	if d := Diff("a", "b", "x\ny\n", "x\ny\n"); d != "" {
		t.Errorf("equal texts gave %q", d)
	}
	x := "1\n2\n3\n4\n5\n6\n7\n8\n9\n"
	y := "1\n2\n3\n4\nfive\n6\n7\n8\n9\n"
	want := "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
	if d := Diff("a", "b", x, y); d != want {
		t.Errorf("got\n%s\nwant\n%s", d, want)
	}
}

func TestKnownDifferences(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, KnownDifferencesFile), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("# comment\n\ncm-a the reason\ncm-b another one\n")
	known, err := ReadKnownDifferences(dir)
	if err != nil || len(known) != 2 || known["cm-a"] != "the reason" {
		t.Errorf("got %v, %v", known, err)
	}
	write("cm-a\n")
	if _, err := ReadKnownDifferences(dir); err == nil || !strings.Contains(err.Error(), "has no reason") {
		t.Errorf("missing reason: %v", err)
	}
	write("cm-a x\ncm-a y\n")
	if _, err := ReadKnownDifferences(dir); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("duplicate: %v", err)
	}
}

func TestCatalogue(t *testing.T) {
	all := Scenarios()
	if err := Validate(all); err != nil {
		t.Fatal(err)
	}
	if len(all) < 160 {
		t.Errorf("%d scenarios, want at least 160", len(all))
	}
	if err := Validate([]Scenario{{Name: "Bad_Name", Theme: "x", Steps: []Step{get("/")}}}); err == nil {
		t.Error("a bad name passed Validate")
	}
}

// Only the verbose health lines of the checks aggsim cannot have are
// dropped; aggsim's own checks, failures of other checks and look-alike
// lines stay.
func TestNormaliseAbsentHealthChecks(t *testing.T) {
	n := normaliser{}
	in := "[+]ping ok\n[+]poststarthook/rbac/bootstrap-roles ok\n[-]poststarthook/bootstrap-controller failed: reason withheld\n" +
		"[+]poststarthook/start-apiserver-admission-initializer excluded: ok\n[+]poststarthook/apiservice-registration-controller ok\n" +
		"[+]poststarthook/rbac/bootstrap-roles-extra ok\nx [+]poststarthook/bootstrap-controller ok\nlivez check passed\n"
	want := "[+]ping ok\n[+]poststarthook/apiservice-registration-controller ok\n" +
		"[+]poststarthook/rbac/bootstrap-roles-extra ok\nx [+]poststarthook/bootstrap-controller ok\nlivez check passed\n"
	if _, got := n.body([]byte(in), "/livez", false, false); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
