package aggregatortest_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/demo"
	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	apimeta "github.com/aggsim/aggsim/registry/apis/meta"
)

// TestWithCRDsAndAggregatedAPI starts a Server with the Pizza CRD
// (WithCRDs: Start returns once it is Established and in discovery) and
// the demo wardle backend, then uses client-go as a controller test
// would: discovery lists both groups with their preferred versions, the
// RESTMapper maps Pizza (and its short name's resource) and Flunder, and
// the dynamic client creates, reads (in both served versions) and lists
// pizzas.
func TestWithCRDsAndAggregatedAPI(t *testing.T) {
	srv := aggregatortest.Start(t, aggregatortest.WithCRDs("../testdata/crd/restaurant.example.com_pizzas.yaml"))
	cgStartDemo(t, srv)
	cfg := cgRESTConfig(t, srv)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := dc.ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	preferred := map[string]string{}
	for _, g := range groups.Groups {
		preferred[g.Name] = g.PreferredVersion.Version
	}
	if preferred["restaurant.example.com"] != "v1beta1" || preferred[demo.Group] != "v1alpha1" {
		t.Errorf("preferred versions %v", preferred)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	for _, c := range []struct {
		gk   schema.GroupKind
		want string
	}{
		{schema.GroupKind{Group: "restaurant.example.com", Kind: "Pizza"}, "restaurant.example.com/v1beta1, Resource=pizzas"},
		{schema.GroupKind{Group: demo.Group, Kind: "Flunder"}, "wardle.example.com/v1alpha1, Resource=flunders"},
	} {
		m, err := mapper.RESTMapping(c.gk)
		if err != nil || m.Resource.String() != c.want {
			t.Errorf("RESTMapping(%v) = %v, %v; want %s", c.gk, m, err, c.want)
		}
	}
	expander := restmapper.NewShortcutExpander(mapper, memory.NewMemCacheClient(dc), nil) // as kubectl does
	if gvr, err := expander.ResourceFor(schema.GroupVersionResource{Resource: "pz"}); err != nil || gvr.Resource != "pizzas" {
		t.Errorf("ResourceFor(pz) = %v, %v", gvr, err)
	}

	dyn := cgDynamic(t, srv)
	pizzas := schema.GroupVersionResource{Group: "restaurant.example.com", Version: "v1beta1", Resource: "pizzas"}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "restaurant.example.com/v1beta1", "kind": "Pizza",
		"metadata": map[string]any{"name": "margherita"},
		"spec":     map[string]any{"size": "medium", "toppings": []any{map[string]any{"name": "basil"}}},
	}}
	created, err := dyn.Resource(pizzas).Namespace("default").Create(t.Context(), obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.GetGeneration() != 1 || created.GetUID() == "" {
		t.Errorf("created %v", created.Object)
	}
	old := pizzas
	old.Version = "v1alpha1"
	got, err := dyn.Resource(old).Namespace("default").Get(t.Context(), "margherita", metav1.GetOptions{})
	if err != nil || got.GetAPIVersion() != "restaurant.example.com/v1alpha1" {
		t.Errorf("get v1alpha1: %v %v", got, err)
	}
	list, err := dyn.Resource(pizzas).List(t.Context(), metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.GetKind() != "PizzaList" {
		t.Errorf("list: %v %v", list, err)
	}
}

// TestWithCRDsErrors: a missing file, or a CRD the server refuses, makes
// NewServer fail with the reason.
func TestWithCRDsErrors(t *testing.T) {
	if _, err := aggregatortest.NewServer(aggregatortest.WithCRDs("testdata/no-such-file.yaml")); err == nil || err.Error() != "WithCRDs: cannot read testdata/no-such-file.yaml" {
		t.Errorf("missing file: %v", err)
	}
	bad := &apiextensions.CustomResourceDefinition{
		TypeMeta:   apimeta.TypeMeta{Kind: "CustomResourceDefinition", APIVersion: "apiextensions.k8s.io/v1"},
		ObjectMeta: apimeta.ObjectMeta{Name: "widgets.example.com"},
		Spec:       apiextensions.CustomResourceDefinitionSpec{Group: "example.com", Scope: "Namespaced", Names: apiextensions.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"}},
	}
	_, err := aggregatortest.NewServer(aggregatortest.WithCRDObjects(bad))
	if err == nil || !strings.Contains(err.Error(), `WithCRDs: create widgets.example.com (widgets.example.com): 422`) || !strings.Contains(err.Error(), "must have exactly one version marked as storage version") {
		t.Errorf("invalid CRD: %v", err)
	}
}
