package demo

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// The demo's two-version CRD with a conversion webhook, after the pizza
// restaurant of Programming Kubernetes (ch. 9): Pizzas in
// restaurant.example.com, v1alpha1 with toppings as names and v1beta1
// (storage) with toppings as {name, quantity}, converted by the demo
// backend at ConversionPath.
const (
	// PizzaCRDName is the Pizza CRD's name.
	PizzaCRDName = "pizzas." + CRDGroup
	// ConversionPath is where the demo backend answers ConversionReviews
	// (without authentication, as webhooks are called).
	ConversionPath = "/convert"
)

// PizzaCRD returns the Pizza CustomResourceDefinition: namespaced,
// v1alpha1 (served, spec.toppings: [string]) and v1beta1 (served,
// storage, spec.toppings: [{name, quantity}], quantity defaulting to 1),
// conversion Webhook through the demo Service (<ServiceName>.<Namespace>.svc,
// port ServicePort, path ConversionPath) verified against caBundle.
func PizzaCRD(caBundle []byte) *apiextensions.CustomResourceDefinition {
	port := int32(ServicePort)
	path := ConversionPath
	one := &apiextensions.JSON{Raw: []byte("1")}
	spec := func(toppings apiextensions.JSONSchemaProps) *apiextensions.CustomResourceValidation {
		return &apiextensions.CustomResourceValidation{OpenAPIV3Schema: &apiextensions.JSONSchemaProps{
			Description: "Pizza is a pizza to bake.", Type: "object",
			Properties: map[string]apiextensions.JSONSchemaProps{
				"apiVersion": {Type: "string"}, "kind": {Type: "string"}, "metadata": {Type: "object"},
				"spec": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{"toppings": toppings}},
			},
		}}
	}
	return &apiextensions.CustomResourceDefinition{
		TypeMeta:   meta.TypeMeta{Kind: "CustomResourceDefinition", APIVersion: "apiextensions.k8s.io/v1"},
		ObjectMeta: meta.ObjectMeta{Name: PizzaCRDName},
		Spec: apiextensions.CustomResourceDefinitionSpec{
			Group: CRDGroup,
			Names: apiextensions.CustomResourceDefinitionNames{
				Plural: "pizzas", Singular: "pizza", Kind: "Pizza", ListKind: "PizzaList",
				ShortNames: []string{"pz"}, Categories: []string{"food"},
			},
			Scope: apiextensions.NamespaceScoped,
			Conversion: &apiextensions.CustomResourceConversion{Strategy: apiextensions.WebhookConverter, Webhook: &apiextensions.WebhookConversion{
				ConversionReviewVersions: []string{"v1"},
				ClientConfig: &apiextensions.WebhookClientConfig{CABundle: caBundle,
					Service: &apiextensions.ServiceReference{Namespace: Namespace, Name: ServiceName, Port: &port, Path: &path}},
			}},
			Versions: []apiextensions.CustomResourceDefinitionVersion{
				{Name: "v1alpha1", Served: true, Schema: spec(apiextensions.JSONSchemaProps{
					Description: "Topping names; a name twice means a double portion.", Type: "array",
					Items: &apiextensions.JSONSchemaPropsOrArray{Schema: &apiextensions.JSONSchemaProps{Type: "string"}},
				})},
				{Name: "v1beta1", Served: true, Storage: true, Schema: spec(apiextensions.JSONSchemaProps{
					Description: "Toppings with their quantities.", Type: "array",
					Items: &apiextensions.JSONSchemaPropsOrArray{Schema: &apiextensions.JSONSchemaProps{
						Type: "object", Required: []string{"name"},
						Properties: map[string]apiextensions.JSONSchemaProps{
							"name":     {Type: "string"},
							"quantity": {Type: "integer", Format: "int32", Default: one},
						},
					}},
				})},
			},
		},
	}
}

// ConvertPizza converts a Pizza (a whole object) to apiVersion:
// v1alpha1 names become v1beta1 {name, quantity} with repeated names
// counted in order of first appearance; v1beta1 toppings become their
// name repeated quantity times (at least once). Errors: an apiVersion
// other than restaurant.example.com/v1alpha1 or v1beta1.
func ConvertPizza(obj map[string]any, apiVersion string) (map[string]any, error) {
	switch apiVersion {
	case CRDGroup + "/v1alpha1", CRDGroup + "/v1beta1":
	default:
		return nil, fmt.Errorf("cannot convert a Pizza to %q", apiVersion)
	}
	obj["apiVersion"] = apiVersion
	spec, _ := obj["spec"].(map[string]any)
	ts, _ := spec["toppings"].([]any)
	if ts == nil {
		return obj, nil
	}
	if strings.HasSuffix(apiVersion, "/v1alpha1") {
		names := []any{}
		for _, t := range ts {
			m, ok := t.(map[string]any)
			if !ok {
				names = append(names, t) // already a name
				continue
			}
			n := 1
			if q, ok := m["quantity"].(float64); ok && q > 1 {
				n = int(q)
			}
			for range min(n, 100) {
				names = append(names, m["name"])
			}
		}
		spec["toppings"] = names
		return obj, nil
	}
	var out []any
	index := map[string]map[string]any{}
	for _, t := range ts {
		name, ok := t.(string)
		if !ok {
			out = append(out, t) // already {name, quantity}
			continue
		}
		if e := index[name]; e != nil {
			e["quantity"] = e["quantity"].(int) + 1
			continue
		}
		e := map[string]any{"name": name, "quantity": 1}
		index[name] = e
		out = append(out, e)
	}
	spec["toppings"] = out
	return obj, nil
}

// serveConversion answers a ConversionReview (v1 or v1beta1) with
// ConvertPizza's conversions, or a Failure result naming the error.
func serveConversion(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST a ConversionReview", http.StatusMethodNotAllowed)
		return
	}
	var review struct {
		APIVersion string `json:"apiVersion"`
		Request    struct {
			UID               string           `json:"uid"`
			DesiredAPIVersion string           `json:"desiredAPIVersion"`
			Objects           []map[string]any `json:"objects"`
		} `json:"request"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4<<20)).Decode(&review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	resp := map[string]any{"uid": review.Request.UID, "result": map[string]any{"status": "Success"}}
	converted := make([]map[string]any, 0, len(review.Request.Objects))
	for _, o := range review.Request.Objects {
		c, err := ConvertPizza(o, review.Request.DesiredAPIVersion)
		if err != nil {
			resp["result"] = map[string]any{"status": "Failure", "message": err.Error()}
			converted = nil
			break
		}
		converted = append(converted, c)
	}
	resp["convertedObjects"] = converted
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": review.APIVersion, "kind": "ConversionReview", "response": resp})
}

// withConversion answers ConversionPath itself (webhooks are called
// without client certificates) and passes everything else to next.
func withConversion(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == ConversionPath {
			serveConversion(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}
