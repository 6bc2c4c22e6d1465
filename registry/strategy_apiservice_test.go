package registry

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"sigs.k8s.io/yaml"
)

func TestAPIServiceStrategyLifecycle(t *testing.T) {
	now := time.Date(2026, 11, 22, 0, 13, 46, 0, time.UTC)
	s := APIServiceStrategy{Now: func() time.Time { return now }}

	// Create: client-sent status is wiped; a remote APIService gets no
	// condition, its port defaults to 443.
	remote := validAPIService("v1.a.io", "a.io")
	remote.Spec.Service.Port = nil
	remote.Status.Conditions = []apiregistration.APIServiceCondition{{Type: apiregistration.Available, Status: apiregistration.ConditionTrue, Reason: "Forged"}}
	s.PrepareForCreate(remote)
	if remote.Status.Conditions != nil || *remote.Spec.Service.Port != 443 {
		t.Fatalf("create remote: %+v port %v", remote.Status, *remote.Spec.Service.Port)
	}

	// Create local: Available=True/Local at once, as local-custom.yaml shows.
	local := &apiregistration.APIService{ObjectMeta: meta.ObjectMeta{Name: "v1.localx.example.com"}, Spec: apiregistration.APIServiceSpec{Group: "localx.example.com", Version: "v1", GroupPriorityMinimum: 1000, VersionPriority: 10}}
	s.PrepareForCreate(local)
	var captured apiregistration.APIService
	readYAML(t, "../testdata/registry-types/local-custom.yaml", &captured)
	gotJSON, _ := json.Marshal(local.Status)
	wantJSON, _ := json.Marshal(captured.Status)
	if string(gotJSON) != string(wantJSON) {
		t.Fatalf("local status\n got %s\nwant %s", gotJSON, wantJSON)
	}

	// Update: status kept from old; an APIService has no generation
	// upstream, so a spec change leaves it as it was.
	old := validAPIService("v1.a.io", "a.io")
	old.Status.Conditions = []apiregistration.APIServiceCondition{{Type: apiregistration.Available, Status: apiregistration.ConditionFalse, Reason: "ServiceNotFound"}}
	upd := old.DeepCopy()
	upd.Status.Conditions[0].Status = apiregistration.ConditionTrue
	upd.Labels = map[string]string{"x": "y"}
	s.PrepareForUpdate(upd, old)
	if upd.Status.Conditions[0].Status != apiregistration.ConditionFalse || upd.Generation != 1 {
		t.Fatalf("metadata-only update: status %v generation %d", upd.Status.Conditions[0].Status, upd.Generation)
	}
	upd2 := old.DeepCopy()
	upd2.Spec.VersionPriority = 20
	s.PrepareForUpdate(upd2, old)
	if upd2.Generation != old.Generation {
		t.Fatalf("spec update: generation %d, want %d (unchanged)", upd2.Generation, old.Generation)
	}

	// Status update: spec and labels kept from old, status taken.
	st := old.DeepCopy()
	st.Spec.GroupPriorityMinimum = 5
	st.Labels = map[string]string{"evil": "1"}
	st.Status.Conditions = []apiregistration.APIServiceCondition{{Type: apiregistration.Available, Status: apiregistration.ConditionTrue, Reason: "Passed", Message: "all checks passed"}}
	s.PrepareForStatusUpdate(st, old)
	if st.Spec.GroupPriorityMinimum != 1000 || st.Labels != nil || st.Status.Conditions[0].Reason != "Passed" {
		t.Fatalf("status update: %+v %v %+v", st.Spec, st.Labels, st.Status)
	}
	if old.Status.Conditions[0].Status != apiregistration.ConditionFalse {
		t.Fatal("DeepCopy shares conditions")
	}
}

func TestSetCondition(t *testing.T) {
	t0 := meta.NewTime(time.Unix(100, 0))
	t1 := meta.NewTime(time.Unix(200, 0))
	a := &apiregistration.APIService{}
	if !a.SetCondition(apiregistration.APIServiceCondition{Type: apiregistration.Available, Status: apiregistration.ConditionFalse, Reason: "A", LastTransitionTime: t0}) {
		t.Fatal("add reported no change")
	}
	// Same status, new reason: reason changes, transition time stays.
	if !a.SetCondition(apiregistration.APIServiceCondition{Type: apiregistration.Available, Status: apiregistration.ConditionFalse, Reason: "B", LastTransitionTime: t1}) {
		t.Fatal("reason change reported no change")
	}
	if c := a.GetCondition(apiregistration.Available); c.Reason != "B" || !c.LastTransitionTime.Equal(t0.Time) {
		t.Fatalf("got %+v", c)
	}
	if a.SetCondition(apiregistration.APIServiceCondition{Type: apiregistration.Available, Status: apiregistration.ConditionFalse, Reason: "B", LastTransitionTime: t1}) {
		t.Fatal("identical condition reported a change")
	}
	a.SetCondition(apiregistration.APIServiceCondition{Type: apiregistration.Available, Status: apiregistration.ConditionTrue, Reason: "Passed", LastTransitionTime: t1})
	if c := a.GetCondition(apiregistration.Available); !c.LastTransitionTime.Equal(t1.Time) || !a.IsAvailable() || len(a.Status.Conditions) != 1 {
		t.Fatalf("flip: %+v", a.Status)
	}
}

func readYAML(t testing.TB, path string, into any) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}

// TestAPIServiceYAMLRoundTrip decodes objects captured with
// `kubectl get apiservice -o yaml` and re-encodes them: the bytes must be
// identical, which pins every JSON name and omitempty.
func TestAPIServiceYAMLRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../testdata/registry-types/b-status/*.yaml")
	files = append(files, "../testdata/registry-types/local-custom.yaml", "../testdata/registry-types/healthy.yaml")
	for _, f := range files {
		var a apiregistration.APIService
		want := readYAML(t, f, &a)
		got, err := yaml.Marshal(&a)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: round trip differs\n got:\n%s\nwant:\n%s", f, got, want)
		}
	}
}

// TestAPIServiceTable checks the table columns against a captured Table
// and the cells against `kubectl get apiservices` of the same objects.
func TestAPIServiceTable(t *testing.T) {
	var table struct {
		ColumnDefinitions []meta.TableColumnDefinition `json:"columnDefinitions"`
		Rows              []struct {
			Cells  []any `json:"cells"`
			Object struct {
				Metadata meta.ObjectMeta `json:"metadata"`
			} `json:"object"`
		} `json:"rows"`
	}
	b, err := os.ReadFile("../testdata/registry-types/e-table/table-list.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &table); err != nil {
		t.Fatal(err)
	}
	s := APIServiceStrategy{Now: func() time.Time { return time.Date(2026, 11, 22, 0, 0, 55, 0, time.UTC) }} // the response's Date
	if !reflect.DeepEqual(s.TableColumns(), table.ColumnDefinitions) {
		t.Fatalf("columns\n got %+v\nwant %+v", s.TableColumns(), table.ColumnDefinitions)
	}
	rows := map[string][]any{}
	for _, r := range table.Rows {
		rows[r.Object.Metadata.Name] = r.Cells
		// AGE from creationTimestamp alone.
		a := &apiregistration.APIService{ObjectMeta: r.Object.Metadata}
		if got := s.TableRow(a)[3]; got != r.Cells[3] {
			t.Errorf("%s: age %q, want %q", a.Name, got, r.Cells[3])
		}
	}
	files, _ := filepath.Glob("../testdata/registry-types/b-status/*.yaml")
	checked := 0
	for _, f := range files {
		var a apiregistration.APIService
		readYAML(t, f, &a)
		if a.Name == "v1.flaky.example.com" {
			continue // captured at several moments; the table saw one of them
		}
		want, ok := rows[a.Name]
		if !ok {
			continue
		}
		got := s.TableRow(&a)
		if got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("%s: row %q, want %q", f, got, want)
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("only %d rows checked", checked)
	}
	// Cases the capture lacks: no condition, False without reason, Local.
	for _, tt := range []struct {
		conds []apiregistration.APIServiceCondition
		want  string
	}{
		{nil, "Unknown"},
		{[]apiregistration.APIServiceCondition{{Type: apiregistration.Available, Status: apiregistration.ConditionFalse}}, "False"},
		{[]apiregistration.APIServiceCondition{{Type: apiregistration.Available, Status: apiregistration.ConditionUnknown, Reason: "X"}}, "Unknown (X)"},
	} {
		a := &apiregistration.APIService{Status: apiregistration.APIServiceStatus{Conditions: tt.conds}}
		if got := s.TableRow(a); got[1] != "Local" || got[2] != tt.want || got[3] != "<unknown>" {
			t.Errorf("%v: %q", tt.conds, got)
		}
	}
}

// TestAPIServiceKubectlTable renders rows like kubectl does (columns
// padded by three spaces) and compares them with the captured text.
func TestAPIServiceKubectlTable(t *testing.T) {
	f, err := os.Open("../testdata/registry-types/e-table/kubectl-get-apiservices.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	header := strings.Fields(sc.Text())
	var cols []string
	for _, c := range (APIServiceStrategy{}).TableColumns() {
		cols = append(cols, strings.ToUpper(c.Name))
	}
	if !reflect.DeepEqual(header, cols) {
		t.Fatalf("header %q, want %q", header, cols)
	}
}

func TestHumanDuration(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{-2 * time.Second, "<invalid>"}, {-time.Second, "0s"}, {0, "0s"}, {119 * time.Second, "119s"},
		{2 * time.Minute, "2m"}, {225 * time.Second, "3m45s"}, {368 * time.Second, "6m8s"}, {10 * time.Minute, "10m"},
		{179 * time.Minute, "179m"}, {3 * time.Hour, "3h"}, {3*time.Hour + 5*time.Minute, "3h5m"}, {8 * time.Hour, "8h"},
		{47 * time.Hour, "47h"}, {48 * time.Hour, "2d"}, {5*24*time.Hour + 14*time.Hour, "5d14h"}, {8 * 24 * time.Hour, "8d"},
		{800 * 24 * time.Hour, "2y70d"}, {9 * 365 * 24 * time.Hour, "9y"},
	} {
		if got := meta.HumanDuration(tt.d); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.d, got, tt.want)
		}
	}
}
