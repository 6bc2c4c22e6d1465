package aggregator

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/storage"
)

// The Pizza CRD's x-kubernetes-validations rules on update: the transition
// rule `self == oldSelf` on spec.crust and the object rule on spec answer
// as kube-apiserver 1.33.13 did for the same merge patches (kubectl patch
// pizza margherita --type=merge -p ... against the reference: `The Pizza
// "margherita" is invalid: spec.crust: Invalid value: "string": crust is
// immutable`, and `spec: Invalid value: "object": a small pizza takes at
// most 3 toppings`); a patch that keeps the crust passes.
func TestCustomResourceRulesOnUpdate(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory()})
	if code, out := postCRD(t, s, "restaurant.example.com_pizzas.yaml"); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, out)
	}
	waitCRD(t, s, "pizzas.restaurant.example.com", apiextensions.IsEstablished)
	lb := loopback{api: s.api}
	ctx := context.Background()
	path := "/apis/restaurant.example.com/v1beta1/namespaces/default/pizzas"
	waitForCond(t, "pizza created", func() bool {
		code, _, _ := lb.send(ctx, http.MethodPost, path, "", "application/json", "application/json",
			[]byte(`{"apiVersion":"restaurant.example.com/v1beta1","kind":"Pizza","metadata":{"name":"margherita"},"spec":{"crust":"thin","toppings":[{"name":"basil"}]}}`))
		return code == http.StatusCreated
	})
	for _, tc := range []struct{ patch, message, field, cause string }{
		{`{"spec":{"crust":"thick"}}`,
			`Pizza.restaurant.example.com "margherita" is invalid: spec.crust: Invalid value: "string": crust is immutable`,
			"spec.crust", `Invalid value: "string": crust is immutable`},
		{`{"spec":{"size":"small","toppings":[{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"}]}}`,
			`Pizza.restaurant.example.com "margherita" is invalid: spec: Invalid value: "object": a small pizza takes at most 3 toppings`,
			"spec", `Invalid value: "object": a small pizza takes at most 3 toppings`},
		{`{"spec":{"size":"large"}}`, "", "", ""},
	} {
		code, out, _ := lb.send(ctx, http.MethodPatch, path+"/margherita", "", "application/merge-patch+json", "application/json", []byte(tc.patch))
		if tc.message == "" {
			if code != http.StatusOK {
				t.Errorf("%s: %d %s, want 200", tc.patch, code, out)
			}
			continue
		}
		var st struct {
			Message string
			Reason  string
			Details struct {
				Causes []struct{ Reason, Message, Field string }
			}
		}
		if err := json.Unmarshal(out, &st); err != nil || code != http.StatusUnprocessableEntity || st.Message != tc.message || st.Reason != "Invalid" ||
			len(st.Details.Causes) != 1 || st.Details.Causes[0].Field != tc.field || st.Details.Causes[0].Message != tc.cause || st.Details.Causes[0].Reason != "FieldValueInvalid" {
			t.Errorf("%s: %d %s\nwant 422 %q", tc.patch, code, out, tc.message)
		}
	}
}
