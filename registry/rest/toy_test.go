package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// Toy resources for the store and REST tests: Widget (namespaced, group
// toys.example.com, with /status) and Gizmo (cluster-scoped, core group).

type Widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            WidgetSpec   `json:"spec,omitempty"`
	Status          WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Size  int32        `json:"size,omitempty"`
	Color string       `json:"color,omitempty"`
	Ports []WidgetPort `json:"ports,omitempty"`
	Tags  []string     `json:"tags,omitempty"`
	Blob  []byte       `json:"blob,omitempty"`
}

type WidgetPort struct {
	Port int32  `json:"port"`
	Name string `json:"name,omitempty"`
}

type WidgetStatus struct {
	Conditions []meta.Condition `json:"conditions,omitempty"`
}

type widgetStrategy struct{}

func (widgetStrategy) Info() registry.ResourceInfo {
	return registry.ResourceInfo{
		Group: "toys.example.com", Version: "v1", Kind: "Widget", ListKind: "WidgetList",
		Resource: "widgets", Singular: "widget", ShortNames: []string{"wd"}, Categories: []string{"all"},
		Namespaced: true, HasStatus: true,
		Verbs:       []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
		StatusVerbs: []string{"get", "patch", "update"},
	}
}
func (widgetStrategy) New() meta.Object { return &Widget{} }
func (widgetStrategy) PrepareForCreate(obj meta.Object) {
	w := obj.(*Widget)
	w.Status, w.Generation = WidgetStatus{}, 1 // a Widget tracks generation, as kinds with a spec do
}
func (widgetStrategy) PrepareForUpdate(obj, old meta.Object) {
	n, o := obj.(*Widget), old.(*Widget)
	n.Status = o.Status
	registry.BumpGeneration(&n.ObjectMeta, &o.ObjectMeta, !reflect.DeepEqual(n.Spec, o.Spec))
}
func (widgetStrategy) PrepareForStatusUpdate(obj, old meta.Object) {
	n, o := obj.(*Widget), old.(*Widget)
	n.Spec = o.Spec
	n.Labels, n.Annotations = o.Labels, o.Annotations
}
func (widgetStrategy) Validate(obj meta.Object) meta.FieldErrors {
	w := obj.(*Widget)
	var errs meta.FieldErrors
	if w.Spec.Size < 0 {
		errs = append(errs, meta.Invalid("spec.size", w.Spec.Size, "must be non-negative"))
	}
	if w.Spec.Color == "invisible" {
		errs = append(errs, meta.NotSupported("spec.color", w.Spec.Color, []string{"blue", "red"}))
	}
	return errs
}
func (s widgetStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors { return s.Validate(obj) }
func (widgetStrategy) Canonicalize(obj meta.Object)                           {}
func (widgetStrategy) TableColumns() []meta.TableColumnDefinition {
	return []meta.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: "name"},
		{Name: "Size", Type: "integer", Description: "size"},
	}
}
func (widgetStrategy) TableRow(obj meta.Object) []any {
	w := obj.(*Widget)
	return []any{w.Name, w.Spec.Size}
}
func (widgetStrategy) MergeKeys() map[string]string {
	return map[string]string{"spec.ports": "port", "status.conditions": "type"}
}
func (widgetStrategy) SelectableFields(obj meta.Object) map[string]string {
	return map[string]string{"spec.color": obj.(*Widget).Spec.Color}
}

type Gizmo struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Value           string `json:"value,omitempty"`
}

type gizmoStrategy struct{}

func (gizmoStrategy) Info() registry.ResourceInfo {
	return registry.ResourceInfo{
		Version: "v1", Kind: "Gizmo", ListKind: "GizmoList", Resource: "gizmos", Singular: "gizmo",
		Verbs: []string{"create", "delete", "get", "list", "update", "watch"},
	}
}
func (gizmoStrategy) New() meta.Object                                     { return &Gizmo{} }
func (gizmoStrategy) PrepareForCreate(obj meta.Object)                     {}
func (gizmoStrategy) PrepareForUpdate(obj, old meta.Object)                {}
func (gizmoStrategy) PrepareForStatusUpdate(obj, old meta.Object)          {}
func (gizmoStrategy) Validate(obj meta.Object) meta.FieldErrors            { return nil }
func (gizmoStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors { return nil }
func (gizmoStrategy) Canonicalize(obj meta.Object)                         {}
func (gizmoStrategy) TableColumns() []meta.TableColumnDefinition           { return nil }
func (gizmoStrategy) TableRow(obj meta.Object) []any                       { return []any{obj.GetObjectMeta().Name} }
func (gizmoStrategy) AllowUnconditionalUpdate() bool                       { return false }
func (gizmoStrategy) ReturnDeletedObject() bool                            { return true }
func (gizmoStrategy) AllowCreateOnUpdate() bool                            { return false }
func (gizmoStrategy) SelectableFields(obj meta.Object) map[string]string   { return nil }

var testNow = time.Date(2026, 11, 21, 23, 54, 47, 0, time.UTC)

// testAPI builds an API over a fresh memory store with the toy resources;
// namespace "missing" does not exist.
func testAPI(t testing.TB) (*API, storage.Storage) {
	t.Helper()
	st := storage.NewMemory()
	t.Cleanup(func() { st.Close() })
	a := NewAPI(st, []registry.Strategy{widgetStrategy{}, gizmoStrategy{}}, registry.StoreOptions{
		Clock: func() time.Time { return testNow },
		NamespaceExists: func(_ context.Context, ns string) (bool, error) {
			return ns != "missing", nil
		},
		BookmarkInterval: 10 * time.Millisecond,
	})
	t.Cleanup(a.Shutdown)
	return a, st
}

// do sends one request to h and returns the recorder.
func do(t testing.TB, h http.Handler, method, path, contentType, body string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, path, rd)
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
		if hdr[i] == "Host" {
			r.Host = hdr[i+1]
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// statusOf decodes a Status response.
func statusOf(t testing.TB, w *httptest.ResponseRecorder) meta.Status {
	t.Helper()
	var st meta.Status
	if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil {
		t.Fatalf("decode status %q: %v", w.Body.String(), err)
	}
	return st
}

func widgetJSON(name string, size int) string {
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "toys.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "labels": map[string]string{"app": name}},
		"spec":     map[string]any{"size": size, "color": "blue"},
	})
	return string(b)
}

func mustCreate(t testing.TB, h http.Handler, ns, name string, size int) *Widget {
	t.Helper()
	w := do(t, h, "POST", "/apis/toys.example.com/v1/namespaces/"+ns+"/widgets", "application/json", widgetJSON(name, size))
	if w.Code != 201 {
		t.Fatalf("create %s: %d %s", name, w.Code, w.Body)
	}
	var out Widget
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func compactJSON(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("compact %q: %v", s, err)
	}
	return b.String()
}
