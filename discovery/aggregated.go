package discovery

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// Aggregated discovery: apidiscovery.k8s.io/v2 APIGroupDiscoveryList
// (apiserver pkg/endpoints/discovery/aggregated/handler.go, etag.go,
// wrapper.go).

const (
	aggPrefixV2      = `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2",`
	aggPrefixV2Beta1 = `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2beta1",`
	// aggMediaSuffix is appended to the base media type of an aggregated
	// response's Content-Type.
	aggMediaSuffixV2      = ";g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	aggMediaSuffixV2Beta1 = ";g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
)

// aggDoc is one aggregated document with its ETag. The v2beta1 form is
// derived on first use (only with Options.ServeV2Beta1). An aggDoc must not
// be copied.
type aggDoc struct {
	// etag is the quoted ETag: the upper-case hex SHA-512 of the list
	// encoded without kind and apiVersion, as upstream hashes the list
	// before the serializer adds them.
	etag string
	v2   *document

	betaOnce sync.Once
	beta     *document
}

// encodeAggregated encodes groups (already in order) into an aggDoc.
func encodeAggregated(groups []*aggGroup) *aggDoc {
	size := len(aggPrefixV2) + 32
	for _, g := range groups {
		size += 64 + len(g.name)
		for _, v := range g.versions {
			size += 48 + len(v.version) + len(v.result.resources)
		}
	}
	b := make([]byte, 0, size)
	b = append(b, aggPrefixV2...)
	b = append(b, `"metadata":{},"items":[`...)
	for i, g := range groups {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendAggGroup(b, g)
	}
	b = append(b, "]}\n"...)

	h := sha512.New()
	h.Write([]byte{'{'})
	h.Write(b[len(aggPrefixV2) : len(b)-1])
	var sum [sha512.Size]byte
	etag := `"` + strings.ToUpper(hex.EncodeToString(h.Sum(sum[:0]))) + `"`
	return &aggDoc{etag: etag, v2: &document{compact: b}}
}

// appendAggGroup appends one APIGroupDiscovery.
func appendAggGroup(b []byte, g *aggGroup) []byte {
	b = append(b, `{"metadata":{`...)
	if g.name != "" {
		b = append(b, `"name":`...)
		b = appendJSONString(b, g.name)
		b = append(b, ',')
	}
	b = append(b, `"creationTimestamp":null}`...)
	if len(g.versions) > 0 {
		b = append(b, `,"versions":[`...)
		for i, v := range g.versions {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"version":`...)
			b = appendJSONString(b, v.version)
			if len(v.result.resources) > 0 {
				b = append(b, `,"resources":`...)
				b = append(b, v.result.resources...)
			}
			if v.result.freshness != "" {
				b = append(b, `,"freshness":`...)
				b = appendJSONString(b, v.result.freshness)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// v2beta1 returns the document with apiVersion apidiscovery.k8s.io/v2beta1;
// the ETag stays the same (it does not cover apiVersion).
func (d *aggDoc) v2beta1() *document {
	d.betaOnce.Do(func() {
		c := d.v2.compact
		b := make([]byte, 0, len(c)+5)
		b = append(b, aggPrefixV2Beta1...)
		b = append(b, c[len(aggPrefixV2):]...)
		d.beta = &document{compact: b}
	})
	return d.beta
}

// serveAggregated writes an aggregated document with its ETag, Vary and
// Cache-Control headers, or 304 with those headers when If-None-Match is
// exactly the ETag (no list parsing, no weak tags, as upstream).
func serveAggregated(w http.ResponseWriter, r *http.Request, d *aggDoc, n negotiated) {
	h := w.Header()
	h.Set("Cache-Control", "public")
	h.Set("Etag", d.etag)
	h.Set("Vary", "Accept")
	if r.Header.Get("If-None-Match") == d.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	doc, suffix := d.v2, aggMediaSuffixV2
	if n.beta {
		doc, suffix = d.v2beta1(), aggMediaSuffixV2Beta1
	}
	if n.kind == mediaYAML {
		h.Set("Content-Type", contentTypeYAML+suffix)
	} else {
		h.Set("Content-Type", contentTypeJSON+suffix)
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(doc.jsonOrYAML(n.kind, n.pretty))
}

// convertResourceListJSON decodes an APIResourceList and returns its
// resources in aggregated form, encoded as a JSON array (nil when empty).
func convertResourceListJSON(data []byte) ([]byte, error) {
	var list APIResourceList
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("decode APIResourceList: %w", err)
	}
	res, err := ConvertAPIResources(list.APIResources)
	if err != nil {
		return nil, err
	}
	return encodeResources(res)
}

// convertCustomResourceListJSON is convertResourceListJSON for the
// resources of CustomResourceDefinitions served as group/version: every
// responseKind without a group and version names group and version, as
// apiextensions-apiserver's discovery controller registers them
// (kube-apiserver 1.33.13: pizzas and pizzas/status answer
// {"group":"restaurant.example.com","version":"v1beta1","kind":"Pizza"},
// pizzas/scale keeps autoscaling/v1 Scale).
func convertCustomResourceListJSON(data []byte, group, version string) ([]byte, error) {
	var list APIResourceList
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("decode APIResourceList: %w", err)
	}
	res, err := ConvertAPIResources(list.APIResources)
	if err != nil {
		return nil, err
	}
	fill := func(k *GroupVersionKind) {
		if k != nil && k.Group == "" && k.Version == "" {
			k.Group, k.Version = group, version
		}
	}
	for i := range res {
		fill(res[i].ResponseKind)
		for j := range res[i].Subresources {
			fill(res[i].Subresources[j].ResponseKind)
		}
	}
	return encodeResources(res)
}

// encodeResources encodes aggregated resources as a JSON array, or nil when
// there are none (so the version's "resources" field is omitted).
func encodeResources(res []APIResourceDiscovery) ([]byte, error) {
	if len(res) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encode resources: %w", err)
	}
	return b, nil
}

// ConvertAPIResources turns the resources of a legacy APIResourceList into
// aggregated discovery resources, as kube-aggregator does for backends that
// do not serve aggregated discovery (apiserver
// pkg/endpoints/discovery/aggregated ConvertGroupVersionIntoToDiscovery):
// top-level resources keep their order, scope comes from namespaced,
// responseKind is {group, version, kind} of the entry (empty group and
// version unless the backend set them); every "<resource>/<sub>" entry is
// folded into its parent's subresources (a parent is created, with an empty
// responseKind, when missing). It fails when a subresource's scope differs
// from its parent's.
func ConvertAPIResources(list []APIResource) ([]APIResourceDiscovery, error) {
	var out []APIResourceDiscovery
	parents := map[string]int{}
	scopeOf := func(r *APIResource) string {
		if r.Namespaced {
			return ScopeNamespaced
		}
		return ScopeCluster
	}
	for i := range list {
		r := &list[i]
		if strings.Contains(r.Name, "/") {
			continue
		}
		out = append(out, APIResourceDiscovery{
			Resource:         r.Name,
			ResponseKind:     &GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind},
			Scope:            scopeOf(r),
			SingularResource: r.SingularName,
			Verbs:            r.Verbs,
			ShortNames:       r.ShortNames,
			Categories:       r.Categories,
		})
		parents[r.Name] = len(out) - 1
	}
	for i := range list {
		r := &list[i]
		parent, sub, ok := strings.Cut(r.Name, "/")
		if !ok {
			continue
		}
		idx, exists := parents[parent]
		if !exists {
			out = append(out, APIResourceDiscovery{Resource: parent, Scope: scopeOf(r), ResponseKind: &GroupVersionKind{}})
			idx = len(out) - 1
			parents[parent] = idx
		}
		if out[idx].Scope != scopeOf(r) {
			return nil, fmt.Errorf("parent %s (scope: %s) and subresource %s (scope: %s) scope do not match", parent, out[idx].Scope, sub, scopeOf(r))
		}
		s := APISubresourceDiscovery{Subresource: sub, Verbs: r.Verbs, ResponseKind: &GroupVersionKind{}}
		if r.Kind != "" {
			s.ResponseKind = &GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		}
		out[idx].Subresources = append(out[idx].Subresources, s)
	}
	return out, nil
}
