package rest

import (
	"context"
	"encoding/pem"
	"net/http/httptest"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// TestDynamicClient drives the toy resource with client-go's dynamic
// client over TLS: create, get, list, update, patch, status, watch, delete,
// and checks that client-go recognises our Status errors.
func TestDynamicClient(t *testing.T) {
	a, _ := testAPI(t)
	srv := httptest.NewTLSServer(a)
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	dc, err := dynamic.NewForConfig(&rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res := dc.Resource(schema.GroupVersionResource{Group: "toys.example.com", Version: "v1", Resource: "widgets"}).Namespace("default")

	w, err := res.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "toys.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "cg", "labels": map[string]any{"app": "cg"}},
		"spec":     map[string]any{"size": int64(1)},
	}}
	created, err := res.Create(ctx, obj, metav1.CreateOptions{FieldManager: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if created.GetUID() == "" || created.GetResourceVersion() == "" || created.GetGeneration() != 1 {
		t.Errorf("created %v", created.Object)
	}
	if _, err := res.Create(ctx, obj, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("duplicate create: %v", err)
	}
	got, err := res.Get(ctx, "cg", metav1.GetOptions{})
	if err != nil || got.GetName() != "cg" {
		t.Fatalf("get %v %v", got, err)
	}
	list, err := res.List(ctx, metav1.ListOptions{LabelSelector: "app=cg"})
	if err != nil || len(list.Items) != 1 || list.GetResourceVersion() == "" {
		t.Fatalf("list %v %v", list, err)
	}
	unstructured.SetNestedField(got.Object, int64(2), "spec", "size")
	updated, err := res.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil || updated.GetGeneration() != 2 {
		t.Fatalf("update %v %v", updated, err)
	}
	if _, err := res.Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("stale update: %v", err)
	}
	patched, err := res.Patch(ctx, "cg", types.MergePatchType, []byte(`{"spec":{"color":"red"}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c, _, _ := unstructured.NestedString(patched.Object, "spec", "color"); c != "red" {
		t.Errorf("patched %v", patched.Object)
	}
	unstructured.SetNestedSlice(patched.Object, []any{map[string]any{"type": "Ready", "status": "True"}}, "status", "conditions")
	if _, err := res.UpdateStatus(ctx, patched, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := res.Delete(ctx, "cg", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := res.Get(ctx, "cg", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v", err)
	}
	var types []watch.EventType
	for len(types) < 5 {
		select {
		case ev := <-w.ResultChan():
			types = append(types, ev.Type)
		case <-ctx.Done():
			t.Fatalf("watch events so far %v", types)
		}
	}
	want := []watch.EventType{watch.Added, watch.Modified, watch.Modified, watch.Modified, watch.Deleted}
	for i := range want {
		if types[i] != want[i] {
			t.Fatalf("watch events %v, want %v", types, want)
		}
	}
}
