package aggregator

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestCRDPrinterColumnsJSONPathAsUpstream creates the two CRDs of
// testdata/crd/columns (printer columns with filters, wildcards, slices,
// unions, recursive descent, quoted keys, a path that does not parse)
// and one object each, and compares the Table's column definitions and
// cells with kube-apiserver 1.33.13's (see the README there for the
// commands). Before, aggsim followed only `.a.b`, `[n]` and `['k']`:
// cert-manager's READY column and Gateway API's ADDRESS / PROGRAMMED
// columns were empty.
func TestCRDPrinterColumnsJSONPathAsUpstream(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory()})
	curl := loopback{api: s.api, userAgent: "curl/8.5.0"}
	ctx := context.Background()
	read := func(f string) []byte {
		b, err := os.ReadFile("testdata/crd/columns/" + f)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct{ crd, name, plural, object string }{
		{"columns.crd.json", "columns.probe.example.com", "columns", "one"},
		{"columns3.crd.json", "columns3.probe.example.com", "columns3", "three"},
	} {
		t.Run(tc.plural, func(t *testing.T) {
			if code, out, _ := curl.send(ctx, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", "application/json", "application/json", read(tc.crd)); code != http.StatusCreated {
				t.Fatalf("create CRD: %d %s", code, out)
			}
			waitCRD(t, s, tc.name, apiextensions.IsEstablished)
			p := "/apis/probe.example.com/v1/namespaces/default/" + tc.plural
			obj := read(tc.object + ".json")
			var code int
			var out []byte
			waitForCond(t, tc.plural+" served", func() bool {
				code, out, _ = curl.send(ctx, http.MethodPost, p, "", "application/json", "application/json", obj)
				return code != http.StatusNotFound
			})
			if code != http.StatusCreated {
				t.Fatalf("create: %d %s", code, out)
			}
			var o map[string]any
			_ = json.Unmarshal(obj, &o)
			if st, ok := o["status"]; ok {
				patch, _ := json.Marshal(map[string]any{"status": st})
				if code, out, _ := curl.send(ctx, http.MethodPatch, p+"/"+tc.object+"/status", "", "application/merge-patch+json", "application/json", patch); code != http.StatusOK {
					t.Fatalf("status: %d %s", code, out)
				}
			}
			code, got, _ := curl.send(ctx, http.MethodGet, p+"/"+tc.object, "", "", "application/json;as=Table;v=v1;g=meta.k8s.io", nil)
			if code != http.StatusOK {
				t.Fatalf("table: %d %s", code, got)
			}
			want := readCaptured(t, "testdata/crd/columns/"+tc.object+".table.reference.txt")
			if g, w := tableColumnsAndCells(t, got), tableColumnsAndCells(t, want); g != w {
				t.Errorf("got\n%s\nwant\n%s", g, w)
			}
		})
	}
}

// tableColumnsAndCells is a Table's columnDefinitions and row cells as
// indented JSON, one line per column and cell.
func tableColumnsAndCells(t *testing.T, raw []byte) string {
	t.Helper()
	var tbl struct {
		ColumnDefinitions []json.RawMessage `json:"columnDefinitions"`
		Rows              []struct {
			Cells []json.RawMessage `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(raw, &tbl); err != nil || len(tbl.Rows) != 1 {
		t.Fatalf("not a one-row Table: %v\n%s", err, raw)
	}
	out := ""
	for i, c := range tbl.ColumnDefinitions {
		var cd map[string]any
		_ = json.Unmarshal(c, &cd)
		cell := "(missing)"
		if i < len(tbl.Rows[0].Cells) {
			var v any // decoded: the reference file was indented by python3 -m json.tool
			_ = json.Unmarshal(tbl.Rows[0].Cells[i], &v)
			cell = mustJSON(v)
		}
		out += mustJSON(cd) + " => " + cell + "\n"
	}
	if len(tbl.Rows[0].Cells) != len(tbl.ColumnDefinitions) {
		out += "cells: " + mustJSON(tbl.Rows[0].Cells) + "\n"
	}
	return out
}
