package rest

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"testing"
)

// The ServiceAccount answers of kube-apiserver 1.33.13, captured into
// ../../testdata/registry/serviceaccounts with the admin certificate
// (RUN=/tmp/ref-sa ... up.sh, KCM=1):
//
//	invalid.json: curl -X POST -H 'Content-Type: application/json' -d '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"Bad_Name","labels":{"a b":"c"}}}' .../api/v1/namespaces/default/serviceaccounts
//	table.json:   curl -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io' .../api/v1/namespaces/kube-system/serviceaccounts
const serviceAccountsDir = "../../testdata/registry/serviceaccounts/"

// TestServiceAccountInvalid: an invalid name and label are 422 with
// upstream's Status, word for word.
func TestServiceAccountInvalid(t *testing.T) {
	want, err := os.ReadFile(serviceAccountsDir + "invalid.json")
	if err != nil {
		t.Fatal(err)
	}
	a := allStrategiesAPI(t)
	w := coreDo(a, "POST", "/api/v1/namespaces/default/serviceaccounts", "application/json",
		`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"Bad_Name","labels":{"a b":"c"}}}`)
	if w.Code != 422 || compactJSON(t, w.Body.String()) != compactJSON(t, string(want)) {
		t.Errorf("got %d %s\nwant %s", w.Code, w.Body, want)
	}
}

// TestServiceAccountTable: NAME, SECRETS (an integer), AGE with
// upstream's column definitions; a PUT of a missing ServiceAccount is 404
// (kubectl replace on the reference: `serviceaccounts "putme" not found`);
// DELETE answers the deleted object.
func TestServiceAccountTable(t *testing.T) {
	ref, err := os.ReadFile(serviceAccountsDir + "table.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Columns json.RawMessage `json:"columnDefinitions"`
	}
	if err := json.Unmarshal(ref, &want); err != nil {
		t.Fatal(err)
	}
	a := allStrategiesAPI(t)
	if w := coreDo(a, "POST", "/api/v1/namespaces/default/serviceaccounts", "application/json",
		`{"metadata":{"name":"x"},"secrets":[{"name":"a"},{"name":"b"}]}`); w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	req := httptest.NewRequest("GET", "/api/v1/namespaces/default/serviceaccounts", nil)
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	w := httptest.NewRecorder()
	a.ServeHTTP(w, req)
	var got struct {
		Columns json.RawMessage `json:"columnDefinitions"`
		Rows    []struct {
			Cells []any `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, w.Body)
	}
	if compactJSON(t, string(got.Columns)) != compactJSON(t, string(want.Columns)) {
		t.Errorf("columns:\n got %s\nwant %s", got.Columns, want.Columns)
	}
	if len(got.Rows) != 1 || len(got.Rows[0].Cells) != 3 || got.Rows[0].Cells[0] != "x" || got.Rows[0].Cells[1] != float64(2) {
		t.Errorf("rows: %s", w.Body)
	}
	if w := coreDo(a, "PUT", "/api/v1/namespaces/default/serviceaccounts/putme", "application/json",
		`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"putme"}}`); w.Code != 404 {
		t.Errorf("PUT of a missing ServiceAccount: %d %s", w.Code, w.Body)
	}
	if w := coreDo(a, "DELETE", "/api/v1/namespaces/default/serviceaccounts/x", "", ""); w.Code != 200 || !bytes.Contains(w.Body.Bytes(), []byte(`"kind":"ServiceAccount"`)) {
		t.Errorf("DELETE: %d %s", w.Code, w.Body)
	}
}
