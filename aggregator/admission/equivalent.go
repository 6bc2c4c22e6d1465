package admission

import (
	"github.com/aggsim/aggsim/registry"
)

// equivalentMatch is upstream's matchPolicy Equivalent (ShouldCallHook in
// k8s.io/apiserver/pkg/admission/plugin/webhook/generic): when h's rules
// do not match a's version, the first other version of the resource
// (AdmissionAttributes.Equivalents) they match; false under
// matchPolicy Exact or when there is none.
func equivalentMatch(h *hook, a *registry.AdmissionAttributes) (string, bool) {
	if a.ConvertTo == nil || (h.w.MatchPolicy != nil && *h.w.MatchPolicy == "Exact") {
		return "", false
	}
	for _, v := range a.Equivalents {
		b := *a
		b.Info.Version = v
		for _, r := range h.w.Rules {
			if ruleMatches(r, &b) {
				return v, true
			}
		}
	}
	return "", false
}

// versioned returns a as a webhook matched through version sees it: a
// itself when version is "", else a copy with that version's resource and
// its objects converted (upstream's VersionedAttributes). The review's
// requestKind and requestResource stay a's.
func versioned(a *registry.AdmissionAttributes, version string) (*registry.AdmissionAttributes, error) {
	if version == "" || a.ConvertTo == nil {
		return a, nil
	}
	b := *a
	b.Info.Version = version
	var err error
	if a.Object != nil {
		if b.Object, err = a.ConvertTo(a.Object, version); err != nil {
			return nil, err
		}
	}
	if a.OldObject != nil {
		if b.OldObject, err = a.ConvertTo(a.OldObject, version); err != nil {
			return nil, err
		}
	}
	return &b, nil
}
