package aggregator

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// FeatureMutatingAdmissionPolicy is the feature gate of
// MutatingAdmissionPolicy admission (alpha in kube-apiserver 1.33, off by
// default; k8s.io/apiserver/pkg/features).
const FeatureMutatingAdmissionPolicy = "MutatingAdmissionPolicy"

// knownFeatureGates are the gates `--feature-gates` accepts, with their
// defaults in kube-apiserver 1.33: the one aggsim implements, plus
// AllAlpha (switches every alpha gate aggsim knows) and AllBeta (aggsim
// knows no beta gate, so it changes nothing).
var knownFeatureGates = map[string]bool{
	FeatureMutatingAdmissionPolicy: false,
	"AllAlpha":                     false,
	"AllBeta":                      false,
}

// alphaFeatureGates are the known gates AllAlpha switches.
var alphaFeatureGates = []string{FeatureMutatingAdmissionPolicy}

// ParseFeatureGates parses the values of --feature-gates (the flag may be
// repeated; later values win) as kube-apiserver 1.33 parses them
// (k8s.io/component-base/featuregate, cliflag.MapStringBool): comma
// separated key=bool pairs, empty items skipped. It returns the effective
// state of every known gate (defaults, AllAlpha, then the explicit
// values). Errors carry upstream's texts: `missing bool value for <k>`,
// `invalid value of <k>=<v>, err: strconv.ParseBool: parsing "<v>":
// invalid syntax`, `unrecognized feature gate: <k>`.
func ParseFeatureGates(values []string) (map[string]bool, error) {
	set := map[string]bool{}
	for _, value := range values {
		for _, s := range strings.Split(value, ",") {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			k, v, ok := strings.Cut(s, "=")
			k = strings.TrimSpace(k)
			if !ok {
				return nil, fmt.Errorf("missing bool value for %s", k)
			}
			v = strings.TrimSpace(v)
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("invalid value of %s=%s, err: %v", k, v, err)
			}
			set[k] = b
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := knownFeatureGates[k]; !ok {
			return nil, fmt.Errorf("unrecognized feature gate: %s", k)
		}
	}
	out := make(map[string]bool, len(knownFeatureGates))
	for k, v := range knownFeatureGates {
		out[k] = v
	}
	if set["AllAlpha"] {
		for _, k := range alphaFeatureGates {
			out[k] = true
		}
	}
	for k, v := range set {
		out[k] = v
	}
	return out, nil
}

// GroupVersionAdmissionRegistrationV1Alpha1 is the group/version that
// serves MutatingAdmissionPolicies and their bindings, off by default in
// kube-apiserver 1.33 (enabled with --runtime-config).
const GroupVersionAdmissionRegistrationV1Alpha1 = "admissionregistration.k8s.io/v1alpha1"

// runtimeConfigGroupVersions are the group/versions aggsim serves that
// --runtime-config may name (true: may be switched; false: always on,
// only "=true" is accepted).
var runtimeConfigGroupVersions = map[string]bool{
	GroupVersionAdmissionRegistrationV1Alpha1: true,
	"v1": false, "apiregistration.k8s.io/v1": false, "admissionregistration.k8s.io/v1": false,
	"apiextensions.k8s.io/v1": false, "authentication.k8s.io/v1": false, "authorization.k8s.io/v1": false,
	"coordination.k8s.io/v1": false, "flowcontrol.apiserver.k8s.io/v1": false, "rbac.authorization.k8s.io/v1": false,
}

// ParseRuntimeConfig parses the values of --runtime-config as
// kube-apiserver 1.33 does (cliflag.ConfigurationMap and
// resourceconfig.MergeAPIResourceConfigs): comma separated
// `<group>/<version>[=<bool>]` ("true" when no value; "api/all" and
// "api/alpha" switch every alpha group/version, "api/beta" and "api/ga"
// the beta and GA ones; "api/v1" and "api/legacy" are the core group). It
// returns whether admissionregistration.k8s.io/v1alpha1 is enabled.
// Errors carry upstream's texts: `invalid value of <key>: <v>, err: ...`,
// `group version <gv> that has not been registered`, `unknown api groups
// <g>[,<g>...]`; disabling a group/version aggsim always serves is
// refused (aggsim cannot turn it off).
func ParseRuntimeConfig(values []string) (map[string]bool, error) {
	out := map[string]bool{GroupVersionAdmissionRegistrationV1Alpha1: false}
	unknownGroups := map[string]bool{}
	for _, value := range values {
		for _, s := range strings.Split(value, ",") {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			k, v, ok := strings.Cut(s, "=")
			b := true
			if ok {
				var err error
				if b, err = strconv.ParseBool(strings.TrimSpace(v)); err != nil {
					return nil, fmt.Errorf("invalid value of %s: %s, err: %v", k, v, err)
				}
			}
			switch k {
			case "api/all", "api/alpha":
				out[GroupVersionAdmissionRegistrationV1Alpha1] = b
				continue
			case "api/beta":
				continue
			case "api/ga", "api/v1", "api/legacy":
				if !b {
					return nil, fmt.Errorf("--runtime-config %s: aggsim cannot disable the group/versions it always serves", s)
				}
				continue
			}
			switchable, known := runtimeConfigGroupVersions[k]
			if !known {
				group, _, hasVersion := strings.Cut(k, "/")
				if !hasVersion || strings.Count(k, "/") > 1 {
					unknownGroups[k] = true
					continue
				}
				groupKnown := false
				for gv := range runtimeConfigGroupVersions {
					if g, _, _ := strings.Cut(gv, "/"); g == group {
						groupKnown = true
					}
				}
				if !groupKnown {
					unknownGroups[group] = true
					continue
				}
				return nil, fmt.Errorf("group version %s that has not been registered", k)
			}
			if !switchable {
				if !b {
					return nil, fmt.Errorf("--runtime-config %s: aggsim cannot disable the group/versions it always serves", s)
				}
				continue
			}
			out[k] = b
		}
	}
	if len(unknownGroups) > 0 {
		l := make([]string, 0, len(unknownGroups))
		for g := range unknownGroups {
			l = append(l, g)
		}
		sort.Strings(l)
		return nil, fmt.Errorf("unknown api groups %s", strings.Join(l, ","))
	}
	return out, nil
}
