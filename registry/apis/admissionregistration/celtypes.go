package admissionregistration

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/celrules"
)

// admissionObjectTypes declares, with extra, the object types of the request and
// namespaceObject variables of admission CEL, as kube-apiserver 1.33
// declares them for the type checker (buildRequestType and
// buildNamespaceType in apiserver/pkg/admission/plugin/cel/compile.go):
// the request has no uid, object or oldObject; the Namespace's metadata
// has no managedFields or ownerReferences, and its uid field is spelled
// UID (so it is never set at evaluation). Timestamps are typed
// timestamp, generation and deletionGracePeriodSeconds int.
func admissionObjectTypes(extra map[string][]celrules.Field, next types.Provider) cel.EnvOption {
	S, I, B, T := types.StringType, types.IntType, types.BoolType, types.TimestampType
	strs := types.NewListType(S)
	f := func(name string, t *types.Type) celrules.Field { return celrules.Field{Name: name, Type: t} }
	gvk := types.NewObjectType("kubernetes.GroupVersionKind")
	gvr := types.NewObjectType("kubernetes.GroupVersionResource")
	user := types.NewObjectType("kubernetes.UserInfo")
	cond := types.NewObjectType("kubernetes.NamespaceCondition")
	defs := map[string][]celrules.Field{
		"kubernetes.GroupVersionKind":     {f("group", S), f("version", S), f("kind", S)},
		"kubernetes.GroupVersionResource": {f("group", S), f("version", S), f("resource", S)},
		"kubernetes.UserInfo": {f("username", S), f("uid", S), f("groups", strs),
			f("extra", types.NewMapType(S, strs))},
		"kubernetes.AdmissionRequest": {f("kind", gvk), f("resource", gvr), f("subResource", S),
			f("requestKind", gvk), f("requestResource", gvr), f("requestSubResource", S), f("name", S),
			f("namespace", S), f("operation", S), f("userInfo", user), f("dryRun", B), f("options", types.DynType)},
		"kubernetes.NamespaceSpec": {f("finalizers", strs)},
		"kubernetes.NamespaceCondition": {f("status", S), f("type", S), f("lastTransitionTime", T),
			f("message", S), f("reason", S)},
		"kubernetes.NamespaceStatus": {f("conditions", types.NewListType(cond)), f("phase", S)},
		"kubernetes.NamespaceMetadata": {f("name", S), f("generateName", S), f("namespace", S),
			f("labels", types.NewMapType(S, S)), f("annotations", types.NewMapType(S, S)), f("UID", S),
			f("creationTimestamp", T), f("deletionGracePeriodSeconds", I), f("deletionTimestamp", T),
			f("generation", I), f("resourceVersion", S), f("finalizers", strs)},
		"kubernetes.Namespace": {f("metadata", types.NewObjectType("kubernetes.NamespaceMetadata")),
			f("spec", types.NewObjectType("kubernetes.NamespaceSpec")),
			f("status", types.NewObjectType("kubernetes.NamespaceStatus"))},
	}
	for k, v := range extra {
		defs[k] = v
	}
	return celrules.ObjectTypesOver(defs, next)
}

// variablesTypeName is the CEL type of a policy's variables variable
// (upstream's composition environment).
const variablesTypeName = "kubernetes.variables"

var (
	requestType   = types.NewObjectType("kubernetes.AdmissionRequest")
	namespaceType = types.NewObjectType("kubernetes.Namespace")
)

// CELEnv returns the (cached) environment admission expressions are
// compiled in at create and update (see celEnv), for the dispatcher to
// evaluate them in the same one: params, authorizer and variables say
// which optional variables are declared.
func CELEnv(params, authorizer, variables bool) (*cel.Env, error) {
	return celEnv(envOptions{params: params, authorizer: authorizer, variables: variables})
}

// MutationCELEnv is CELEnv(true, true, true) with a MutatingAdmissionPolicy's
// Object and JSONPatch types and jsonpatch.escapeKey (cel_mutation.go), the
// environment its mutations and variables are evaluated in.
func MutationCELEnv() (*cel.Env, error) {
	return celEnv(envOptions{params: true, authorizer: true, variables: true, mutation: true})
}
