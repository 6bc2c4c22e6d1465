package admissionregistration

import (
	"slices"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

var (
	reinvocationPolicies = []string{"IfNeeded", "Never"}
	mutationPatchTypes   = []string{"ApplyConfiguration", "JSONPatch"}
	// mutationOperations are the operations a MutatingAdmissionPolicy's
	// matchConstraints may name (DELETE has no object to mutate).
	mutationOperations = []string{"*", "CONNECT", "CREATE", "UPDATE"}
)

// DefaultMutatingAdmissionPolicySpec mirrors upstream's v1alpha1
// SetDefaults_MutatingAdmissionPolicySpec: failurePolicy Fail and the
// matchConstraints defaults (matchPolicy Equivalent, empty selectors,
// each rule's scope "*"). reinvocationPolicy has no default.
func DefaultMutatingAdmissionPolicySpec(s *MutatingAdmissionPolicySpec) {
	if s.FailurePolicy == nil {
		s.FailurePolicy = ptr("Fail")
	}
	defaultMatchResources(s.MatchConstraints)
}

// DefaultMutatingAdmissionPolicyBindingSpec mirrors upstream's v1alpha1
// defaults of a binding: the matchResources defaults and
// paramRef.parameterNotFoundAction Deny (kube-apiserver 1.33.13 stores
// `"paramRef":{"name":"x","parameterNotFoundAction":"Deny"}` for a
// paramRef naming only x).
func DefaultMutatingAdmissionPolicyBindingSpec(s *MutatingAdmissionPolicyBindingSpec) {
	defaultMatchResources(s.MatchResources)
	if s.ParamRef != nil && s.ParamRef.ParameterNotFoundAction == nil {
		s.ParamRef.ParameterNotFoundAction = ptr("Deny")
	}
}

// ValidateMutatingAdmissionPolicySpec mirrors upstream's
// validateMutatingAdmissionPolicySpec (kube-apiserver 1.33): in order
// failurePolicy, paramKind, matchConstraints (resourceRules required, no
// DELETE), matchConditions, variables, mutations (at least one; each
// patchType with its expression compiled and type-checked: Object for
// ApplyConfiguration, list(JSONPatch) for JSONPatch) and
// reinvocationPolicy (required). Texts as kube-apiserver 1.33.13 answers.
func ValidateMutatingAdmissionPolicySpec(s *MutatingAdmissionPolicySpec) meta.FieldErrors {
	const p = "spec"
	var errs meta.FieldErrors
	errs = append(errs, validatePolicyHead(s.FailurePolicy, s.ParamKind, p)...)
	hasParams := s.ParamKind != nil
	if s.MatchConstraints == nil {
		errs = append(errs, meta.Required(p+".matchConstraints", ""))
	} else {
		mc := p + ".matchConstraints"
		errs = append(errs, validateMatchResources(s.MatchConstraints, mc)...)
		if len(s.MatchConstraints.ResourceRules) == 0 {
			errs = append(errs, meta.Required(mc+".resourceRules", ""))
		}
		for _, r := range s.MatchConstraints.ResourceRules {
			for _, op := range r.Operations {
				if !slices.Contains(mutationOperations, op) {
					// upstream names the field without the rule's index
					errs = append(errs, meta.NotSupported(mc+".resourceRules.operations", op, mutationOperations))
				}
			}
		}
	}
	errs = append(errs, validateMatchConditions(s.MatchConditions, hasParams, p+".matchConditions")...)
	opts := envOptions{params: hasParams, authorizer: true, variables: len(s.Variables) > 0, mutation: true}
	errs = append(errs, validateVariables(s.Variables, &opts, p+".variables")...)
	if len(s.Mutations) == 0 {
		errs = append(errs, meta.Required(p+".mutations", "mutations must contain at least one item"))
	}
	for i := range s.Mutations {
		errs = append(errs, validateMutation(&s.Mutations[i], opts, meta.Index(p+".mutations", i))...)
	}
	switch {
	case s.ReinvocationPolicy == "":
		errs = append(errs, meta.Required(p+".reinvocationPolicy", ""))
	case !slices.Contains(reinvocationPolicies, s.ReinvocationPolicy):
		errs = append(errs, meta.NotSupported(p+".reinvocationPolicy", s.ReinvocationPolicy, reinvocationPolicies))
	}
	return errs
}

// validateMutation checks one mutation: its patchType, the expression of
// that type (required, compiling to the right type) and the absence of
// the other type's field.
func validateMutation(m *Mutation, opts envOptions, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	expr := func(field, e string, want returnKind) {
		ep := p + "." + field + ".expression"
		if strings.TrimSpace(e) == "" {
			errs = append(errs, meta.Required(ep, ""))
		} else if fe := compileCheck(ep, e, e, want, opts); fe != nil {
			errs = append(errs, fe)
		}
	}
	switch m.PatchType {
	case "":
		errs = append(errs, meta.Required(p+".patchType", ""))
	case "ApplyConfiguration":
		if m.ApplyConfiguration == nil {
			errs = append(errs, meta.Required(p+".applyConfiguration", "must be specified when patchType is ApplyConfiguration"))
		} else {
			expr("applyConfiguration", m.ApplyConfiguration.Expression, kindObject)
		}
		if m.JSONPatch != nil {
			errs = append(errs, meta.Invalid(p+".jsonPatch", "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
		}
	case "JSONPatch":
		if m.JSONPatch == nil {
			errs = append(errs, meta.Required(p+".jsonPatch", "must be specified when patchType is JSONPatch"))
		} else {
			expr("jsonPatch", m.JSONPatch.Expression, kindJSONPatchList)
		}
		if m.ApplyConfiguration != nil {
			errs = append(errs, meta.Invalid(p+".applyConfiguration", "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
		}
	default:
		errs = append(errs, meta.NotSupported(p+".patchType", m.PatchType, mutationPatchTypes))
	}
	return errs
}

// ValidateMutatingAdmissionPolicyBindingSpec mirrors upstream's
// validateMutatingAdmissionPolicyBindingSpec: policyName, paramRef and
// matchResources, as a ValidatingAdmissionPolicyBinding's (without
// validationActions).
func ValidateMutatingAdmissionPolicyBindingSpec(s *MutatingAdmissionPolicyBindingSpec) meta.FieldErrors {
	const p = "spec"
	var errs meta.FieldErrors
	if s.PolicyName == "" {
		errs = append(errs, meta.Required(p+".policyName", ""))
	} else {
		for _, msg := range meta.NameIsDNSSubdomain(s.PolicyName, false) {
			errs = append(errs, meta.Invalid(p+".policyName", s.PolicyName, msg))
		}
	}
	errs = append(errs, validateParamRef(s.ParamRef, p+".paramRef")...)
	return append(errs, validateMatchResources(s.MatchResources, p+".matchResources")...)
}
