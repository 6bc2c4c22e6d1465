package rest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// upstreamKinds are the object kinds kube-apiserver 1.33's scheme
// (legacyscheme) registers, by apiVersion: the kinds of every resource its
// discovery lists (measured on kube-apiserver 1.33.13: GET /api/v1 and
// /apis/<group>/<version> for every group), the core kinds that are no
// resource (Binding, List, the pod and proxy option kinds, ...), and the
// older versions its scheme still decodes for the groups aggsim serves and
// for apps (measured: a POST naming them answers `the API version in the
// data ... does not match` or a conversion error, not `no kind ... is
// registered`). apiextensions.k8s.io and apiregistration.k8s.io have
// schemes of their own (see schemeRegisters). Beta versions of other
// groups are not listed: a body naming one is answered as unregistered.
var upstreamKinds = map[string][]string{
	"v1": {"Binding", "ComponentStatus", "ConfigMap", "Endpoints", "Event", "LimitRange", "Namespace", "Node",
		"PersistentVolume", "PersistentVolumeClaim", "Pod", "PodTemplate", "ReplicationController", "ResourceQuota",
		"Secret", "Service", "ServiceAccount"},
	"admissionregistration.k8s.io/v1": {"MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
		"ValidatingAdmissionPolicyBinding", "ValidatingWebhookConfiguration"},
	"admissionregistration.k8s.io/v1beta1": {"MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
		"ValidatingAdmissionPolicyBinding", "ValidatingWebhookConfiguration"},
	"admissionregistration.k8s.io/v1alpha1": {"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding",
		"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"},
	"apps/v1":                              {"ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"},
	"apps/v1beta1":                         {"ControllerRevision", "Deployment", "StatefulSet"},
	"apps/v1beta2":                         {"ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"},
	"authentication.k8s.io/v1":             {"SelfSubjectReview", "TokenRequest", "TokenReview"},
	"authentication.k8s.io/v1beta1":        {"SelfSubjectReview", "TokenReview"},
	"authentication.k8s.io/v1alpha1":       {"SelfSubjectReview"},
	"authorization.k8s.io/v1":              {"LocalSubjectAccessReview", "SelfSubjectAccessReview", "SelfSubjectRulesReview", "SubjectAccessReview"},
	"authorization.k8s.io/v1beta1":         {"LocalSubjectAccessReview", "SelfSubjectAccessReview", "SelfSubjectRulesReview", "SubjectAccessReview"},
	"autoscaling/v1":                       {"HorizontalPodAutoscaler"},
	"autoscaling/v2":                       {"HorizontalPodAutoscaler"},
	"batch/v1":                             {"CronJob", "Job"},
	"certificates.k8s.io/v1":               {"CertificateSigningRequest"},
	"coordination.k8s.io/v1":               {"Lease"},
	"discovery.k8s.io/v1":                  {"EndpointSlice"},
	"events.k8s.io/v1":                     {"Event"},
	"flowcontrol.apiserver.k8s.io/v1":      {"FlowSchema", "PriorityLevelConfiguration"},
	"flowcontrol.apiserver.k8s.io/v1beta1": {"FlowSchema", "PriorityLevelConfiguration"},
	"flowcontrol.apiserver.k8s.io/v1beta2": {"FlowSchema", "PriorityLevelConfiguration"},
	"flowcontrol.apiserver.k8s.io/v1beta3": {"FlowSchema", "PriorityLevelConfiguration"},
	"networking.k8s.io/v1":                 {"IPAddress", "Ingress", "IngressClass", "NetworkPolicy", "ServiceCIDR"},
	"node.k8s.io/v1":                       {"RuntimeClass"},
	"policy/v1":                            {"PodDisruptionBudget"},
	"rbac.authorization.k8s.io/v1":         {"ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"},
	"scheduling.k8s.io/v1":                 {"PriorityClass"},
	"storage.k8s.io/v1":                    {"CSIDriver", "CSINode", "CSIStorageCapacity", "StorageClass", "VolumeAttachment"},
}

// aggregatorKinds are the kinds of kube-aggregator's own scheme, which
// decodes apiregistration.k8s.io bodies: APIService in v1 and v1beta1
// (measured: a v1 ConfigMap POSTed to apiservices is `no kind "ConfigMap"
// is registered`).
var aggregatorKinds = map[string][]string{
	"apiregistration.k8s.io/v1":      {"APIService"},
	"apiregistration.k8s.io/v1beta1": {"APIService"},
}

// coreExtraKinds are core v1 kinds that name no resource: the option
// kinds of subresources, List, and the internal bookkeeping kinds
// (k8s.io/api core/v1 register.go).
var coreExtraKinds = []string{"List", "NodeProxyOptions", "PodAttachOptions", "PodExecOptions", "PodLogOptions",
	"PodPortForwardOptions", "PodProxyOptions", "PodStatusResult", "RangeAllocation", "SerializedReference",
	"ServiceProxyOptions", "EphemeralContainers"}

// metaKinds are registered in every group version (metav1.AddToGroupVersion:
// the options kinds and WatchEvent); their Go types live in package v1 of
// apimachinery, whatever version names them.
var metaKinds = []string{"CreateOptions", "DeleteOptions", "GetOptions", "ListOptions", "PatchOptions", "UpdateOptions", "WatchEvent"}

// unversionedKinds are registered unversioned in every scheme, under "v1".
var unversionedKinds = []string{"APIGroup", "APIGroupList", "APIResourceList", "APIVersions", "Status"}

// schemeRegisters reports whether the scheme that decodes bodies for
// group (kube-aggregator's for apiregistration.k8s.io, kube-apiserver's
// otherwise) knows kind in apiVersion, and the Go package name of its type
// there ("v1" for the meta kinds, else the version).
func schemeRegisters(group, apiVersion, kind string) (pkg string, ok bool) {
	version := apiVersion[strings.LastIndexByte(apiVersion, '/')+1:]
	if apiVersion == "v1" && slices.Contains(unversionedKinds, kind) {
		return "v1", true
	}
	kinds := upstreamKinds
	if group == "apiregistration.k8s.io" {
		kinds = aggregatorKinds
	}
	known, served := kinds[apiVersion]
	if !served {
		return "", false
	}
	if slices.Contains(metaKinds, kind) {
		return "v1", true
	}
	if apiVersion == "v1" && slices.Contains(coreExtraKinds, kind) {
		return version, true
	}
	for _, k := range known {
		// The review kinds have no list kind.
		if k == kind || (!strings.HasSuffix(k, "Review") && k+"List" == kind) {
			return version, true
		}
	}
	return "", false
}

// schemeName is the name kube-apiserver 1.33.13's scheme gives itself in
// `no kind "X" is registered for version "v" in scheme "..."` (measured:
// a POST of kind Foo to configmaps, apiservices and reviews).
const schemeName = "pkg/runtime/scheme.go:110"

// checkKind is upstream's answer to a create or update body naming kind in
// apiVersion for a resource of info's kind (the decoder's lookup and
// conversion to info's internal type, apiserver endpoints/handlers
// create.go and update.go), nil when they are info's own:
//   - a kind the scheme does not register: 400 `<Kind> in version "<v>"
//     cannot be handled as a <info.Kind>: no kind "<Kind>" is registered
//     for version "<apiVersion>" in scheme "pkg/runtime/scheme.go:110"`;
//   - info's kind in another registered version of its group: 400 `the
//     API version in the data (<apiVersion>) does not match the expected
//     API version (<info's apiVersion>)`;
//   - any other registered kind: 400 `... cannot be handled as a
//     <info.Kind>: converting (<pkg>.<Kind>) to (<internal>.<info.Kind>):
//     unknown conversion`, internal being the group's first label ("core"
//     for the core group).
func checkKind(apiVersion, kind string, info registry.ResourceInfo) error {
	if apiVersion == info.APIVersion() && kind == info.Kind {
		return nil
	}
	version := apiVersion[strings.LastIndexByte(apiVersion, '/')+1:]
	group := ""
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		group = apiVersion[:i]
	}
	prefix := fmt.Sprintf("%s in version %q cannot be handled as a %s: ", kind, version, info.Kind)
	pkg, ok := schemeRegisters(info.Group, apiVersion, kind)
	switch {
	case !ok:
		return meta.NewBadRequest(prefix + fmt.Sprintf("no kind %q is registered for version %q in scheme %q", kind, apiVersion, schemeName))
	case group == info.Group && kind == info.Kind:
		return meta.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", apiVersion, info.APIVersion()))
	}
	internal := info.Group
	if internal == "" {
		internal = "core"
	} else if i := strings.IndexByte(internal, '.'); i >= 0 {
		internal = internal[:i]
	}
	return meta.NewBadRequest(prefix + fmt.Sprintf("converting (%s.%s) to (%s.%s): unknown conversion", pkg, kind, internal, info.Kind))
}
