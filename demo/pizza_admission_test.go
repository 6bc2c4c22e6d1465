package demo

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBackendServesPizzaAdmission: the demo backend answers AdmissionReviews
// at MutatePizzaPath (a JSONPatch adding DefaultToppings in the object's
// version's shape, none when it has toppings) and ValidatePizzaPath
// (pineapple refused in either version) without a client certificate.
func TestBackendServesPizzaAdmission(t *testing.T) {
	b := newWebhookTestBackend(t)
	review := func(obj string) string {
		return `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1","operation":"CREATE","object":` + obj + `}}`
	}
	patch := func(p string) string { return base64.StdEncoding.EncodeToString([]byte(p)) }
	for _, tc := range []struct{ path, obj, want string }{
		{MutatePizzaPath, `{"apiVersion":"restaurant.example.com/v1alpha1","kind":"Pizza","metadata":{"name":"p"},"spec":{}}`,
			`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"allowed":true,"patch":"` + patch(`[{"op":"add","path":"/spec/toppings","value":["tomato","mozzarella"]}]`) + `","patchType":"JSONPatch","uid":"u-1"}}`},
		{MutatePizzaPath, `{"apiVersion":"restaurant.example.com/v1beta1","kind":"Pizza","metadata":{"name":"p"}}`,
			`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"allowed":true,"patch":"` + patch(`[{"op":"add","path":"/spec","value":{"toppings":[{"name":"tomato","quantity":1},{"name":"mozzarella","quantity":1}]}}]`) + `","patchType":"JSONPatch","uid":"u-1"}}`},
		{MutatePizzaPath, `{"apiVersion":"restaurant.example.com/v1alpha1","kind":"Pizza","metadata":{"name":"p"},"spec":{"toppings":["basil"]}}`,
			`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"allowed":true,"uid":"u-1"}}`},
		{ValidatePizzaPath, `{"apiVersion":"restaurant.example.com/v1alpha1","kind":"Pizza","metadata":{"name":"p"},"spec":{"toppings":["ham","pineapple"]}}`,
			`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"allowed":false,"status":{"code":403,"message":"pineapple does not belong on a pizza"},"uid":"u-1"}}`},
		{ValidatePizzaPath, `{"apiVersion":"restaurant.example.com/v1beta1","kind":"Pizza","metadata":{"name":"p"},"spec":{"toppings":[{"name":"Pineapple","quantity":1}]}}`,
			`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"allowed":false,"status":{"code":403,"message":"pineapple does not belong on a pizza"},"uid":"u-1"}}`},
		{ValidatePizzaPath, `{"apiVersion":"restaurant.example.com/v1beta1","kind":"Pizza","metadata":{"name":"p"},"spec":{"toppings":[{"name":"basil","quantity":1}]}}`,
			`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"allowed":true,"uid":"u-1"}}`},
	} {
		w := httptest.NewRecorder()
		b.ServeHTTP(w, httptest.NewRequest(http.MethodPost, tc.path+"?timeout=5s", strings.NewReader(review(tc.obj))))
		if w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != tc.want {
			t.Errorf("%s %s: got %d %s\nwant %s", tc.path, tc.obj, w.Code, w.Body, tc.want)
		}
	}
}
