package refsuite

import (
	"bytes"
	"encoding/base64"
	"hash/fnv"
	"slices"
	"strings"
)

// coreResources are the core (v1) resources aggsim serves itself; the
// reference's other core resources (pods, secrets, nodes, ...) are removed
// from core discovery and from the core OpenAPI document before comparing.
// Subresources of these (namespaces/status, services/proxy, ...) are kept:
// a missing one is a difference.
var coreResources = []string{"configmaps", "endpoints", "events", "limitranges", "namespaces", "resourcequotas", "services"}

// referenceOnlyGroups are kube-apiserver 1.33's built-in API groups that
// aggsim deliberately does not serve (README, "How this differs"). They
// are removed from group lists, aggregated discovery, APIService lists and
// OpenAPI documents of the reference. Groups aggsim serves
// (apiregistration.k8s.io, authentication.k8s.io, authorization.k8s.io,
// admissionregistration.k8s.io, flowcontrol.apiserver.k8s.io, core) and
// groups a scenario registers stay.
var referenceOnlyGroups = []string{
	"apps", "events.k8s.io", "autoscaling", "batch", "certificates.k8s.io", "networking.k8s.io",
	"policy", "rbac.authorization.k8s.io", "storage.k8s.io", "apiextensions.k8s.io", "scheduling.k8s.io",
	"coordination.k8s.io", "node.k8s.io", "discovery.k8s.io", "resource.k8s.io",
	"storagemigration.k8s.io", "internal.apiserver.k8s.io", "certificates.k8s.io",
}

// referenceOnlyRoots are kube-apiserver's non-API paths aggsim does not
// serve (log files and the service-account issuer's discovery), removed
// from OpenAPI documents and the /openapi/v3 index.
var referenceOnlyRoots = []string{"logs", ".well-known", "openid"}

func isReferenceOnlyGroup(g string) bool { return slices.Contains(referenceOnlyGroups, g) }

// foreignGroup reports whether group g was registered by another
// scenario than own: scenarios register groups named <scenario>.example.com,
// and as they run concurrently, a group list shows whichever exist at the
// time; only the scenario's own group is kept.
func foreignGroup(g, own string) bool {
	return strings.HasSuffix(g, ".example.com") && g != own+".example.com"
}

// filterDiscovery removes what aggsim does not serve from a discovery
// answer (APIGroupList, APIGroupDiscoveryList, the core APIResourceList)
// or an APIServiceList, and the groups other scenarios registered (see
// foreignGroup); other values are left alone. It reports whether it
// changed v.
func filterDiscovery(v any, own string) bool {
	o, ok := v.(*object)
	if !ok {
		return false
	}
	kind, _ := o.get("kind").(string)
	changed := false
	keepItems := func(field string, keep func(*object) bool) {
		items, ok := o.get(field).([]any)
		if !ok {
			return
		}
		kept := items[:0:0]
		for _, it := range items {
			io, ok := it.(*object)
			if !ok || keep(io) {
				kept = append(kept, it)
			}
		}
		if len(kept) != len(items) {
			changed = true
			o.set(field, kept)
		}
	}
	switch kind {
	case "APIGroupList":
		keepItems("groups", func(g *object) bool {
			n, _ := g.get("name").(string)
			return !isReferenceOnlyGroup(n) && !foreignGroup(n, own)
		})
	case "APIGroupDiscoveryList":
		keepItems("items", func(g *object) bool {
			md, _ := g.get("metadata").(*object)
			if md == nil {
				return true
			}
			n, _ := md.get("name").(string)
			if n == "" {
				for _, ver := range asSlice(g.get("versions")) {
					if vo, ok := ver.(*object); ok && filterResources(vo, "resources", "resource") {
						changed = true
					}
				}
			}
			return !isReferenceOnlyGroup(n) && !foreignGroup(n, own)
		})
	case "APIResourceList":
		if gv, _ := o.get("groupVersion").(string); gv == "v1" && filterResources(o, "resources", "name") {
			changed = true
		}
	case "APIServiceList":
		keepItems("items", func(a *object) bool {
			spec, _ := a.get("spec").(*object)
			if spec == nil {
				return true
			}
			g, _ := spec.get("group").(string)
			return !isReferenceOnlyGroup(g)
		})
	}
	return changed
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

// filterResources keeps the entries of o[field] whose nameKey, up to its
// first "/", is a core resource aggsim serves.
func filterResources(o *object, field, nameKey string) bool {
	items := asSlice(o.get(field))
	kept := items[:0:0]
	for _, it := range items {
		r, ok := it.(*object)
		if !ok {
			kept = append(kept, it)
			continue
		}
		n, _ := r.get(nameKey).(string)
		base, _, _ := strings.Cut(n, "/")
		if slices.Contains(coreResources, base) {
			kept = append(kept, it)
		}
	}
	if len(kept) == len(items) {
		return false
	}
	o.set(field, kept)
	return true
}

// keepAPIPath reports whether an OpenAPI path (/api/v1/namespaces/{namespace}/pods,
// or an /openapi/v3 index key api/v1) belongs to what aggsim serves.
func keepAPIPath(p string) bool {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	if slices.Contains(referenceOnlyRoots, segs[0]) {
		return false
	}
	switch segs[0] {
	case "apis":
		return len(segs) < 2 || !isReferenceOnlyGroup(segs[1])
	case "api":
		rest := segs[1:]
		if len(rest) < 2 { // /api, /api/v1
			return true
		}
		rest = rest[1:]
		if rest[0] == "watch" {
			rest = rest[1:]
		}
		if len(rest) >= 3 && rest[0] == "namespaces" && rest[1] == "{namespace}" {
			return slices.Contains(coreResources, rest[2])
		}
		return len(rest) == 0 || slices.Contains(coreResources, rest[0])
	}
	return true
}

// filterOpenAPI removes the reference's paths aggsim does not serve from an
// OpenAPI v2 or v3 document (or the /openapi/v3 index) and then keeps only
// the schemas those paths reach, and replaces every description text by
// "<description>" (issue 20 lets descriptions be aggsim's own words; a
// missing description still shows as a difference), and renames v2's
// shared parameters (renameSharedParameters). It reports whether it
// changed v.
func filterOpenAPI(v any) bool {
	doc, ok := v.(*object)
	if !ok {
		return false
	}
	changed := filterOpenAPIPaths(doc)
	return renameSharedParameters(doc) || changed
}

// filterOpenAPIPaths is filterOpenAPI but for the shared parameters.
func filterOpenAPIPaths(doc *object) bool {
	changed := replaceDescriptions(doc)
	paths, _ := doc.get("paths").(*object)
	if paths == nil {
		return changed
	}
	dropped := false
	for _, p := range slices.Clone(paths.keys) {
		if !keepAPIPath(p) {
			paths.del(p)
			dropped = true
		}
	}
	if !dropped {
		return changed
	}
	// Keep the schemas reachable from the kept paths.
	defs, prefix := doc.get("definitions"), "#/definitions/"
	if comps, ok := doc.get("components").(*object); ok {
		defs, prefix = comps.get("schemas"), "#/components/schemas/"
	}
	schemas, _ := defs.(*object)
	if schemas == nil {
		return true
	}
	reach := map[string]bool{}
	var queue []string
	// v2's shared parameters (#/parameters/<name>) reach definitions too
	// (the DeleteOptions body of every delete).
	params, _ := doc.get("parameters").(*object)
	walkedParams := map[string]bool{}
	var walk func(any)
	walk = func(x any) {
		switch y := x.(type) {
		case *object:
			for _, k := range y.keys {
				if k == "$ref" {
					s, _ := y.vals[k].(string)
					if p, ok := strings.CutPrefix(s, "#/parameters/"); ok && params != nil && !walkedParams[p] {
						walkedParams[p] = true
						walk(params.get(p))
					}
					if strings.HasPrefix(s, prefix) {
						n := strings.TrimPrefix(s, prefix)
						if !reach[n] {
							reach[n] = true
							queue = append(queue, n)
						}
					}
					continue
				}
				walk(y.vals[k])
			}
		case []any:
			for _, e := range y {
				walk(e)
			}
		}
	}
	walk(paths)
	for i := 0; i < len(queue); i++ {
		walk(schemas.get(queue[i]))
	}
	for _, n := range slices.Clone(schemas.keys) {
		if !reach[n] {
			schemas.del(n)
		}
	}
	return true
}

// renameSharedParameters renames the shared parameters of a swagger 2.0
// document (#/parameters/<name>-<hash>): kube-openapi names each after an
// FNV hash of its JSON, descriptions included, so the names follow the
// description texts the normaliser replaces. Each becomes
// <name>-<hash of its normalised JSON>; parameters that only their
// descriptions told apart merge into one; the entries are re-sorted and
// every $ref rewritten. It reports whether it changed doc (run after the
// paths are filtered, so that parameters only dropped paths used go).
func renameSharedParameters(doc *object) bool {
	params, _ := doc.get("parameters").(*object)
	if params == nil {
		return false
	}
	used := map[string]bool{}
	var collect func(any)
	collect = func(x any) {
		switch y := x.(type) {
		case *object:
			for _, k := range y.keys {
				if s, ok := y.vals[k].(string); ok && k == "$ref" {
					used[s] = true
				}
				collect(y.vals[k])
			}
		case []any:
			for _, e := range y {
				collect(e)
			}
		}
	}
	collect(doc.get("paths"))
	rename := map[string]string{}
	renamed := &object{vals: map[string]any{}}
	for _, k := range params.keys {
		if !used["#/parameters/"+k] {
			continue
		}
		p := params.vals[k]
		var buf bytes.Buffer
		encodeOrdered(&buf, p)
		h := fnv.New64()
		h.Write(buf.Bytes())
		name, _ := p.(*object).get("name").(string)
		nn := name + "-" + base64.URLEncoding.EncodeToString(h.Sum(nil)[:6])
		rename["#/parameters/"+k] = "#/parameters/" + nn
		renamed.set(nn, p)
	}
	slices.Sort(renamed.keys)
	doc.set("parameters", renamed)
	var rewrite func(any)
	rewrite = func(x any) {
		switch y := x.(type) {
		case *object:
			for _, k := range y.keys {
				if s, ok := y.vals[k].(string); ok && k == "$ref" {
					if to, ok := rename[s]; ok {
						y.vals[k] = to
					}
					continue
				}
				rewrite(y.vals[k])
			}
		case []any:
			for _, e := range y {
				rewrite(e)
			}
		}
	}
	rewrite(doc.get("paths"))
	return true
}

func replaceDescriptions(x any) bool {
	changed := false
	switch y := x.(type) {
	case *object:
		for _, k := range y.keys {
			if s, ok := y.vals[k].(string); ok && k == "description" {
				if s != "" && s != "<description>" {
					y.vals[k] = "<description>"
					changed = true
				}
				continue
			}
			if replaceDescriptions(y.vals[k]) {
				changed = true
			}
		}
	case []any:
		for _, e := range y {
			if replaceDescriptions(e) {
				changed = true
			}
		}
	}
	return changed
}
