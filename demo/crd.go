package demo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/rest"
)

// The demo's CustomResourceDefinition: Toppings in restaurant.example.com
// (after the pizza restaurant of Programming Kubernetes), next to the
// aggregated wardle.example.com, so the two ways of extending the API can
// be compared side by side.
const (
	// CRDGroup is the Topping CRD's group.
	CRDGroup = "restaurant.example.com"
	// ToppingCRDName is the Topping CRD's name.
	ToppingCRDName = "toppings." + CRDGroup
)

// ToppingCRD returns the Topping CustomResourceDefinition: namespaced,
// one version v1 (served, storage) with the status subresource, short
// name tp, category food, a schema with defaults (spec.weightGrams 50,
// spec.vegetarian true) and printer columns VEGETARIAN, WEIGHT and AGE.
func ToppingCRD() *apiextensions.CustomResourceDefinition {
	def := func(v string) *apiextensions.JSON { return &apiextensions.JSON{Raw: []byte(v)} }
	minimum := 1.0
	str := func(desc string) apiextensions.JSONSchemaProps {
		return apiextensions.JSONSchemaProps{Type: "string", Description: desc}
	}
	return &apiextensions.CustomResourceDefinition{
		TypeMeta:   meta.TypeMeta{Kind: "CustomResourceDefinition", APIVersion: "apiextensions.k8s.io/v1"},
		ObjectMeta: meta.ObjectMeta{Name: ToppingCRDName},
		Spec: apiextensions.CustomResourceDefinitionSpec{
			Group: CRDGroup,
			Names: apiextensions.CustomResourceDefinitionNames{
				Plural: "toppings", Singular: "topping", Kind: "Topping", ListKind: "ToppingList",
				ShortNames: []string{"tp"}, Categories: []string{"food"},
			},
			Scope:      apiextensions.NamespaceScoped,
			Conversion: &apiextensions.CustomResourceConversion{Strategy: apiextensions.NoneConverter},
			Versions: []apiextensions.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensions.CustomResourceValidation{OpenAPIV3Schema: &apiextensions.JSONSchemaProps{
					Description: "Topping is something to put on a pizza.",
					Type:        "object",
					Properties: map[string]apiextensions.JSONSchemaProps{
						"apiVersion": {Type: "string"},
						"kind":       {Type: "string"},
						"metadata":   {Type: "object"},
						"spec": {
							Description: "What the topping is.",
							Type:        "object",
							Properties: map[string]apiextensions.JSONSchemaProps{
								"weightGrams": {Description: "Grams per pizza.", Type: "integer", Format: "int32", Default: def("50"), Minimum: &minimum},
								"vegetarian":  {Description: "Whether vegetarians eat it.", Type: "boolean", Default: def("true")},
								"origin":      str("Where it comes from."),
							},
						},
						"status": {
							Type: "object",
							Properties: map[string]apiextensions.JSONSchemaProps{
								"inStock": {Description: "Whether the kitchen has it.", Type: "boolean"},
							},
						},
					},
				}},
				Subresources: &apiextensions.CustomResourceSubresources{Status: &apiextensions.CustomResourceSubresourceStatus{}},
				AdditionalPrinterColumns: []apiextensions.CustomResourceColumnDefinition{
					{Name: "Vegetarian", Type: "boolean", JSONPath: ".spec.vegetarian"},
					{Name: "Weight", Type: "integer", JSONPath: ".spec.weightGrams"},
					{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
				},
			}},
		},
	}
}

// WaitEstablished polls the CRD name in api every 10 ms until its
// Established condition is True, ctx ends or timeout passes; the error
// says what the CRD's conditions were.
func WaitEstablished(ctx context.Context, api *rest.API, name string, timeout time.Duration) error {
	store := api.Store(meta.GroupResource{Group: apiextensions.GroupAPIExtensions, Resource: "customresourcedefinitions"})
	if store == nil {
		return errors.New("demo: the API does not serve customresourcedefinitions")
	}
	deadline := time.Now().Add(timeout)
	for {
		obj, err := store.Get(context.WithoutCancel(ctx), "", name)
		var conds []apiextensions.CustomResourceDefinitionCondition
		if err == nil {
			crd := obj.(*apiextensions.CustomResourceDefinition)
			if apiextensions.IsEstablished(crd) {
				return nil
			}
			conds = crd.Status.Conditions
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("demo: CustomResourceDefinition %s not Established after %s (conditions %v, %v)", name, timeout, conds, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
