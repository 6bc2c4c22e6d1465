package rest

import (
	"reflect"
	"testing"
)

// The derived schemas protobuf_test.go checks field by field against the
// upstream Go types: the very tables DecodeProtobufToJSON and
// EncodeJSONToProtobuf use.
var (
	pbNamespace      = protobufSchemaFor("v1", "Namespace")
	pbNamespaceList  = protobufSchemaFor("v1", "NamespaceList")
	pbConfigMap      = protobufSchemaFor("v1", "ConfigMap")
	pbConfigMapList  = protobufSchemaFor("v1", "ConfigMapList")
	pbService        = protobufSchemaFor("v1", "Service")
	pbServiceList    = protobufSchemaFor("v1", "ServiceList")
	pbEndpoints      = protobufSchemaFor("v1", "Endpoints")
	pbEndpointsList  = protobufSchemaFor("v1", "EndpointsList")
	pbDeleteOptions  = protobufSchemaFor("v1", "DeleteOptions")
	pbStatus         = protobufSchemaFor("v1", "Status")
	pbAPIService     = protobufSchemaFor("apiregistration.k8s.io/v1", "APIService")
	pbAPIServiceList = protobufSchemaFor("apiregistration.k8s.io/v1", "APIServiceList")
)

// TestProtobufKinds pins which kinds have a protobuf schema: the Go-typed
// kinds of registry.Strategies and their lists, the six review kinds,
// DeleteOptions and Status in any v1, and nothing for the GenericObject
// kinds.
func TestProtobufKinds(t *testing.T) {
	for name, s := range map[string]*pbType{
		"Namespace": pbNamespace, "NamespaceList": pbNamespaceList, "ConfigMap": pbConfigMap, "ConfigMapList": pbConfigMapList,
		"Service": pbService, "ServiceList": pbServiceList, "Endpoints": pbEndpoints, "EndpointsList": pbEndpointsList,
		"DeleteOptions": pbDeleteOptions, "Status": pbStatus, "APIService": pbAPIService, "APIServiceList": pbAPIServiceList,
	} {
		if s == nil || s.name != name {
			t.Errorf("%s: schema %+v", name, s)
		}
	}
	for _, k := range []pbKindKey{{"authentication.k8s.io/v1", "TokenReview"}, {"authentication.k8s.io/v1", "SelfSubjectReview"}, {"authentication.k8s.io/v1", "TokenRequest"},
		{"authorization.k8s.io/v1", "SubjectAccessReview"}, {"authorization.k8s.io/v1", "LocalSubjectAccessReview"},
		{"authorization.k8s.io/v1", "SelfSubjectAccessReview"}, {"authorization.k8s.io/v1", "SelfSubjectRulesReview"}} {
		if protobufSchemas().kinds[k] == nil {
			t.Errorf("no schema for %v", k)
		}
	}
	// The discovery documents, the core group's without apiVersion.
	for _, k := range []pbKindKey{{"v1", "APIResourceList"}, {"", "APIResourceList"}, {"v1", "APIGroup"},
		{"v1", "APIGroupList"}, {"", "APIVersions"}, {"v1", "APIVersions"}} {
		if protobufSchemas().kinds[k] == nil {
			t.Errorf("no schema for %v", k)
		}
	}
	// The RBAC kinds and lists.
	for _, k := range []string{"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"} {
		for _, kind := range []string{k, k + "List"} {
			if protobufSchemas().kinds[pbKindKey{"rbac.authorization.k8s.io/v1", kind}] == nil {
				t.Errorf("no schema for %s", kind)
			}
		}
	}
	if len(protobufSchemas().kinds) != 39 {
		t.Errorf("%d kinds, want 39: %v", len(protobufSchemas().kinds), protobufSchemas().kinds)
	}
	if protobufSchemaFor("apiregistration.k8s.io/v1", "Status") != pbStatus || protobufSchemaFor("meta.k8s.io/v1", "DeleteOptions") != pbDeleteOptions {
		t.Error("Status and DeleteOptions are not served in every v1")
	}
	for _, k := range [][2]string{{"v1", "Pod"}, {"v1beta1", "Status"}, {"apiregistration.k8s.io/v1", "Namespace"},
		{"admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"}, {"flowcontrol.apiserver.k8s.io/v1", "FlowSchema"}} {
		if s := protobufSchemaFor(k[0], k[1]); s != nil {
			t.Errorf("%s %s has schema %s", k[0], k[1], s.name)
		}
	}
	// Shared messages are one schema.
	if pbNamespace.fields[0].msg != pbService.fields[0].msg || pbNamespaceList.fields[0].msg != pbStatus.fields[0].msg {
		t.Error("ObjectMeta or ListMeta derived twice")
	}
}

// TestProtobufSchemaOfErrors: struct tags the derivation cannot follow are
// errors naming the Go field.
func TestProtobufSchemaOfErrors(t *testing.T) {
	type badWire struct {
		N int32 `json:"n" protobuf:"bytes,1,opt,name=n"`
	}
	type badCard struct {
		L []string `json:"l" protobuf:"bytes,1,opt,name=l"`
	}
	type badTag struct {
		S string `json:"s" protobuf:"bytes,x,opt,name=s"`
	}
	type shortTag struct {
		S string `json:"s" protobuf:"bytes,1"`
	}
	type noJSON struct {
		S string `protobuf:"bytes,1,opt,name=s"`
	}
	type badType struct {
		F float64 `json:"f" protobuf:"fixed64,1,opt,name=f"`
	}
	type nested struct {
		B badWire `json:"b" protobuf:"bytes,1,opt,name=b"`
	}
	for _, tc := range []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeFor[badWire](), `rest.badWire.N: protobuf tag "bytes,1,opt,name=n": wire type of int32 is varint`},
		{reflect.TypeFor[badCard](), `rest.badCard.L: protobuf tag "bytes,1,opt,name=l": []string wants rep`},
		{reflect.TypeFor[badTag](), `rest.badTag.S: protobuf tag "bytes,x,opt,name=s": bad field number`},
		{reflect.TypeFor[shortTag](), `rest.shortTag.S: protobuf tag "bytes,1": want wiretype,number,opt|rep,name=...`},
		{reflect.TypeFor[noJSON](), `rest.noJSON.S: json tag "": a protobuf field needs a JSON name`},
		{reflect.TypeFor[badType](), `rest.badType.F: Go type float64 has no protobuf shape`},
		{reflect.TypeFor[nested](), `rest.nested.B: rest.badWire.N: protobuf tag "bytes,1,opt,name=n": wire type of int32 is varint`},
		{reflect.TypeFor[string](), `protobuf schema of string: not a struct`},
	} {
		_, err := protobufSchemaOf(tc.t, map[reflect.Type]*pbType{})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v: err = %v, want %s", tc.t, err, tc.want)
		}
	}
}
