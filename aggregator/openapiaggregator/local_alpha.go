package openapiaggregator

import "github.com/aggsim/aggsim/registry"

// SetLocalAlphaV3 makes the controller list in /openapi/v3 and serve the
// documents of the alpha group-versions aggsim serves itself, by key
// ("apis/admissionregistration.k8s.io/v1alpha1", see
// registry.OpenAPIV3AlphaGroupVersions), as kube-apiserver lists an
// enabled alpha group-version. Call it before the controller serves.
func (c *Controller) SetLocalAlphaV3(keys []string) { c.localV3 = keys }

// addLocalAlphaV3 adds the local alpha documents to s (unless a remote
// APIService serves the same key) and to extra, the index entries.
func (c *Controller) addLocalAlphaV3(s *openAPISnapshot, extra []registry.OpenAPIV3IndexEntry) []registry.OpenAPIV3IndexEntry {
	for _, key := range c.localV3 {
		if _, remote := s.remote[key]; remote {
			continue
		}
		body, hash, ok := registry.OpenAPIV3AlphaGroupVersion(key)
		if !ok {
			continue
		}
		s.remote[key] = openAPIV3Doc{body: body, hash: hash}
		extra = append(extra, registry.OpenAPIV3IndexEntry{Path: key, ServerRelativeURL: "/openapi/v3/" + key + "?hash=" + hash})
	}
	return extra
}
