package aggregator

import (
	"fmt"
	"sort"

	"github.com/aggsim/aggsim/discovery"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/apiextensions"
)

// crdDeprecationWarning returns the Warning of requests to version of crd
// when it is deprecated, as upstream's crdHandler: the version's
// deprecationWarning, or `<group>/<version> <Kind> is deprecated` with
// `; use <group>/<newest> <Kind>` naming the newest served,
// non-deprecated version newer than it (kube-aware order), if any.
// Captured: ../shared/testdata/kube-1.33/crd/pizzas.restaurant.example.com/versions.margherita.v1alpha1.yaml.
func crdDeprecationWarning(crd *apiextensions.CustomResourceDefinition, version string) string {
	for _, v := range crd.Spec.Versions {
		if v.Name != version || !v.Deprecated {
			continue
		}
		if v.DeprecationWarning != nil {
			return *v.DeprecationWarning
		}
		msg := fmt.Sprintf("%s/%s %s is deprecated", crd.Spec.Group, version, crd.Spec.Names.Kind)
		var newer []string
		for _, o := range crd.Spec.Versions {
			if o.Served && !o.Deprecated && discovery.CompareKubeAwareVersionStrings(version, o.Name) < 0 {
				newer = append(newer, o.Name)
			}
		}
		if len(newer) == 0 {
			return msg
		}
		sort.Slice(newer, func(i, j int) bool { return discovery.CompareKubeAwareVersionStrings(newer[i], newer[j]) > 0 })
		return msg + fmt.Sprintf("; use %s/%s %s", crd.Spec.Group, newer[0], crd.Spec.Names.Kind)
	}
	return ""
}

// configureVersions sets what a version's strategy needs of the CRD's
// other versions: the deprecation warning and the converter.
func (c *crdServing) configureVersions(s *registry.CustomResourceStrategy, crd *apiextensions.CustomResourceDefinition, version string) {
	s.Deprecation = crdDeprecationWarning(crd, version)
	if conv := c.conversion.converter(crd); conv != nil {
		s.Converter = conv
	}
}
