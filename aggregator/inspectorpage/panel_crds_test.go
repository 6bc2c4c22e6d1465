package inspectorpage_test

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator"
)

// TestCRDsPanel: the panel lists a CRD with its versions (each linked to
// the APIService that routes it) and its conditions once Established,
// from the same data as GET /debug/aggsim/crds.
func TestCRDsPanel(t *testing.T) {
	srv, p, hs := startPage(t)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if code, page := body(t, c, hs.URL+p.LoginPath()); code != 200 || !strings.Contains(page, `hx-get="/panels/crds"`) {
		t.Fatalf("login: %d, page without the CRD panel:\n%s", code, page)
	}
	if _, got := body(t, c, hs.URL+"/panels/crds"); !strings.Contains(got, `<p class="note">none</p>`) {
		t.Errorf("empty panel:\n%s", got)
	}
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"toppings.restaurant.example.com"},
"spec":{"group":"restaurant.example.com","scope":"Cluster","names":{"plural":"toppings","kind":"Topping"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}},
{"name":"v1alpha1","served":false,"storage":false,"deprecated":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`
	resp, err := srv.Client().Post(srv.URL+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", strings.NewReader(crd))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	want := `<tr class="crd" data-name="toppings.restaurant.example.com"><td>toppings.restaurant.example.com</td><td>Topping</td><td>Cluster</td>
<td><div><a href="#apiservice" hx-get="/panels/apiservice?name=v1.restaurant.example.com" hx-target="#apiservice">v1</a> served storage</div><div><a href="#apiservice" hx-get="/panels/apiservice?name=v1alpha1.restaurant.example.com" hx-target="#apiservice">v1alpha1</a> deprecated</div></td>
<td>None</td>
<td><div><b>NamesAccepted</b> True (NoConflicts): no conflicts found</div><div><b>Established</b> True (InitialNamesAccepted): the initial names have been accepted</div></td></tr>`
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, got = body(t, c, hs.URL+"/panels/crds"); strings.Contains(got, want) {
			break
		}
	}
	if !strings.Contains(got, want) {
		t.Errorf("panel lacks\n%s\ngot:\n%s", want, got)
	}
	resp, err = srv.Client().Get(srv.URL + aggregator.DebugCRDsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []aggregator.CRDOverview
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list) != 1 || list[0].Name != "toppings.restaurant.example.com" ||
		len(list[0].Versions) != 2 || list[0].Versions[0].APIService != "v1.restaurant.example.com" || strings.Join(list[0].StoredVersions, ",") != "v1" {
		t.Fatalf("%s: %v %+v", aggregator.DebugCRDsPath, err, list)
	}
}
