package registry

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/aggsim/aggsim/internal/apidoc"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/authorization"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/version"
	"github.com/aggsim/aggsim/registry/negotiation"
	"github.com/aggsim/aggsim/registry/openapi"
)

// OpenAPI documents of aggsim's own resources: swagger 2.0 for
// /openapi/v2 and OpenAPI 3.0 for /openapi/v3 (an index plus one document
// per group-version), shaped like kube-apiserver's (kube-openapi builder
// output): definitions named io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService,
// io.k8s.api.core.v1.Service, io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta...;
// x-kubernetes-group-version-kind on every kind and on every operation;
// the strategic-merge-patch extensions kubectl apply reads
// (x-kubernetes-patch-merge-key / -patch-strategy / -list-type /
// -list-map-keys); and the fieldValidation query parameter on every
// POST/PUT/PATCH, which kubectl 1.27+ looks for on the PATCH operation of
// a kind (cli-runtime resource/query_param_verifier_v3.go) before it sends
// server-side field validation. The documents are built once, on first
// use, and never change. Package openapi builds them: every kind's
// definition is derived from its Go type (for the GenericObject kinds of
// admissionregistration and flowcontrol, GenericStrategy.WireType).

// OpenAPIV3IndexEntry is one entry of the /openapi/v3 index: the key
// ("apis/wardle.example.com/v1alpha1") and the URL of its document,
// usually "/openapi/v3/<key>?hash=<HASH>".
type OpenAPIV3IndexEntry struct {
	Path              string
	ServerRelativeURL string
}

// OpenAPIV2 returns the swagger 2.0 document of aggsim's own resources
// (JSON). The bytes are shared: callers must not modify them.
func OpenAPIV2() []byte { return openAPIDocs().v2 }

// OpenAPIV2Hash returns OpenAPIHash of OpenAPIV2(), computed at build
// time.
func OpenAPIV2Hash() string { return openAPIDocs().v2hash }

// OpenAPIV3GroupVersion returns the OpenAPI v3 document for gvPath
// ("api/v1" or "apis/apiregistration.k8s.io/v1", without leading slash)
// and true, or nil and false when aggsim serves no such group-version.
// The bytes are shared: callers must not modify them.
func OpenAPIV3GroupVersion(gvPath string) ([]byte, bool) {
	d, ok := openAPIDocs().v3[strings.TrimPrefix(gvPath, "/")]
	return d, ok
}

// OpenAPIV3Hash returns the hash of the v3 document of gvPath, as used in
// its serverRelativeURL and ETag: upper-case hex SHA-512 of the bytes.
func OpenAPIV3Hash(gvPath string) (string, bool) {
	h, ok := openAPIDocs().v3hash[strings.TrimPrefix(gvPath, "/")]
	return h, ok
}

// OpenAPIHash returns the upper-case hex SHA-512 of doc, the hash
// kube-openapi puts in serverRelativeURL ?hash= and in the ETag.
func OpenAPIHash(doc []byte) string { return fmt.Sprintf("%X", sha512.Sum512(doc)) }

// OpenAPIAcceptsJSON reports whether an Accept header admits the JSON form
// of an /openapi/v2 document: an empty header, or a media range (its
// parameters ignored) that is application/json, application/* or */*.
// kube-openapi's handler (k8s.io/kube-openapi/pkg/handler/handler.go)
// answers 406 otherwise.
func OpenAPIAcceptsJSON(accept string) bool {
	return accept == "" || negotiation.Names(accept, "application/json", "*/*", "application/*")
}

// OpenAPIV3Index returns the /openapi/v3 index: aggsim's own
// group-versions plus extra (e.g. those of available remote APIServices);
// an extra entry with the same path replaces aggsim's.
func OpenAPIV3Index(extra ...OpenAPIV3IndexEntry) []byte {
	type entry struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	}
	d := openAPIDocs()
	paths := make(map[string]entry, len(d.v3)+len(extra))
	for gv, h := range d.v3hash {
		paths[gv] = entry{"/openapi/v3/" + gv + "?hash=" + h}
	}
	for _, e := range extra {
		paths[e.Path] = entry{e.ServerRelativeURL}
	}
	b, _ := json.Marshal(map[string]any{"paths": paths})
	return b
}

type openAPIDocSet struct {
	v2     []byte
	v2hash string
	v3     map[string][]byte
	v3hash map[string]string
}

// openAPIDocs are the documents of Strategies, generated at build time
// (openapi_generated.go).
var openAPIDocs = sync.OnceValue(func() *openAPIDocSet { return generatedOpenAPIDocs(openAPISetOwn) })

// openAPIInfoVersion is the info.version kube-apiserver 1.33 reports: its
// major.minor, not the full git version (captured: "1.33").
const openAPIInfoVersion = "1.33"

// buildOpenAPIDocs builds the documents of strategies (Strategies, or
// those plus the alpha ones, openapi_alpha.go); go generate ./registry
// writes them into zz_generated.openapi.* (openapi_generated.go), which
// is what is served.
func buildOpenAPIDocs(strategies []Strategy) *openAPIDocSet {
	defs, err := openAPIDefinitions(strategies)
	if err != nil {
		panic("registry: " + err.Error())
	}
	var resources []openapi.Resource
	for _, s := range strategies {
		info := s.Info()
		r := info.OpenAPIResource(definitionName(strategies, info, info.Kind), definitionName(strategies, info, info.ListKind))
		r.Verbs = info.Verbs
		for _, sub := range info.Subresources {
			// A subresource with a kind of its own (ServiceProxyOptions)
			// is a connect subresource; one with the resource's kind
			// writes the object (namespaces/finalize).
			if t, ok := subresourceKinds[sub.Group+"/"+sub.Kind]; ok {
				r.Subresources = append(r.Subresources, openapi.Subresource{Name: sub.Name, Kind: sub.Kind, Create: true,
					Group: sub.Group, Version: sub.Version, KindDefinition: openapi.DefinitionName(t)})
				continue
			}
			r.Subresources = append(r.Subresources, openapi.Subresource{Name: sub.Name, Kind: sub.Kind, Connect: sub.Kind != info.Kind})
		}
		// Upstream's DELETE of a Service or ResourceQuota answers the
		// deleted object (its REST storage returns it) and its operation
		// documents that; the others document a Status (namespaces' too).
		r.DeleteReturnsObject = info.Group == "" && (info.Resource == "services" || info.Resource == "resourcequotas" || info.Resource == "serviceaccounts")
		r.AggregatorOwn = info.Group == apiregistration.GroupAPIRegistration
		resources = append(resources, r)
	}
	resources = append(resources, reviewResources()...)
	docs, err := openapi.Build(openapi.DocumentSpec{
		Title: "Kubernetes", Version: openAPIInfoVersion,
		Resources: resources, Definitions: defs,
		Protobuf: true, Discovery: true, ServerVersion: true,
	})
	if err != nil {
		panic("registry: " + err.Error())
	}
	set := &openAPIDocSet{v2: docs.V2, v2hash: OpenAPIHash(docs.V2), v3: docs.V3, v3hash: map[string]string{}}
	for gv, b := range docs.V3 {
		set.v3hash[gv] = OpenAPIHash(b)
	}
	return set
}

// reviewKinds are the create-only review resources kube-apiserver 1.33
// serves (pkg/registry/authentication and pkg/registry/authorization;
// aggsim answers them in aggregator/reviews.go), in upstream's
// discovery order: POST on the collection, no list, no item paths.
var reviewKinds = []struct {
	group, resource string
	namespaced      bool
	typ             reflect.Type
}{
	{authentication.GroupAuthentication, "selfsubjectreviews", false, reflect.TypeFor[authentication.SelfSubjectReview]()},
	{authentication.GroupAuthentication, "tokenreviews", false, reflect.TypeFor[authentication.TokenReview]()},
	{authorization.GroupAuthorization, "localsubjectaccessreviews", true, reflect.TypeFor[authorization.LocalSubjectAccessReview]()},
	{authorization.GroupAuthorization, "selfsubjectaccessreviews", false, reflect.TypeFor[authorization.SelfSubjectAccessReview]()},
	{authorization.GroupAuthorization, "selfsubjectrulesreviews", false, reflect.TypeFor[authorization.SelfSubjectRulesReview]()},
	{authorization.GroupAuthorization, "subjectaccessreviews", false, reflect.TypeFor[authorization.SubjectAccessReview]()},
}

// subresourceKinds are the Go types of the kinds of create-only
// subresources of another group (serviceaccounts/token), by
// "<group>/<kind>".
var subresourceKinds = map[string]reflect.Type{
	authentication.GroupAuthentication + "/TokenRequest": reflect.TypeFor[authentication.TokenRequest](),
}

// reviewResources are reviewKinds as OpenAPI resources.
func reviewResources() []openapi.Resource {
	out := make([]openapi.Resource, 0, len(reviewKinds))
	for _, r := range reviewKinds {
		out = append(out, openapi.Resource{
			Group: r.group, Version: VersionV1, Kind: r.typ.Name(), Resource: r.resource,
			Namespaced: r.namespaced, Verbs: []string{"create"},
			KindDefinition: openapi.DefinitionName(r.typ),
		})
	}
	return out
}

// gvPath is the document key of info's group-version ("api/v1").
func gvPath(info ResourceInfo) string { return openapi.GroupVersionPath(info.Group, info.Version) }

var (
	genericObjectType = reflect.TypeFor[GenericObject]()
)

// kindType returns the Go type of kind (info's Kind or ListKind): the
// strategy's object type, or for a GenericObject kind its
// GenericStrategy.WireType (and the list type beside it); nil when there
// is none.
func kindType(strategies []Strategy, info ResourceInfo, kind string) reflect.Type {
	for _, s := range strategies {
		if s.Info().Group != info.Group || s.Info().Kind != info.Kind {
			continue
		}
		t := reflect.TypeOf(s.New()).Elem()
		if t == genericObjectType {
			g, _ := s.(GenericStrategy)
			if t = g.WireType; t == nil {
				return nil
			}
		}
		if kind == info.Kind {
			return t
		}
		return apidoc.TypeByName(t, kind)
	}
	return nil
}

// definitionName is the OpenAPI definition name of one of aggsim's kinds,
// that of its Go type.
func definitionName(strategies []Strategy, info ResourceInfo, kind string) string {
	if t := kindType(strategies, info, kind); t != nil {
		return openapi.DefinitionName(t)
	}
	panic("registry: no Go type for kind " + kind)
}

// openAPIDefinitions are the definitions of aggsim's kinds: derived from
// the Go types of the kinds that have one, with their
// group-version-kind, plus the GenericObject kinds described here.
func openAPIDefinitions(strategies []Strategy) (map[string]*openapi.Schema, error) {
	var types []reflect.Type
	type gvk struct{ group, version, kind string }
	kinds := map[string]gvk{}
	for _, s := range strategies {
		info := s.Info()
		for _, kind := range []string{info.Kind, info.ListKind} {
			t := kindType(strategies, info, kind)
			if t == nil {
				continue
			}
			types = append(types, t)
			kinds[openapi.DefinitionName(t)] = gvk{info.Group, info.Version, kind}
		}
	}
	for _, r := range reviewKinds {
		types = append(types, r.typ)
		kinds[openapi.DefinitionName(r.typ)] = gvk{r.group, VersionV1, r.typ.Name()}
	}
	for key, t := range subresourceKinds {
		types = append(types, t)
		group, _, _ := strings.Cut(key, "/")
		kinds[openapi.DefinitionName(t)] = gvk{group, VersionV1, t.Name()}
	}
	types = append(types, reflect.TypeFor[meta.APIVersions](), reflect.TypeFor[meta.APIResourceList](), reflect.TypeFor[version.Info]())
	d, err := openapi.Definitions(types...)
	if err != nil {
		return nil, err
	}
	discoveryDefinitions(d)
	for _, kind := range []string{"APIVersions", "APIResourceList", "APIGroup", "APIGroupList"} {
		openapi.AddGroupVersionKind(d[metaV1+kind], "", "v1", kind)
	}
	for name, k := range kinds {
		openapi.AddGroupVersionKind(d[name], k.group, k.version, k.kind)
	}
	return d, nil
}

// requiredString is a string property of a Go field without omitempty:
// kube-openapi gives it the default "".
func requiredString(desc string) *openapi.Schema {
	s := openapi.String(desc)
	s.Default = ""
	return s
}

// metaV1 is the definition name prefix of k8s.io/apimachinery's meta/v1.
const metaV1 = "io.k8s.apimachinery.pkg.apis.meta.v1."

// discoveryDefinitions are the discovery kinds without a Go type in
// registry (package discovery owns APIGroup and APIGroupList): the
// schemas of GET /apis and /apis/<group>, as upstream's meta/v1 types
// define them.
func discoveryDefinitions(d map[string]*openapi.Schema) {
	gvfd := metaV1 + "GroupVersionForDiscovery"
	d[gvfd] = openapi.Object("GroupVersionForDiscovery names one version of an API group.", map[string]*openapi.Schema{
		"groupVersion": requiredString("groupVersion is \"<group>/<version>\", for example \"apiregistration.k8s.io/v1\"."),
		"version":      requiredString("version is the version alone, for example \"v1\"."),
	}, "groupVersion", "version")
	atomic := map[string]any{"x-kubernetes-list-type": "atomic"}
	d[metaV1+"APIGroup"] = openapi.Object("APIGroup is an API group: its name, the versions it serves and the version clients should prefer.", map[string]*openapi.Schema{
		"apiVersion":                 openapi.String(apiVersionDescription),
		"kind":                       openapi.String(kindDescription),
		"name":                       requiredString("name is the name of the group."),
		"preferredVersion":           openapi.Struct(gvfd, "preferredVersion is the version clients should use."),
		"serverAddressByClientCIDRs": openapi.Array(openapi.Struct(metaV1+"ServerAddressByClientCIDR", ""), "serverAddressByClientCIDRs tells clients in a network which address reaches the server.", atomic),
		"versions":                   openapi.Array(openapi.Struct(gvfd, ""), "versions are the versions the group serves.", atomic),
	}, "name", "versions")
	list := openapi.Object("APIGroupList is the list of API groups a server serves (GET /apis).", map[string]*openapi.Schema{
		"apiVersion": openapi.String(apiVersionDescription),
		"groups":     openapi.Array(openapi.Struct(metaV1+"APIGroup", ""), "groups are the API groups.", atomic),
		"kind":       openapi.String(kindDescription),
	}, "groups")
	d[metaV1+"APIGroupList"] = list
}

// Descriptions of the apiVersion and kind of every object, as meta.TypeMeta
// documents them.
var (
	apiVersionDescription = apidoc.FieldDoc(reflect.TypeFor[meta.TypeMeta](), "APIVersion")
	kindDescription       = apidoc.FieldDoc(reflect.TypeFor[meta.TypeMeta](), "Kind")
)
