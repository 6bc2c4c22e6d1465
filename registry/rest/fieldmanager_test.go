package rest

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// The field sets an apply configuration owns: leaves, keyed list elements
// (with "."), set-list values, atomic lists as one field; never apiVersion,
// kind or server-set metadata; status only through /status.
func TestAppliedFieldSet(t *testing.T) {
	mk := map[string]string{"spec.ports": "port", "status.conditions": "type", "metadata.finalizers": ""}
	tests := []struct {
		name, sub, cfg, want string
	}{
		{"scalars and metadata", "",
			`{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"a","namespace":"n","uid":"u","resourceVersion":"3","labels":{"x":"1"},"annotations":{"a":"b"}},"spec":{"size":1,"color":"blue"}}`,
			`{"f:metadata":{"f:annotations":{"f:a":{}},"f:labels":{"f:x":{}}},"f:spec":{"f:color":{},"f:size":{}}}`},
		{"keyed list in numeric key order", "",
			`{"spec":{"ports":[{"port":443,"name":"https"},{"port":80}]}}`,
			`{"f:spec":{"f:ports":{"k:{\"port\":80}":{".":{},"f:port":{}},"k:{\"port\":443}":{".":{},"f:name":{},"f:port":{}}}}}`},
		{"list without merge key is atomic", "",
			`{"spec":{"tags":["a","b"]}}`,
			`{"f:spec":{"f:tags":{}}}`},
		{"set of scalars", "",
			`{"metadata":{"finalizers":["b","a"]}}`,
			`{"f:metadata":{"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}}}}`},
		{"status reset, null and empty map own nothing", "",
			`{"metadata":{"labels":{}},"spec":{"color":null,"size":2},"status":{"conditions":[{"type":"Ready"}]}}`,
			`{"f:spec":{"f:size":{}}}`},
		{"status subresource owns only status", "status",
			`{"metadata":{"labels":{"x":"1"}},"spec":{"size":2},"status":{"conditions":[{"type":"Ready","status":"True"}]}}`,
			`{"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:status":{},"f:type":{}}}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var cfg map[string]any
			if err := unmarshalNumber([]byte(tc.cfg), &cfg); err != nil {
				t.Fatal(err)
			}
			got := ownable(appliedFieldSet(cfg, mk), tc.sub, true).fieldsV1()
			if string(got) != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
			// FieldsV1 round-trips.
			s, err := parseFieldsV1(got)
			if err != nil || string(s.fieldsV1()) != tc.want {
				t.Errorf("round trip: %s %v", s.fieldsV1(), err)
			}
		})
	}
}

func TestPathString(t *testing.T) {
	for _, tc := range []struct {
		path []string
		want string
	}{
		{[]string{"f:spec", "f:versionPriority"}, ".spec.versionPriority"},
		{[]string{"f:status", "f:conditions", `k:{"type":"Available"}`, "f:status"}, `.status.conditions[type="Available"].status`},
		{[]string{"f:spec", "f:ports", `k:{"port":80,"protocol":"TCP"}`}, `.spec.ports[port=80,protocol="TCP"]`},
		{[]string{"f:metadata", "f:finalizers", `v:"x"`}, `.metadata.finalizers[="x"]`},
	} {
		if got := pathString(tc.path); got != tc.want {
			t.Errorf("pathString(%q) = %s; want %s", tc.path, got, tc.want)
		}
	}
}

// apiServiceAPI serves APIServices over a memory store.
func apiServiceAPI(t *testing.T) *API {
	t.Helper()
	st := storage.NewMemory()
	t.Cleanup(func() { st.Close() })
	a := NewAPI(st, []registry.Strategy{registry.APIServiceStrategy{Now: func() time.Time { return testNow }}}, registry.StoreOptions{Clock: func() time.Time { return testNow }})
	t.Cleanup(a.Shutdown)
	return a
}

// The entries of a create (Update) and of an apply match those a real
// kube-apiserver 1.33 recorded for the same bodies
// (../shared/testdata/kube-1.33/d-validation/vp-1000.json and
// e-table/table-single-unavailable.json, without caBundle): an Update
// owns the added spec.service map ("."), an Apply only its leaves.
func TestManagedFieldsMatchCapture(t *testing.T) {
	a := apiServiceAPI(t)
	const apis = "/apis/apiregistration.k8s.io/v1/apiservices"
	body := `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.valid.example.com"},` +
		`"spec":{"group":"valid.example.com","version":"v1","groupPriorityMinimum":1000,"versionPriority":1000,"service":{"namespace":"wardle","name":"api","port":8443}}}`
	w := do(t, a, "POST", apis, "application/json", body, "User-Agent", "curl/8.5.0")
	if w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	wantUpdate := `{"f:spec":{"f:group":{},"f:groupPriorityMinimum":{},"f:service":{".":{},"f:name":{},"f:namespace":{},"f:port":{}},"f:version":{},"f:versionPriority":{}}}`
	if got := managedFieldsOf(t, w); !reflect.DeepEqual(got, []string{"curl Update apiregistration.k8s.io/v1 2026-11-21T23:54:47Z  " + wantUpdate}) {
		t.Errorf("create: managedFields %q", got)
	}
	cfg := "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: v1.applied.example.com\nspec:\n  group: applied.example.com\n  version: v1\n" +
		"  groupPriorityMinimum: 1000\n  versionPriority: 15\n  service:\n    namespace: wardle\n    name: api\n    port: 443\n"
	w = do(t, a, "PATCH", apis+"/v1.applied.example.com?fieldManager=kubectl", PatchApply, cfg)
	if w.Code != 201 {
		t.Fatalf("apply: %d %s", w.Code, w.Body)
	}
	wantApply := `{"f:spec":{"f:group":{},"f:groupPriorityMinimum":{},"f:service":{"f:name":{},"f:namespace":{},"f:port":{}},"f:version":{},"f:versionPriority":{}}}`
	if got := managedFieldsOf(t, w); !reflect.DeepEqual(got, []string{"kubectl Apply apiregistration.k8s.io/v1 2026-11-21T23:54:47Z  " + wantApply}) {
		t.Errorf("apply: managedFields %q", got)
	}
}

// managedFieldsOf lists the managedFields of the object in a response as
// "manager operation apiVersion time subresource fieldsV1", in order.
func managedFieldsOf(t *testing.T, w *httptest.ResponseRecorder) []string {
	t.Helper()
	var obj struct {
		Metadata meta.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &obj); err != nil {
		t.Fatalf("decode %s: %v", w.Body, err)
	}
	out := []string{}
	for _, e := range obj.Metadata.ManagedFields {
		ts := ""
		if e.Time != nil {
			ts = e.Time.Format(time.RFC3339)
		}
		if e.FieldsType != "FieldsV1" {
			t.Errorf("fieldsType %q", e.FieldsType)
		}
		var fields bytes.Buffer
		if err := json.Compact(&fields, e.FieldsV1); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Join([]string{e.Manager, e.Operation, e.APIVersion, ts, e.Subresource, fields.String()}, " "))
	}
	return out
}

// fieldsByManager maps "manager/operation[/subresource]" to fieldsV1.
func fieldsByManager(t *testing.T, w *httptest.ResponseRecorder) map[string]string {
	t.Helper()
	var obj struct {
		Metadata meta.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &obj); err != nil {
		t.Fatalf("decode %s: %v", w.Body, err)
	}
	out := map[string]string{}
	for _, e := range obj.Metadata.ManagedFields {
		k := e.Manager + "/" + e.Operation
		if e.Subresource != "" {
			k += "/" + e.Subresource
		}
		var fields bytes.Buffer
		if err := json.Compact(&fields, e.FieldsV1); err != nil {
			t.Fatal(err)
		}
		out[k] = fields.String()
	}
	return out
}

// step is one request of an ownership scenario on widget "w".
type step struct {
	method, sub, ct, query, ua, body string
}

func applyStep(manager, body string) step {
	return step{method: "PATCH", ct: PatchApply, query: "fieldManager=" + manager, body: body}
}

func forceStep(manager, body string) step {
	s := applyStep(manager, body)
	s.query += "&force=true"
	return s
}

func createStep(ua, body string) step {
	return step{method: "POST", ct: "application/json", ua: ua, body: body}
}

func mergeStep(ua, sub, body string) step {
	return step{method: "PATCH", sub: sub, ct: PatchMerge, ua: ua, body: body}
}

// run sends the steps; all but the last must succeed.
func (s step) run(t *testing.T, a *API) *httptest.ResponseRecorder {
	t.Helper()
	path := widgets
	if s.method != "POST" {
		path += "/w"
		if s.sub != "" {
			path += "/" + s.sub
		}
	}
	if s.query != "" {
		path += "?" + s.query
	}
	return do(t, a, s.method, path, s.ct, s.body, "User-Agent", s.ua)
}

func runSteps(t *testing.T, steps []step) *httptest.ResponseRecorder {
	t.Helper()
	a, _ := testAPI(t)
	var w *httptest.ResponseRecorder
	for i, s := range steps {
		w = s.run(t, a)
		if i < len(steps)-1 && w.Code >= 300 {
			t.Fatalf("step %d: %d %s", i, w.Code, w.Body)
		}
	}
	return w
}

const widgetHead = "apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"

func created(ua string) step {
	return createStep(ua, `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"app":"w"}},"spec":{"size":1,"color":"blue"}}`)
}

// Conflicts: an Apply that changes a field another manager (Apply or
// Update) owns fails with 409 and upstream's message and causes, unless
// forced; applying the value already there shares the field.
func TestApplyConflicts(t *testing.T) {
	tests := []struct {
		name       string
		steps      []step
		wantCode   int
		wantMsg    string
		wantCauses []meta.StatusCause
		wantFields map[string]string // on success
	}{
		{
			name: "apply vs apply",
			steps: []step{
				applyStep("a", widgetHead+"spec:\n  size: 2\n"),
				applyStep("b", widgetHead+"spec:\n  size: 3\n"),
			},
			wantCode:   409,
			wantMsg:    `Apply failed with 1 conflict: conflict with "a": .spec.size`,
			wantCauses: []meta.StatusCause{{Reason: "FieldManagerConflict", Message: `conflict with "a"`, Field: ".spec.size"}},
		},
		{
			name: "apply vs update",
			steps: []step{
				created("creator/1.0 (linux/amd64)"),
				applyStep("a", widgetHead+"spec:\n  size: 5\n"),
			},
			wantCode:   409,
			wantMsg:    `Apply failed with 1 conflict: conflict with "creator" using toys.example.com/v1: .spec.size`,
			wantCauses: []meta.StatusCause{{Reason: "FieldManagerConflict", Message: `conflict with "creator" using toys.example.com/v1`, Field: ".spec.size"}},
		},
		{
			name: "same value is shared",
			steps: []step{
				created("creator"),
				applyStep("a", widgetHead+"spec:\n  size: 1\n"),
			},
			wantCode: 200,
			wantFields: map[string]string{
				"a/Apply":        `{"f:spec":{"f:size":{}}}`,
				"creator/Update": `{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:color":{},"f:size":{}}}`,
			},
		},
		{
			name: "force moves the field",
			steps: []step{
				applyStep("a", widgetHead+"spec:\n  size: 2\n  color: red\n"),
				forceStep("b", widgetHead+"spec:\n  size: 3\n"),
			},
			wantCode: 200,
			wantFields: map[string]string{
				"a/Apply": `{"f:spec":{"f:color":{}}}`,
				"b/Apply": `{"f:spec":{"f:size":{}}}`,
			},
		},
		{
			name: "force takes every field of a manager",
			steps: []step{
				created("creator"),
				forceStep("a", widgetHead+"metadata:\n  name: w\n  labels:\n    app: x\nspec:\n  size: 9\n  color: red\n"),
			},
			wantCode: 200,
			wantFields: map[string]string{
				"a/Apply": `{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:color":{},"f:size":{}}}`,
				// The labels map itself stays with creator, which added it.
				"creator/Update": `{"f:metadata":{"f:labels":{}}}`,
			},
		},
		{
			name: "several conflicts and managers",
			steps: []step{
				applyStep("a", widgetHead+"spec:\n  size: 2\n  color: red\n"),
				mergeStep("editor", "", `{"spec":{"color":"green"}}`),
				applyStep("b", widgetHead+"spec:\n  size: 3\n  color: black\n"),
			},
			wantCode: 409,
			wantMsg:  "Apply failed with 2 conflicts: conflicts with \"a\":\n- .spec.size\nconflicts with \"editor\" using toys.example.com/v1:\n- .spec.color",
			wantCauses: []meta.StatusCause{
				{Reason: "FieldManagerConflict", Message: `conflict with "a"`, Field: ".spec.size"},
				{Reason: "FieldManagerConflict", Message: `conflict with "editor" using toys.example.com/v1`, Field: ".spec.color"},
			},
		},
		{
			name: "two conflicts with one manager",
			steps: []step{
				applyStep("a", widgetHead+"spec:\n  size: 2\n  color: red\n"),
				applyStep("b", widgetHead+"spec:\n  size: 3\n  color: black\n"),
			},
			wantCode: 409,
			wantMsg:  "Apply failed with 2 conflicts: conflicts with \"a\":\n- .spec.color\n- .spec.size",
			wantCauses: []meta.StatusCause{
				{Reason: "FieldManagerConflict", Message: `conflict with "a"`, Field: ".spec.color"},
				{Reason: "FieldManagerConflict", Message: `conflict with "a"`, Field: ".spec.size"},
			},
		},
		{
			name: "keyed list element field",
			steps: []step{
				applyStep("a", widgetHead+"spec:\n  ports:\n  - port: 80\n    name: http\n"),
				applyStep("b", widgetHead+"spec:\n  ports:\n  - port: 80\n    name: web\n"),
			},
			wantCode:   409,
			wantMsg:    `Apply failed with 1 conflict: conflict with "a": .spec.ports[port=80].name`,
			wantCauses: []meta.StatusCause{{Reason: "FieldManagerConflict", Message: `conflict with "a"`, Field: ".spec.ports[port=80].name"}},
		},
		{
			name: "status subresource manager",
			steps: []step{
				created("creator"),
				mergeStep("ctl", "status", `{"status":{"conditions":[{"type":"Ready","status":"True"}]}}`),
				{method: "PATCH", sub: "status", ct: PatchApply, query: "fieldManager=b", body: widgetHead + "status:\n  conditions:\n  - type: Ready\n    status: \"False\"\n"},
			},
			wantCode:   409,
			wantMsg:    `Apply failed with 1 conflict: conflict with "ctl" with subresource "status" using toys.example.com/v1: .status.conditions[type="Ready"].status`,
			wantCauses: []meta.StatusCause{{Reason: "FieldManagerConflict", Message: `conflict with "ctl" with subresource "status" using toys.example.com/v1`, Field: `.status.conditions[type="Ready"].status`}},
		},
		{
			name: "status of the main resource does not conflict",
			steps: []step{
				created("creator"),
				mergeStep("ctl", "status", `{"status":{"conditions":[{"type":"Ready","status":"True"}]}}`),
				applyStep("b", widgetHead+"status:\n  conditions:\n  - type: Ready\n    status: \"False\"\n"),
			},
			wantCode: 200,
			wantFields: map[string]string{
				"creator/Update":    `{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:color":{},"f:size":{}}}`,
				"ctl/Update/status": `{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"Ready\"}":{".":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}}}}`,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := runSteps(t, tc.steps)
			if w.Code != tc.wantCode {
				t.Fatalf("code %d; want %d: %s", w.Code, tc.wantCode, w.Body)
			}
			if tc.wantCode != 200 {
				st := statusOf(t, w)
				if st.Message != tc.wantMsg || st.Reason != "Conflict" || st.Status != "Failure" || st.Code != 409 {
					t.Errorf("status %d %s %s\n%s\nwant message\n%s", st.Code, st.Status, st.Reason, st.Message, tc.wantMsg)
				}
				if st.Details == nil || !reflect.DeepEqual(st.Details.Causes, tc.wantCauses) {
					t.Errorf("details %+v; want causes %+v", st.Details, tc.wantCauses)
				}
				return
			}
			if got := fieldsByManager(t, w); !reflect.DeepEqual(got, tc.wantFields) {
				t.Errorf("managedFields\n got %q\nwant %q", got, tc.wantFields)
			}
		})
	}
}

// Updates: the manager of a create, update or patch owns the fields it
// added or changed, taking them from other managers; removed fields leave
// every manager; a write that changes nothing records nothing.
func TestUpdateOwnership(t *testing.T) {
	a, _ := testAPI(t)
	w := created("creator/1.0").run(t, a)
	if got, want := fieldsByManager(t, w), map[string]string{
		"creator/Update": `{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:color":{},"f:size":{}}}`,
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("create: %q; want %q", got, want)
	}
	w = mergeStep("kubectl-patch/v1.33.0", "", `{"metadata":{"labels":{"app":null,"tier":"web"}},"spec":{"color":"red"}}`).run(t, a)
	if got, want := fieldsByManager(t, w), map[string]string{
		"creator/Update":       `{"f:metadata":{"f:labels":{}},"f:spec":{"f:size":{}}}`,
		"kubectl-patch/Update": `{"f:metadata":{"f:labels":{"f:tier":{}}},"f:spec":{"f:color":{}}}`,
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("patch: %q; want %q", got, want)
	}
	rv := resourceVersionOf(t, w)
	// A patch that changes nothing by a new manager records no entry.
	w = mergeStep("other", "", `{"spec":{"color":"red"}}`).run(t, a)
	if got := fieldsByManager(t, w); len(got) != 2 || resourceVersionOf(t, w) != rv {
		t.Errorf("no-op patch: %q rv %s -> %s", got, rv, resourceVersionOf(t, w))
	}
	// Order: Apply entries first, then by time, manager.
	w = applyStep("z-apply", widgetHead+"spec:\n  size: 1\n").run(t, a)
	var order []string
	for _, e := range managedFieldsOf(t, w) {
		order = append(order, strings.Fields(e)[0])
	}
	if want := []string{"z-apply", "creator", "kubectl-patch"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order %q; want %q", order, want)
	}
}

func resourceVersionOf(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var obj struct {
		Metadata meta.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &obj); err != nil {
		t.Fatal(err)
	}
	return obj.Metadata.ResourceVersion
}

// Pruning: fields a manager applied before and omits now are removed
// unless another manager owns them.
func TestApplyPrunes(t *testing.T) {
	tests := []struct {
		name       string
		steps      []step
		wantSpec   string
		wantLabels string
	}{
		{
			name: "omitted field removed",
			steps: []step{
				applyStep("a", widgetHead+"spec:\n  size: 2\n  color: red\n"),
				applyStep("a", widgetHead+"spec:\n  size: 2\n"),
			},
			wantSpec: `{"size":2}`, wantLabels: `null`,
		},
		{
			name: "field another applier shares stays",
			steps: []step{
				applyStep("a", widgetHead+"spec:\n  size: 2\n  color: red\n"),
				applyStep("b", widgetHead+"spec:\n  color: red\n"),
				applyStep("a", widgetHead+"spec:\n  size: 2\n"),
			},
			wantSpec: `{"size":2,"color":"red"}`, wantLabels: `null`,
		},
		{
			name: "field an updater shares stays",
			steps: []step{
				created("creator"),
				applyStep("a", widgetHead+"spec:\n  size: 1\n  color: blue\n"),
				applyStep("a", widgetHead+"spec:\n  size: 1\n"),
			},
			wantSpec: `{"size":1,"color":"blue"}`, wantLabels: `{"app":"w"}`,
		},
		{
			name: "keyed list element removed",
			steps: []step{
				applyStep("a", widgetHead+"spec:\n  ports:\n  - port: 80\n  - port: 443\n    name: https\n"),
				applyStep("a", widgetHead+"spec:\n  ports:\n  - port: 80\n"),
			},
			wantSpec: `{"ports":[{"port":80}]}`, wantLabels: `null`,
		},
		{
			name: "element field owned by another manager stays",
			steps: []step{
				applyStep("a", widgetHead+"spec:\n  ports:\n  - port: 80\n  - port: 443\n"),
				applyStep("b", widgetHead+"spec:\n  ports:\n  - port: 443\n    name: https\n"),
				applyStep("a", widgetHead+"spec:\n  ports:\n  - port: 80\n"),
			},
			wantSpec: `{"ports":[{"port":80},{"port":443,"name":"https"}]}`, wantLabels: `null`,
		},
		{
			name: "labels: only the omitted one goes",
			steps: []step{
				created("creator"),
				applyStep("a", widgetHead+"  labels:\n    x: \"1\"\n    y: \"2\"\n"),
				applyStep("a", widgetHead+"  labels:\n    x: \"1\"\n"),
			},
			wantSpec: `{"size":1,"color":"blue"}`, wantLabels: `{"app":"w","x":"1"}`,
		},
		{
			name: "another manager's fields are never pruned",
			steps: []step{
				created("creator"),
				forceStep("a", widgetHead+"spec:\n  size: 4\n"),
				applyStep("b", widgetHead+"spec:\n  size: 4\n"),
				applyStep("b", widgetHead),
			},
			wantSpec: `{"size":4,"color":"blue"}`, wantLabels: `{"app":"w"}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := runSteps(t, tc.steps)
			if w.Code != 200 {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			var got Widget
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			spec, _ := json.Marshal(got.Spec)
			labels, _ := json.Marshal(got.Labels)
			if string(spec) != tc.wantSpec || string(labels) != tc.wantLabels {
				t.Errorf("spec %s labels %s; want %s %s", spec, labels, tc.wantSpec, tc.wantLabels)
			}
		})
	}
}

func TestApplyRejectsManagedFields(t *testing.T) {
	a, _ := testAPI(t)
	w := applyStep("a", widgetHead+"  managedFields:\n  - manager: x\n    operation: Apply\n").run(t, a)
	if st := statusOf(t, w); w.Code != 400 || st.Message != "metadata.managedFields must be nil" {
		t.Errorf("%d %s", w.Code, w.Body)
	}
}

// The set operations keep their operands intact and drop empty nodes.
func TestFieldSetOperations(t *testing.T) {
	parse := func(s string) *fieldSet {
		f, err := parseFieldsV1([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	a := parse(`{"f:spec":{"f:a":{},"f:b":{},"f:m":{".":{},"f:x":{}}}}`)
	b := parse(`{"f:spec":{"f:b":{},"f:m":{"f:x":{}}}}`)
	for _, tc := range []struct {
		name string
		got  *fieldSet
		want string
	}{
		{"union", union(a, b), `{"f:spec":{"f:a":{},"f:b":{},"f:m":{".":{},"f:x":{}}}}`},
		{"difference", difference(a, b), `{"f:spec":{"f:a":{},"f:m":{}}}`},
		{"intersection", intersection(a, b), `{"f:spec":{"f:b":{},"f:m":{"f:x":{}}}}`},
		{"difference to empty", difference(b, a), `{}`},
	} {
		if got := string(tc.got.fieldsV1()); got != tc.want {
			t.Errorf("%s: %s; want %s", tc.name, got, tc.want)
		}
	}
	var paths []string
	for _, p := range a.paths() {
		paths = append(paths, pathString(p))
	}
	if want := []string{".spec.a", ".spec.b", ".spec.m", ".spec.m.x"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("paths %q; want %q", paths, want)
	}
}
