package registry

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// decodeDefault decodes a request body as the REST layer does and applies
// the strategy's PrepareForCreate (defaults included).
func decodeDefault[T any](t *testing.T, s Strategy, body string) *T {
	t.Helper()
	obj := s.New()
	if err := json.Unmarshal([]byte(body), obj); err != nil {
		t.Fatal(err)
	}
	s.PrepareForCreate(obj)
	return any(obj).(*T)
}

// The causes kube-apiserver 1.33.13 answered for these bodies (kubectl
// create -n probe -f - of each; also the refsuite captures ev-invalid,
// quota-invalid, limits-invalid).
func TestValidateEventsQuotasLimits(t *testing.T) {
	ev := EventStrategy{}
	e := decodeDefault[core.Event](t, ev, `{"metadata":{"name":"e5","namespace":"probe","labels":{"a":"b c"}},"involvedObject":{"kind":"ConfigMap","name":"a"},"eventTime":"2025-01-01T00:00:00.000000Z","series":{"count":1}}`)
	want := []string{
		`involvedObject.namespace: Invalid value: "": does not match event.namespace`,
		"reportingComponent: Required value",
		`reportingComponent: Invalid value: "": name part must be non-empty`,
		`reportingComponent: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		"reportingInstance: Required value", "action: Required value", "reason: Required value",
	}
	if got := errStrings(ev.Validate(e)); !reflect.DeepEqual(got, want) {
		t.Errorf("event:\n got %q\nwant %q", got, want)
	}

	qs := ResourceQuotaStrategy{}
	q := decodeDefault[core.ResourceQuota](t, qs, `{"metadata":{"name":"q3","namespace":"probe"},"spec":{"hard":{"foo":"1","storage":"1","pods":"-1","cpu":"-1.5","a/b":"1.5"},"scopes":["BestEffort","NotBestEffort","Foo"]},"status":{"hard":{"pods":"1"}}}`)
	if q.Status.Hard != nil {
		t.Errorf("status kept on create: %+v", q.Status)
	}
	scopes := `[]core.ResourceQuotaScope{"BestEffort", "NotBestEffort", "Foo"}`
	want = []string{ // upstream's order of hard keys is Go's map order; aggsim's is sorted
		`spec.hard[a/b]: Invalid value: resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}: must be an integer`,
		`spec.hard[cpu]: Invalid value: "-1500m": must be greater than or equal to 0`,
		"spec.hard[foo]: Invalid value: foo: must be a standard resource type or fully qualified",
		"spec.hard[foo]: Invalid value: foo: must be a standard resource for quota",
		`spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0`,
		"spec.hard[storage]: Invalid value: storage: must be a standard resource for quota",
		"spec.scopes: Invalid value: " + scopes + ": unsupported scope applied to resource",
		"spec.scopes: Invalid value: " + scopes + ": unsupported scope",
		"spec.scopes: Invalid value: " + scopes + ": conflicting scopes",
	}
	if got := errStrings(qs.Validate(q)); !reflect.DeepEqual(got, want) {
		t.Errorf("quota:\n got %q\nwant %q", got, want)
	}

	ls := LimitRangeStrategy{}
	l := decodeDefault[core.LimitRange](t, ls, `{"metadata":{"name":"l2","namespace":"probe"},"spec":{"limits":[{"type":"Container","max":{"cpu":"1"},"min":{"cpu":"2"},"maxLimitRequestRatio":{"cpu":"0.5"}},{"type":"Pod","default":{"cpu":"1"}},{"type":"Container"},{"type":"Foo","max":{"bar":"1"}},{"type":"PersistentVolumeClaim"}]}}`)
	q2 := func(v, scale int, s string) string {
		return "resource.Quantity{i:resource.int64Amount{value:" + itoa(v) + ", scale:" + itoa(scale) + "}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"" + s + "\", Format:\"DecimalSI\"}"
	}
	want = []string{
		"spec.limits[0].min[cpu]: Invalid value: " + q2(2, 0, "2") + ": min value 2 is greater than max value 1",
		"spec.limits[0].defaultRequest[cpu]: Invalid value: " + q2(1, 0, "1") + ": min value 2 is greater than default request value 1",
		"spec.limits[0].default[cpu]: Invalid value: " + q2(2, 0, "2") + ": min value 2 is greater than default value 1",
		"spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: " + q2(5, -1, "500m") + ": ratio 500m is less than 1",
		"spec.limits[1].default: Forbidden: may not be specified when `type` is 'Pod'",
		`spec.limits[2].type: Duplicate value: "Container"`,
		`spec.limits[3].type: Invalid value: "Foo": must be a standard limit type or fully qualified`,
		"spec.limits[3].max[bar]: Invalid value: bar: must be a standard resource type or fully qualified",
		"spec.limits[4].limits: Required value: either minimum or maximum storage value is required, but neither was provided",
	}
	if got := errStrings(ls.Validate(l)); !reflect.DeepEqual(got, want) {
		t.Errorf("limit range:\n got %q\nwant %q", got, want)
	}
	// Defaults: a Container item's default limit is its max, its default
	// request the default limit (kubectl get limits -o yaml, 1.33.13).
	d := decodeDefault[core.LimitRange](t, ls, `{"metadata":{"name":"l","namespace":"probe"},"spec":{"limits":[{"type":"Container","max":{"cpu":"2","memory":"1Gi"},"min":{"cpu":"100m"},"default":{"cpu":"500m"},"defaultRequest":{"cpu":"200m"}}]}}`)
	b, _ := json.Marshal(d.Spec)
	if w := `{"limits":[{"type":"Container","max":{"cpu":"2","memory":"1Gi"},"min":{"cpu":"100m"},"default":{"cpu":"500m","memory":"1Gi"},"defaultRequest":{"cpu":"200m","memory":"1Gi"}}]}`; string(b) != w {
		t.Errorf("limit range defaults:\n got %s\nwant %s", b, w)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestResourceQuotaScopesImmutable pins the immutable-scopes message as
// kube-apiserver 1.33.13 prints it (kubectl patch resourcequota q --type=json
// -p '[{"op":"remove","path":"/spec/scopes"}]' on a quota with scopes
// [BestEffort]): the dropped list prints as Go's nil slice.
func TestResourceQuotaScopesImmutable(t *testing.T) {
	old := &core.ResourceQuota{ObjectMeta: meta.ObjectMeta{Name: "q", Namespace: "qtest", ResourceVersion: "1"}, Spec: core.ResourceQuotaSpec{Scopes: []string{"BestEffort"}}}
	for _, c := range []struct {
		scopes []string
		want   string
	}{
		{nil, `spec.scopes: Invalid value: []core.ResourceQuotaScope(nil): field is immutable`},
		{[]string{}, `spec.scopes: Invalid value: []core.ResourceQuotaScope{}: field is immutable`},
	} {
		q := *old
		q.Spec.Scopes = c.scopes
		errs := core.ValidateResourceQuotaUpdate(&q, old)
		found := false
		for _, e := range errs {
			found = found || e.Error() == c.want
		}
		if !found {
			t.Errorf("scopes %#v: %v, want %q", c.scopes, errs, c.want)
		}
	}
}
