package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
)

// CustomResourceOpenAPIBuilder builds the same documents as
// CustomResourceOpenAPI, byte for byte, from documents built once per CRD
// (name, uid and resourceVersion) and merged per group/version: a CRD
// created in a group/version of N CRDs costs the build of its own
// documents and a merge, not the build of N CRDs' documents.
// apiextensions-apiserver also builds one spec per CRD and merges them
// (pkg/controller/openapi). It is safe for concurrent use; the zero value
// is ready.
type CustomResourceOpenAPIBuilder struct {
	mu sync.Mutex
	// parts holds, by group/version, the split documents of the CRDs of
	// the last Build of that group/version.
	parts map[string]map[crdDocKey]*crdDocParts
}

// crdDocKey identifies the CRD object a crdDocParts was built from.
type crdDocKey struct {
	name, uid, resourceVersion string
}

// crdDocParts are one CRD's documents of a group/version split into what
// a merge unions: v3 paths and schemas; v2 paths, definitions and shared
// parameters (named by a hash of their content, so equal names are equal
// parameters). info and v3 are the first document's constant parts.
type crdDocParts struct {
	v2Info, v2SecurityDefinitions, v2Security json.RawMessage
	v2Paths, v2Definitions, v2Parameters      map[string]json.RawMessage
	v3Info, v3SecuritySchemes                 json.RawMessage
	v3Paths, v3Schemas                        map[string]json.RawMessage
}

// Build returns the v2 and v3 documents of group/version for crds, as
// CustomResourceOpenAPI(group, version, crds) returns them. CRDs without
// a resourceVersion are built every time. Errors: CustomResourceOpenAPI's
// for a CRD on its own, or ctx's once it ends (checked between CRDs).
func (b *CustomResourceOpenAPIBuilder) Build(ctx context.Context, group, version string, crds []*apiextensions.CustomResourceDefinition) (v2, v3 []byte, err error) {
	all, err := b.collect(ctx, group, version, crds)
	if err != nil {
		return nil, nil, err
	}
	return mergeCRDDocs(all)
}

// CustomResourceOpenAPIParts are a group/version's documents as
// BuildParts returns them: the v3 document, and the v2 document's paths,
// definitions and shared parameters (compact JSON values), which is all
// /openapi/v2 merges of it.
type CustomResourceOpenAPIParts struct {
	V3                                   []byte
	V2Paths, V2Definitions, V2Parameters map[string]json.RawMessage
}

// BuildParts is Build without encoding the v2 document: its paths,
// definitions and parameters are returned as maps (what splitting Build's
// v2 document gives). Errors: Build's.
func (b *CustomResourceOpenAPIBuilder) BuildParts(ctx context.Context, group, version string, crds []*apiextensions.CustomResourceDefinition) (CustomResourceOpenAPIParts, error) {
	all, err := b.collect(ctx, group, version, crds)
	if err != nil {
		return CustomResourceOpenAPIParts{}, err
	}
	v3, err := mergeV3(all)
	if err != nil {
		return CustomResourceOpenAPIParts{}, err
	}
	return CustomResourceOpenAPIParts{
		V3:            v3,
		V2Paths:       unionParts(all, func(p *crdDocParts) map[string]json.RawMessage { return p.v2Paths }),
		V2Definitions: unionParts(all, func(p *crdDocParts) map[string]json.RawMessage { return p.v2Definitions }),
		V2Parameters:  unionParts(all, func(p *crdDocParts) map[string]json.RawMessage { return p.v2Parameters }),
	}, nil
}

// collect returns the split documents of each CRD of crds in
// group/version, building those not kept from the last call.
func (b *CustomResourceOpenAPIBuilder) collect(ctx context.Context, group, version string, crds []*apiextensions.CustomResourceDefinition) ([]*crdDocParts, error) {
	gv := group + "/" + version
	b.mu.Lock()
	cached := b.parts[gv]
	b.mu.Unlock()
	next := map[crdDocKey]*crdDocParts{}
	var all []*crdDocParts
	for _, crd := range crds {
		if crd.Spec.Group != group {
			continue
		}
		key := crdDocKey{crd.Name, crd.UID, crd.ResourceVersion}
		p := cached[key]
		if p == nil || key.resourceVersion == "" {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			d2, d3, err := CustomResourceOpenAPI(group, version, []*apiextensions.CustomResourceDefinition{crd})
			if err != nil {
				if crdVersionIndex(crd, version) < 0 {
					continue // not served in group/version: left out, as CustomResourceOpenAPI does
				}
				return nil, err
			}
			if p, err = splitCRDDocs(d2, d3); err != nil {
				return nil, err
			}
		}
		next[key] = p
		all = append(all, p)
	}
	b.mu.Lock()
	if b.parts == nil {
		b.parts = map[string]map[crdDocKey]*crdDocParts{}
	}
	b.parts[gv] = next
	b.mu.Unlock()
	if len(all) == 0 {
		return nil, fmt.Errorf("no custom resources in %s/%s", group, version)
	}
	return all, nil
}

// Forget drops what is kept of group/version (no CRD serves it any more).
func (b *CustomResourceOpenAPIBuilder) Forget(group, version string) {
	b.mu.Lock()
	delete(b.parts, group+"/"+version)
	b.mu.Unlock()
}

// splitCRDDocs splits one CRD's documents (openapi.Build's compact
// output) into crdDocParts.
func splitCRDDocs(v2, v3 []byte) (*crdDocParts, error) {
	var d2 struct {
		Info                json.RawMessage            `json:"info"`
		Paths               map[string]json.RawMessage `json:"paths"`
		Definitions         map[string]json.RawMessage `json:"definitions"`
		Parameters          map[string]json.RawMessage `json:"parameters"`
		SecurityDefinitions json.RawMessage            `json:"securityDefinitions"`
		Security            json.RawMessage            `json:"security"`
	}
	if err := json.Unmarshal(v2, &d2); err != nil {
		return nil, fmt.Errorf("split a CRD's v2 document: %w", err)
	}
	var d3 struct {
		Info       json.RawMessage            `json:"info"`
		Paths      map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas         map[string]json.RawMessage `json:"schemas"`
			SecuritySchemes json.RawMessage            `json:"securitySchemes"`
		} `json:"components"`
	}
	if err := json.Unmarshal(v3, &d3); err != nil {
		return nil, fmt.Errorf("split a CRD's v3 document: %w", err)
	}
	return &crdDocParts{
		v2Info: d2.Info, v2SecurityDefinitions: d2.SecurityDefinitions, v2Security: d2.Security,
		v2Paths: d2.Paths, v2Definitions: d2.Definitions, v2Parameters: d2.Parameters,
		v3Info: d3.Info, v3SecuritySchemes: d3.Components.SecuritySchemes,
		v3Paths: d3.Paths, v3Schemas: d3.Components.Schemas,
	}, nil
}

// mergeCRDDocs writes the documents of all together in openapi.Build's
// layout: the same top-level keys in its order, every map's keys sorted
// (the first part of a name wins; equal names are equal values).
func mergeCRDDocs(all []*crdDocParts) (v2, v3 []byte, err error) {
	union := func(get func(*crdDocParts) map[string]json.RawMessage) map[string]json.RawMessage {
		return unionParts(all, get)
	}
	first := all[0]
	var b2 bytes.Buffer
	b2.WriteString(`{"swagger":"2.0","info":`)
	b2.Write(first.v2Info)
	b2.WriteString(`,"paths":`)
	if err := writeRawObject(&b2, union(func(p *crdDocParts) map[string]json.RawMessage { return p.v2Paths }), false); err != nil {
		return nil, nil, err
	}
	b2.WriteString(`,"definitions":`)
	if err := writeRawObject(&b2, union(func(p *crdDocParts) map[string]json.RawMessage { return p.v2Definitions }), false); err != nil {
		return nil, nil, err
	}
	if params := union(func(p *crdDocParts) map[string]json.RawMessage { return p.v2Parameters }); len(params) > 0 {
		b2.WriteString(`,"parameters":`)
		if err := writeRawObject(&b2, params, false); err != nil {
			return nil, nil, err
		}
	}
	b2.WriteString(`,"securityDefinitions":`)
	b2.Write(first.v2SecurityDefinitions)
	b2.WriteString(`,"security":`)
	b2.Write(first.v2Security)
	b2.WriteByte('}')
	if v3, err = mergeV3(all); err != nil {
		return nil, nil, err
	}
	return b2.Bytes(), v3, nil
}

// unionParts is the union of the maps get returns for all (the first
// value of a key wins; equal keys hold equal values).
func unionParts(all []*crdDocParts, get func(*crdDocParts) map[string]json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, p := range all {
		for k, v := range get(p) {
			if _, ok := out[k]; !ok {
				out[k] = v
			}
		}
	}
	return out
}

// mergeV3 writes the v3 document of all (see mergeCRDDocs).
func mergeV3(all []*crdDocParts) ([]byte, error) {
	union := func(get func(*crdDocParts) map[string]json.RawMessage) map[string]json.RawMessage {
		return unionParts(all, get)
	}
	first := all[0]
	var b3 bytes.Buffer
	b3.WriteString(`{"openapi":"3.0.0","info":`)
	b3.Write(first.v3Info)
	b3.WriteString(`,"paths":`)
	if err := writeRawObject(&b3, union(func(p *crdDocParts) map[string]json.RawMessage { return p.v3Paths }), true); err != nil {
		return nil, err
	}
	b3.WriteString(`,"components":{"schemas":`)
	if err := writeRawObject(&b3, union(func(p *crdDocParts) map[string]json.RawMessage { return p.v3Schemas }), true); err != nil {
		return nil, err
	}
	b3.WriteString(`,"securitySchemes":`)
	b3.Write(first.v3SecuritySchemes)
	b3.WriteString(`}}`)
	return b3.Bytes(), nil
}

// writeRawObject writes m as a JSON object with its keys sorted, the keys
// encoded as encoding/json encodes them (HTML characters escaped when
// escapeHTML) and the values as they are.
func writeRawObject(buf *bytes.Buffer, m map[string]json.RawMessage, escapeHTML bool) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		var kb bytes.Buffer
		enc := json.NewEncoder(&kb)
		enc.SetEscapeHTML(escapeHTML)
		if err := enc.Encode(k); err != nil {
			return err
		}
		buf.Write(bytes.TrimSuffix(kb.Bytes(), []byte("\n")))
		buf.WriteByte(':')
		buf.Write(m[k])
	}
	buf.WriteByte('}')
	return nil
}
