package demo_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/demo"
)

// TestPizzaConversion: the demo Pizza CRD served by aggsim with
// ConvertPizza behind a conversion webhook: a pizza written in v1alpha1
// (names, one twice) is stored as v1beta1 ({name, quantity}) and reads
// back the same in v1alpha1.
func TestPizzaConversion(t *testing.T) {
	crd := demo.PizzaCRD(nil)
	crd.Spec.Conversion = nil // RegisterConversionWebhook sets it
	s := aggregatortest.Start(t, aggregatortest.WithCRDObjects(crd))
	wh := s.RegisterConversionWebhook(t, aggregatortest.ConversionWebhookOptions{CRD: demo.PizzaCRDName, Handler: demo.ConvertPizza})
	do := func(method, path, body string) (int, string) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, s.URL+path, rd)
		req.Header.Set("Content-Type", "application/json")
		resp, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	spec := func(body string) string {
		var m map[string]any
		_ = json.Unmarshal([]byte(body), &m)
		b, _ := json.Marshal(m["spec"])
		return string(b)
	}
	const alpha, beta = "/apis/restaurant.example.com/v1alpha1/namespaces/default/pizzas", "/apis/restaurant.example.com/v1beta1/namespaces/default/pizzas"
	code, out := do(http.MethodPost, alpha, `{"apiVersion":"restaurant.example.com/v1alpha1","kind":"Pizza","metadata":{"name":"margherita"},"spec":{"toppings":["tomato","mozzarella","mozzarella"]}}`)
	if code != http.StatusCreated || spec(out) != `{"toppings":["tomato","mozzarella","mozzarella"]}` {
		t.Fatalf("create v1alpha1: %d %s", code, out)
	}
	if code, out = do(http.MethodGet, beta+"/margherita", ""); code != http.StatusOK || spec(out) != `{"toppings":[{"name":"tomato","quantity":1},{"name":"mozzarella","quantity":2}]}` {
		t.Errorf("get v1beta1: %d %s", code, out)
	}
	if len(wh.Requests()) < 2 {
		t.Errorf("webhook calls: %d", len(wh.Requests()))
	}
	if _, err := demo.ConvertPizza(map[string]any{}, "restaurant.example.com/v2"); err == nil || err.Error() != `cannot convert a Pizza to "restaurant.example.com/v2"` {
		t.Errorf("ConvertPizza to v2: %v", err)
	}
}
