package aggregator

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// aggregatedDiscoveryAccept asks /api and /apis for aggregated discovery
// (APIGroupDiscoveryList v2), as client-go's discovery client does.
const aggregatedDiscoveryAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// aggregatedDiscovery is the part of an APIGroupDiscoveryList the
// discovery-driven controllers (garbage collector, namespace controller)
// read.
type aggregatedDiscovery struct {
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Versions []struct {
			Version   string `json:"version"`
			Freshness string `json:"freshness"`
			Resources []struct {
				Resource     string `json:"resource"`
				ResponseKind struct {
					Kind string `json:"kind"`
				} `json:"responseKind"`
				Scope string   `json:"scope"`
				Verbs []string `json:"verbs"`
			} `json:"resources"`
		} `json:"versions"`
	} `json:"items"`
}

// discoveredResource is one resource of one group version in aggregated
// discovery.
type discoveredResource struct {
	group, version, resource, kind string
	namespaced                     bool
	verbs                          []string
	// preferred: the first version of its group (versions are listed
	// preferred first) that serves the resource, as client-go's
	// ServerPreferredResources picks it.
	preferred bool
}

// readAggregatedDiscovery reads aggregated discovery of /api and /apis
// through client and returns every resource of every group version in
// discovery order. Stale group versions are left out and reported in a
// discoveryFailedError next to the resources read (client-go's
// ErrGroupDiscoveryFailed); any other error ends the read and is returned
// with what was read before it.
func readAggregatedDiscovery(ctx context.Context, client loopback) ([]discoveredResource, error) {
	var out []discoveredResource
	failed := discoveryFailedError{}
	for _, root := range discoveryRoots {
		body, err := fetchDiscovery(ctx, client, root)
		if err != nil {
			return out, err
		}
		if out, err = appendDiscovered(out, failed, root, body); err != nil {
			return out, err
		}
	}
	if len(failed) > 0 {
		return out, failed
	}
	return out, nil
}

// discoveryRoots are the roots aggregated discovery is read from, in order.
var discoveryRoots = [2]string{"/api", "/apis"}

// fetchDiscovery returns root's aggregated discovery document; an answer
// other than 200 is returned as its Status error.
func fetchDiscovery(ctx context.Context, client loopback, root string) ([]byte, error) {
	code, body, err := client.send(ctx, http.MethodGet, root, "", "", aggregatedDiscoveryAccept, nil)
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, statusErrorOf(code, body)
	}
	return body, nil
}

// appendDiscovered appends the resources of root's aggregated discovery
// document body to out, in discovery order, and records its stale group
// versions in failed.
func appendDiscovered(out []discoveredResource, failed discoveryFailedError, root string, body []byte) ([]discoveredResource, error) {
	var doc aggregatedDiscovery
	if err := json.Unmarshal(body, &doc); err != nil {
		return out, fmt.Errorf("%s: %w", root, err)
	}
	for _, g := range doc.Items {
		seen := map[string]bool{}
		for _, v := range g.Versions {
			if v.Freshness == "Stale" {
				gv := g.Metadata.Name + "/" + v.Version
				if g.Metadata.Name == "" {
					gv = v.Version
				}
				failed[gv] = "stale GroupVersion discovery: " + gv
				continue
			}
			for _, r := range v.Resources {
				out = append(out, discoveredResource{group: g.Metadata.Name, version: v.Version, resource: r.Resource,
					kind: r.ResponseKind.Kind, namespaced: r.Scope == "Namespaced", verbs: r.Verbs, preferred: !seen[r.Resource]})
				seen[r.Resource] = true
			}
		}
	}
	return out, nil
}
