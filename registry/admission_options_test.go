package registry

import (
	"context"
	"encoding/json"
	"testing"
)

// A create or update without options gets the same options object as
// marshalling them (the constant is a copy each time: callers may keep
// it); with options they are marshalled as before.
func TestAdmissionOptionsPlain(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		ctx  context.Context
		op   string
		want string
	}{
		{ctx, OperationCreate, `{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}`},
		{ctx, OperationUpdate, `{"kind":"UpdateOptions","apiVersion":"meta.k8s.io/v1"}`},
		{WithAdmissionOptions(ctx, AdmissionOptions{FieldManager: "m"}), OperationCreate, `{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1","fieldManager":"m"}`},
		{WithAdmissionOptions(ctx, AdmissionOptions{DryRun: []string{"All"}}), OperationUpdate, `{"kind":"UpdateOptions","apiVersion":"meta.k8s.io/v1","dryRun":["All"]}`},
		{ctx, OperationDelete, `{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1"}`},
	} {
		got := admissionOptions(c.ctx, c.op)
		if string(got) != c.want {
			t.Errorf("%s: %s, want %s", c.op, got, c.want)
		}
		if !json.Valid(got) {
			t.Errorf("%s: not JSON", c.op)
		}
	}
	a := admissionOptions(ctx, OperationCreate)
	a[2] = 'X'
	if b := admissionOptions(ctx, OperationCreate); string(b) != `{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}` {
		t.Errorf("a caller's change shows in the next answer: %s", b)
	}
}
