package demo

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// The demo's admission webhooks for Pizzas, served by the demo backend
// next to the conversion webhook (pizza.go) and registered by `serve
// --demo` with PizzaWebhookConfigurations: a mutating one that gives a
// pizza without toppings the default DefaultToppings, and a validating one
// that refuses pineapple.
const (
	// MutatePizzaPath and ValidatePizzaPath are where the demo backend
	// answers AdmissionReviews (without authentication, as webhooks are
	// called).
	MutatePizzaPath   = "/mutate-pizzas"
	ValidatePizzaPath = "/validate-pizzas"
	// PizzaDefaultsWebhook is the mutating webhook's name (and its
	// MutatingWebhookConfiguration's).
	PizzaDefaultsWebhook = "default-toppings." + CRDGroup
	// PizzaChecksWebhook is the validating webhook's name (and its
	// ValidatingWebhookConfiguration's).
	PizzaChecksWebhook = "no-pineapple." + CRDGroup
	// PineappleMessage is the validating webhook's refusal.
	PineappleMessage = "pineapple does not belong on a pizza"
)

// DefaultToppings are what a pizza created without toppings gets.
var DefaultToppings = []string{"tomato", "mozzarella"}

// admissionReview is the part of an AdmissionReview (v1 or v1beta1) the
// demo webhooks read.
type admissionReview struct {
	APIVersion string `json:"apiVersion"`
	Request    struct {
		UID       string `json:"uid"`
		Operation string `json:"operation"`
		Object    struct {
			APIVersion string `json:"apiVersion"`
			Spec       *struct {
				Toppings []json.RawMessage `json:"toppings"`
			} `json:"spec"`
		} `json:"object"`
	} `json:"request"`
}

// servePizzaAdmission answers an AdmissionReview on MutatePizzaPath or
// ValidatePizzaPath.
func servePizzaAdmission(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST an AdmissionReview", http.StatusMethodNotAllowed)
		return
	}
	var review admissionReview
	if err := json.NewDecoder(io.LimitReader(r.Body, 4<<20)).Decode(&review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var resp map[string]any
	if r.URL.Path == MutatePizzaPath {
		resp = defaultToppings(&review)
	} else {
		resp = refusePineapple(&review)
	}
	resp["uid"] = review.Request.UID
	apiVersion := review.APIVersion
	if apiVersion == "" {
		apiVersion = "admission.k8s.io/v1"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": apiVersion, "kind": "AdmissionReview", "response": resp})
}

// defaultToppings allows the pizza and, when it has no toppings, patches
// in DefaultToppings in its version's shape (names in v1alpha1,
// {name, quantity} in v1beta1).
func defaultToppings(review *admissionReview) map[string]any {
	resp := map[string]any{"allowed": true}
	obj := review.Request.Object
	if obj.Spec != nil && len(obj.Spec.Toppings) > 0 {
		return resp
	}
	var toppings []any
	for _, t := range DefaultToppings {
		if strings.HasSuffix(obj.APIVersion, "/v1alpha1") {
			toppings = append(toppings, t)
		} else {
			toppings = append(toppings, map[string]any{"name": t, "quantity": 1})
		}
	}
	op := map[string]any{"op": "add", "path": "/spec/toppings", "value": toppings}
	if obj.Spec == nil {
		op = map[string]any{"op": "add", "path": "/spec", "value": map[string]any{"toppings": toppings}}
	}
	patch, _ := json.Marshal([]any{op})
	resp["patchType"] = "JSONPatch"
	resp["patch"] = patch // []byte: base64 in JSON, as AdmissionResponse.patch
	return resp
}

// refusePineapple refuses a pizza with a topping named pineapple (in
// either version) with PineappleMessage and code 403.
func refusePineapple(review *admissionReview) map[string]any {
	if s := review.Request.Object.Spec; s != nil {
		for _, raw := range s.Toppings {
			var name string
			if json.Unmarshal(raw, &name) != nil {
				var t struct {
					Name string `json:"name"`
				}
				_ = json.Unmarshal(raw, &t)
				name = t.Name
			}
			if strings.EqualFold(name, "pineapple") {
				return map[string]any{"allowed": false, "status": map[string]any{"code": http.StatusForbidden, "message": PineappleMessage}}
			}
		}
	}
	return map[string]any{"allowed": true}
}

// withPizzaAdmission answers MutatePizzaPath and ValidatePizzaPath itself
// and passes everything else to next.
func withPizzaAdmission(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == MutatePizzaPath || r.URL.Path == ValidatePizzaPath {
			servePizzaAdmission(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// PizzaWebhookConfigurations returns the MutatingWebhookConfiguration
// PizzaDefaultsWebhook (CREATE of pizzas) and the
// ValidatingWebhookConfiguration PizzaChecksWebhook (CREATE and UPDATE of
// pizzas), both calling the demo Service (<ServiceName>.<Namespace>.svc,
// port ServicePort) verified against caBundle, AdmissionReview v1,
// sideEffects None, failurePolicy Fail, timeout 5 s.
func PizzaWebhookConfigurations(caBundle []byte) []meta.Object {
	port := int32(ServicePort)
	mutate, validate := MutatePizzaPath, ValidatePizzaPath
	fail, none, timeout := "Fail", "None", int32(5)
	rule := func(ops ...string) []admissionregistration.RuleWithOperations {
		return []admissionregistration.RuleWithOperations{{Operations: ops, Rule: admissionregistration.Rule{
			APIGroups: []string{CRDGroup}, APIVersions: []string{"*"}, Resources: []string{"pizzas"}}}}
	}
	cc := func(path *string) admissionregistration.WebhookClientConfig {
		return admissionregistration.WebhookClientConfig{CABundle: caBundle,
			Service: &admissionregistration.ServiceReference{Namespace: Namespace, Name: ServiceName, Port: &port, Path: path}}
	}
	tm := func(kind string) meta.TypeMeta {
		return meta.TypeMeta{Kind: kind, APIVersion: "admissionregistration.k8s.io/v1"}
	}
	return []meta.Object{
		&admissionregistration.MutatingWebhookConfiguration{TypeMeta: tm("MutatingWebhookConfiguration"),
			ObjectMeta: meta.ObjectMeta{Name: PizzaDefaultsWebhook},
			Webhooks: []admissionregistration.MutatingWebhook{{Name: PizzaDefaultsWebhook, ClientConfig: cc(&mutate),
				Rules: rule("CREATE"), FailurePolicy: &fail, SideEffects: &none, TimeoutSeconds: &timeout,
				AdmissionReviewVersions: []string{"v1"}}}},
		&admissionregistration.ValidatingWebhookConfiguration{TypeMeta: tm("ValidatingWebhookConfiguration"),
			ObjectMeta: meta.ObjectMeta{Name: PizzaChecksWebhook},
			Webhooks: []admissionregistration.ValidatingWebhook{{Name: PizzaChecksWebhook, ClientConfig: cc(&validate),
				Rules: rule("CREATE", "UPDATE"), FailurePolicy: &fail, SideEffects: &none, TimeoutSeconds: &timeout,
				AdmissionReviewVersions: []string{"v1"}}}},
	}
}
