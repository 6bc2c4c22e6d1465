package openapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/internal/apidoc"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Test wire types, documented below as apigen would generate their docs.

type Widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            WidgetSpec    `json:"spec"`
	Status          *WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Size     int32             `json:"size"`
	Color    string            `json:"color,omitempty"`
	Ports    []WidgetPort      `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"port"`
	Tags     []string          `json:"tags,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Data     map[string][]byte `json:"data,omitempty"`
	Raw      []byte            `json:"raw,omitempty"`
	When     meta.Time         `json:"when"`
	Target   core.IntOrString  `json:"target,omitempty"`
	Big      *int64            `json:"big,omitempty"`
	Flag     bool              `json:"flag"`
	Name     string            `json:"name"`
	Hidden   string            `json:"hidden,omitempty"`
	Ignored  string            `json:"-"`
	Untagged string
	internal string
}

type WidgetPort struct {
	Port     int32  `json:"port"`
	Protocol string `json:"protocol,omitempty"`
}

type WidgetStatus struct {
	Phase string `json:"phase,omitzero"`
}

type Gadget struct {
	Rate float32 `json:"rate"`
}

type BadDefault struct {
	N int32 `json:"n"`
}

type Renamed struct{}

var _ = func() bool {
	apidoc.Register(apidoc.Package{
		Markers: apidoc.Markers{"upstreamPackage": {"k8s.io/sample/pkg/apis/widgets/v1"}},
		Types: []apidoc.Type{
			{Type: reflect.TypeFor[Widget](), Doc: "Widget is a test kind.", Fields: []apidoc.Field{
				{Name: "ObjectMeta", Doc: "Standard object's metadata."},
				{Name: "Spec", Doc: "Spec is the spec."},
			}},
			{Type: reflect.TypeFor[WidgetSpec](), Doc: "WidgetSpec is the spec.", Fields: []apidoc.Field{
				{Name: "Size", Doc: "Size is required."},
				{Name: "Color", Markers: apidoc.Markers{"default": {`"blue"`}}},
				{Name: "Ports", Doc: "Ports by port and protocol.", Markers: apidoc.Markers{"listType": {"map"}, "listMapKey": {"port", "protocol"}}},
				{Name: "Tags", Markers: apidoc.Markers{"listType": {"atomic"}}},
				{Name: "Labels", Markers: apidoc.Markers{"mapType": {"atomic"}}},
				{Name: "When", Markers: apidoc.Markers{"optional": {""}}},
				{Name: "Target", Markers: apidoc.Markers{"required": {""}}},
				{Name: "Flag", Markers: apidoc.Markers{"openapi:noDefault": {""}}},
				{Name: "Hidden", Markers: apidoc.Markers{"openapi:skip": {""}}},
			}},
			{Type: reflect.TypeFor[WidgetPort](), Markers: apidoc.Markers{"structType": {"atomic"}}},
			{Type: reflect.TypeFor[BadDefault](), Fields: []apidoc.Field{{Name: "N", Markers: apidoc.Markers{"default": {"zero"}}}}},
			{Type: reflect.TypeFor[Renamed](), Markers: apidoc.Markers{"upstreamPackage": {"example.com/x/y"}}},
		},
	})
	return true
}()

func TestDefinitionName(t *testing.T) {
	for _, tc := range []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeFor[Widget](), "io.k8s.sample.pkg.apis.widgets.v1.Widget"},
		{reflect.TypeFor[Renamed](), "com.example.x.y.Renamed"},
		{reflect.TypeFor[Gadget](), "io.k8s.sample.pkg.apis.widgets.v1.Gadget"}, // undocumented type of a documented package
		{reflect.TypeFor[core.Service](), "io.k8s.api.core.v1.Service"},
		{reflect.TypeFor[core.IntOrString](), "io.k8s.apimachinery.pkg.util.intstr.IntOrString"},
		{reflect.TypeFor[meta.RawExtension](), "io.k8s.apimachinery.pkg.runtime.RawExtension"},
		{reflect.TypeFor[meta.ObjectMeta](), "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
		{reflect.TypeFor[apidoc.Field](), "com.github.aggsim.aggsim.internal.apidoc.Field"}, // no marker: its own path
	} {
		if got := DefinitionName(tc.t); got != tc.want {
			t.Errorf("DefinitionName(%v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}

func renderJSON(t *testing.T, s *Schema, v3 bool) string {
	t.Helper()
	b, err := json.Marshal(s.render(v3))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDefinitions pins the derived definitions of the test types, as
// swagger 2.0 and OpenAPI 3 JSON: descriptions, required lists, defaults,
// extensions, references and skipped fields.
func TestDefinitions(t *testing.T) {
	defs, err := Definitions(reflect.TypeFor[Widget]())
	if err != nil {
		t.Fatal(err)
	}
	const p = "io.k8s.sample.pkg.apis.widgets.v1."
	const m = "io.k8s.apimachinery.pkg.apis.meta.v1."
	for _, tc := range []struct{ name, v2, v3 string }{
		{p + "Widget",
			`{"description":"Widget is a test kind.","type":"object","required":["spec"],"properties":{"apiVersion":{"description":"APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources","type":"string"},"kind":{"description":"Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds","type":"string"},"metadata":{"description":"Standard object's metadata.","$ref":"#/definitions/` + m + `ObjectMeta"},"spec":{"description":"Spec is the spec.","$ref":"#/definitions/` + p + `WidgetSpec"},"status":{"$ref":"#/definitions/` + p + `WidgetStatus"}}}`,
			`{"description":"Widget is a test kind.","type":"object","required":["spec"],"properties":{"apiVersion":{"description":"APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources","type":"string"},"kind":{"description":"Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds","type":"string"},"metadata":{"description":"Standard object's metadata.","default":{},"allOf":[{"$ref":"#/components/schemas/` + m + `ObjectMeta"}]},"spec":{"description":"Spec is the spec.","default":{},"allOf":[{"$ref":"#/components/schemas/` + p + `WidgetSpec"}]},"status":{"$ref":"#/components/schemas/` + p + `WidgetStatus"}}}`},
		{p + "WidgetSpec",
			`{"description":"WidgetSpec is the spec.","type":"object","required":["size","target","flag","name","Untagged"],"properties":{"Untagged":{"type":"string"},"big":{"type":"integer","format":"int64"},"color":{"type":"string"},"data":{"type":"object","additionalProperties":{"type":"string","format":"byte"}},"flag":{"type":"boolean"},"labels":{"type":"object","additionalProperties":{"type":"string"},"x-kubernetes-map-type":"atomic"},"name":{"type":"string"},"ports":{"description":"Ports by port and protocol.","type":"array","items":{"$ref":"#/definitions/` + p + `WidgetPort"},"x-kubernetes-list-map-keys":["port","protocol"],"x-kubernetes-list-type":"map","x-kubernetes-patch-merge-key":"port","x-kubernetes-patch-strategy":"merge"},"raw":{"type":"string","format":"byte"},"size":{"description":"Size is required.","type":"integer","format":"int32"},"tags":{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"atomic"},"target":{"$ref":"#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString"},"when":{"$ref":"#/definitions/` + m + `Time"}}}`,
			`{"description":"WidgetSpec is the spec.","type":"object","required":["size","target","flag","name","Untagged"],"properties":{"Untagged":{"type":"string","default":""},"big":{"type":"integer","format":"int64"},"color":{"type":"string","default":"blue"},"data":{"type":"object","additionalProperties":{"type":"string","format":"byte"}},"flag":{"type":"boolean"},"labels":{"type":"object","additionalProperties":{"type":"string","default":""},"x-kubernetes-map-type":"atomic"},"name":{"type":"string","default":""},"ports":{"description":"Ports by port and protocol.","type":"array","items":{"default":{},"allOf":[{"$ref":"#/components/schemas/` + p + `WidgetPort"}]},"x-kubernetes-list-map-keys":["port","protocol"],"x-kubernetes-list-type":"map","x-kubernetes-patch-merge-key":"port","x-kubernetes-patch-strategy":"merge"},"raw":{"type":"string","format":"byte"},"size":{"description":"Size is required.","type":"integer","format":"int32","default":0},"tags":{"type":"array","items":{"type":"string","default":""},"x-kubernetes-list-type":"atomic"},"target":{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString"},"when":{"$ref":"#/components/schemas/` + m + `Time"}}}`},
		{p + "WidgetPort",
			`{"type":"object","required":["port"],"properties":{"port":{"type":"integer","format":"int32"},"protocol":{"type":"string"}},"x-kubernetes-map-type":"atomic"}`,
			`{"type":"object","required":["port"],"properties":{"port":{"type":"integer","format":"int32","default":0},"protocol":{"type":"string"}},"x-kubernetes-map-type":"atomic"}`},
		{p + "WidgetStatus",
			`{"type":"object","properties":{"phase":{"type":"string"}}}`,
			`{"type":"object","properties":{"phase":{"type":"string"}}}`},
		{m + "Time",
			`{"description":"Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  Wrappers are provided for many of the factory methods that the time package offers.","type":"string","format":"date-time"}`,
			`{"description":"Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  Wrappers are provided for many of the factory methods that the time package offers.","type":"string","format":"date-time"}`},
	} {
		s := defs[tc.name]
		if s == nil {
			t.Errorf("no definition %s", tc.name)
			continue
		}
		if got := renderJSON(t, s, false); got != tc.v2 {
			t.Errorf("%s v2:\n got %s\nwant %s", tc.name, got, tc.v2)
		}
		if got := renderJSON(t, s, true); got != tc.v3 {
			t.Errorf("%s v3:\n got %s\nwant %s", tc.name, got, tc.v3)
		}
	}
	// The referenced meta types come along; nothing else does.
	var names []string
	for n := range defs {
		names = append(names, strings.TrimPrefix(strings.TrimPrefix(n, m), p))
	}
	want := "FieldsV1 ManagedFieldsEntry ObjectMeta OwnerReference Time Widget WidgetPort WidgetSpec WidgetStatus io.k8s.apimachinery.pkg.util.intstr.IntOrString"
	if got := strings.Join(slices.Sorted(slices.Values(names)), " "); got != want {
		t.Errorf("definitions %s\nwant %s", got, want)
	}
	// Each call returns fresh schemas.
	again, _ := Definitions(reflect.TypeFor[Widget]())
	if again[p+"Widget"] == defs[p+"Widget"] {
		t.Error("Definitions shares schemas between calls")
	}
}

func TestDefinitionsErrors(t *testing.T) {
	for _, tc := range []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeFor[Gadget](), "openapi: Go type float32 has no OpenAPI form"},
		{reflect.TypeFor[BadDefault](), "openapi: N: +default=zero is not JSON: invalid character 'z' looking for beginning of value"},
		{reflect.TypeFor[string](), "openapi: string is not a definition (a named struct or a type with +openapi:type)"},
	} {
		if _, err := Definitions(tc.t); err == nil || err.Error() != tc.want {
			t.Errorf("%v: err = %v, want %s", tc.t, err, tc.want)
		}
	}
}

// TestKindAndListSchema pins the hand-described kind helpers: the standard
// properties come from meta.PartialObjectMetadata(List).
func TestKindAndListSchema(t *testing.T) {
	const m = "io.k8s.apimachinery.pkg.apis.meta.v1."
	k := KindSchema("example.com", "v1", "Thing", "Thing is a thing.", map[string]*Schema{"spec": Struct("x.ThingSpec", "")})
	const apiVersion = `"apiVersion":{"description":"APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources","type":"string"}`
	const kind = `"kind":{"description":"Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds","type":"string"}`
	want := `{"description":"Thing is a thing.","type":"object","properties":{` + apiVersion + `,` + kind + `,"metadata":{"description":"Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata","default":{},"allOf":[{"$ref":"#/components/schemas/` + m + `ObjectMeta"}]},"spec":{"default":{},"allOf":[{"$ref":"#/components/schemas/x.ThingSpec"}]}},"x-kubernetes-group-version-kind":[{"group":"example.com","kind":"Thing","version":"v1"}]}`
	if got := renderJSON(t, k, true); got != want {
		t.Errorf("KindSchema:\n got %s\nwant %s", got, want)
	}
	l := ListSchema("example.com", "v1", "ThingList", "x.Thing", "ThingList is a list.")
	want = `{"description":"ThingList is a list.","type":"object","required":["items"],"properties":{` + apiVersion + `,"items":{"description":"Items is the list of Thing objects.","type":"array","items":{"$ref":"#/definitions/x.Thing"}},` + kind + `,"metadata":{"description":"Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds","$ref":"#/definitions/` + m + `ListMeta"}},"x-kubernetes-group-version-kind":[{"group":"example.com","kind":"ThingList","version":"v1"}]}`
	if got := renderJSON(t, l, false); got != want {
		t.Errorf("ListSchema:\n got %s\nwant %s", got, want)
	}
}

// TestApimachineryDefinitions: the shared kinds carry the group-version-kinds
// kube-apiserver 1.33 lists (Status: the core group's only; DeleteOptions
// and WatchEvent: each of the 62 group-versions of its scheme, captured in
// registry/testdata/openapi-reference), and Build adds them to every
// document.
func TestApimachineryDefinitions(t *testing.T) {
	defs := apimachineryDefinitions()
	want := `[{"group":"","kind":"Status","version":"v1"}]`
	if b, _ := json.Marshal(defs[statusDefinition].Ext[extGVK]); string(b) != want {
		t.Errorf("Status GVKs %s, want %s", b, want)
	}
	for _, name := range []string{deleteOptionsDefinition, watchEventDefinition} {
		gvks, _ := defs[name].Ext[extGVK].([]any)
		if len(gvks) != 62 {
			t.Fatalf("%s: %d group-version-kinds, want 62", name, len(gvks))
		}
		first, _ := json.Marshal(gvks[0])
		last, _ := json.Marshal(gvks[61])
		kind := strings.TrimPrefix(name, "io.k8s.apimachinery.pkg.apis.meta.v1.")
		if string(first) != `{"group":"","kind":"`+kind+`","version":"v1"}` || string(last) != `{"group":"storagemigration.k8s.io","kind":"`+kind+`","version":"v1alpha1"}` {
			t.Errorf("%s: first %s, last %s", name, first, last)
		}
	}
	var names []string
	for n := range defs {
		names = append(names, n)
	}
	const all = "io.k8s.apimachinery.pkg.apis.meta.v1.Condition io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1 io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference io.k8s.apimachinery.pkg.apis.meta.v1.Patch io.k8s.apimachinery.pkg.apis.meta.v1.Preconditions io.k8s.apimachinery.pkg.apis.meta.v1.Status io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails io.k8s.apimachinery.pkg.apis.meta.v1.Time io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent io.k8s.apimachinery.pkg.runtime.RawExtension io.k8s.apimachinery.pkg.util.intstr.IntOrString"
	if got := strings.Join(slices.Sorted(slices.Values(names)), " "); got != all {
		t.Errorf("apimachinery definitions:\n got %s\nwant %s", got, all)
	}
}

func TestBuildErrors(t *testing.T) {
	thing := Resource{Group: "example.com", Version: "v1", Kind: "Thing", ListKind: "ThingList", Resource: "things", KindDefinition: "x.Thing", ListDefinition: "x.ThingList"}
	for _, tc := range []struct {
		name string
		spec DocumentSpec
		want string
	}{
		{"no definition names", DocumentSpec{Resources: []Resource{{Resource: "things"}}}, "openapi: resource things: KindDefinition and ListDefinition are required"},
		{"missing definitions", DocumentSpec{Resources: []Resource{thing}, Definitions: map[string]*Schema{
			"x.Thing": KindSchema("example.com", "v1", "Thing", "", map[string]*Schema{"spec": Struct("x.ThingSpec", "")}),
		}}, "openapi: definitions referenced but not defined: x.ThingList, x.ThingSpec"},
	} {
		if _, err := Build(tc.spec); err == nil || err.Error() != tc.want {
			t.Errorf("%s: err = %v, want %s", tc.name, err, tc.want)
		}
	}
	docs, err := Build(DocumentSpec{Title: "T", Version: "1", Resources: []Resource{thing}, Definitions: map[string]*Schema{
		"x.Thing":     KindSchema("example.com", "v1", "Thing", "", nil),
		"x.ThingList": ListSchema("example.com", "v1", "ThingList", "x.Thing", ""),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs.V3) != 1 || docs.V3["apis/example.com/v1"] == nil {
		t.Errorf("v3 documents %v", docs.V3)
	}
	if v2 := string(docs.V2); !strings.Contains(v2, `"/apis/example.com/v1/things/{name}"`) || strings.Contains(v2, "/status") {
		t.Errorf("v2 paths %s", v2)
	}
}
