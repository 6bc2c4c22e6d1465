package admissionregistration

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/google/cel-go/common/types"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/celrules"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

var (
	failurePolicies     = []string{"Fail", "Ignore"}
	matchPolicies       = []string{"Equivalent", "Exact"}
	noSideEffects       = []string{"None", "NoneOnDryRun"}
	operations          = []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}
	scopes              = []string{"*", "Cluster", "Namespaced"}
	reinvocation        = []string{"IfNeeded", "Never"}
	policyReasons       = []string{"Forbidden", "Invalid", "RequestEntityTooLarge"}
	validationActions   = []string{"Audit", "Deny", "Warn"}
	reviewVersions      = []string{"v1", "v1beta1"}
	celIdentifier       = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)
	celReservedWords    = []string{"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"}
	newlines            = regexp.MustCompile(`[\n\r]+`)
	maxAuditAnnotations = 20
)

// ValidateWebhooks checks the webhooks of a Mutating- (mutating) or
// ValidatingWebhookConfiguration as upstream's
// validateMutatingWebhookConfiguration / validateValidatingWebhookConfiguration
// do on create and update, in upstream's order: per webhook its own checks,
// then admissionReviewVersions, then name uniqueness.
func ValidateWebhooks(hooks []MutatingWebhook, mutating bool) meta.FieldErrors {
	var errs meta.FieldErrors
	seen := map[string]bool{}
	for i := range hooks {
		p := meta.Index("webhooks", i)
		errs = append(errs, validateWebhook(&hooks[i], mutating, p)...)
		errs = append(errs, validateAdmissionReviewVersions(hooks[i].AdmissionReviewVersions, p+".admissionReviewVersions")...)
		if n := hooks[i].Name; n != "" {
			if seen[n] {
				errs = append(errs, &meta.FieldError{Type: meta.FieldValueDuplicate, Field: p + ".name", BadValue: n})
			}
			seen[n] = true
		}
	}
	return errs
}

func validateWebhook(h *MutatingWebhook, mutating bool, p string) meta.FieldErrors {
	errs := isFullyQualifiedName(p+".name", h.Name)
	for i := range h.Rules {
		errs = append(errs, validateRuleWithOperations(&h.Rules[i], meta.Index(p+".rules", i))...)
	}
	if h.FailurePolicy != nil && !slices.Contains(failurePolicies, *h.FailurePolicy) {
		errs = append(errs, meta.NotSupported(p+".failurePolicy", *h.FailurePolicy, failurePolicies))
	}
	if h.MatchPolicy != nil && !slices.Contains(matchPolicies, *h.MatchPolicy) {
		errs = append(errs, meta.NotSupported(p+".matchPolicy", *h.MatchPolicy, matchPolicies))
	}
	if h.SideEffects == nil {
		errs = append(errs, meta.Required(p+".sideEffects", "must specify one of "+strings.Join(noSideEffects, ", ")))
	} else if !slices.Contains(noSideEffects, *h.SideEffects) {
		errs = append(errs, meta.NotSupported(p+".sideEffects", *h.SideEffects, noSideEffects))
	}
	if t := h.TimeoutSeconds; t != nil && (*t > 30 || *t < 1) {
		errs = append(errs, meta.Invalid(p+".timeoutSeconds", *t, "the timeout value must be between 1 and 30 seconds"))
	}
	errs = append(errs, meta.ValidateLabelSelector(h.NamespaceSelector, p+".namespaceSelector")...)
	errs = append(errs, meta.ValidateLabelSelector(h.ObjectSelector, p+".objectSelector")...)
	if mutating && h.ReinvocationPolicy != nil && !slices.Contains(reinvocation, *h.ReinvocationPolicy) {
		errs = append(errs, meta.NotSupported(p+".reinvocationPolicy", *h.ReinvocationPolicy, reinvocation))
	}
	cc := h.ClientConfig
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		errs = append(errs, meta.Required(p+".clientConfig", "exactly one of url or service is required"))
	case cc.URL != nil:
		errs = append(errs, validateWebhookURL(p+".clientConfig.url", *cc.URL)...)
	default:
		errs = append(errs, validateWebhookService(p+".clientConfig.service", cc.Service)...)
	}
	return append(errs, validateMatchConditions(h.MatchConditions, false, p+".matchConditions")...)
}

// isFullyQualifiedName mirrors utilvalidation.IsFullyQualifiedName.
func isFullyQualifiedName(p, name string) meta.FieldErrors {
	if name == "" {
		return meta.FieldErrors{meta.Required(p, "")}
	}
	if e := meta.IsDNS1123Subdomain(name); len(e) > 0 {
		return meta.FieldErrors{meta.Invalid(p, name, strings.Join(e, ","))}
	}
	if len(strings.Split(name, ".")) < 3 {
		return meta.FieldErrors{meta.Invalid(p, name, "should be a domain with at least three segments separated by dots")}
	}
	return nil
}

func validateAdmissionReviewVersions(versions []string, p string) meta.FieldErrors {
	if len(versions) == 0 {
		return meta.FieldErrors{meta.Required(p, "must specify one of "+strings.Join(reviewVersions, ", "))}
	}
	var errs meta.FieldErrors
	seen := map[string]bool{}
	accepted := false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, meta.Invalid(meta.Index(p, i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range meta.IsDNS1035Label(v) {
			errs = append(errs, meta.Invalid(meta.Index(p, i), v, msg))
		}
		accepted = accepted || slices.Contains(reviewVersions, v)
	}
	if !accepted {
		errs = append(errs, meta.Invalid(p, versions, "must include at least one of "+strings.Join(reviewVersions, ", ")))
	}
	return errs
}

func validateRuleWithOperations(r *RuleWithOperations, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	if len(r.Operations) == 0 {
		errs = append(errs, meta.Required(p+".operations", ""))
	}
	if len(r.Operations) > 1 && slices.Contains(r.Operations, "*") {
		errs = append(errs, meta.Invalid(p+".operations", meta.GoStringSlice("admissionregistration.OperationType", r.Operations), "if '*' is present, must not specify other operations"))
	}
	for i, op := range r.Operations {
		if !slices.Contains(operations, op) {
			errs = append(errs, meta.NotSupported(meta.Index(p+".operations", i), op, operations))
		}
	}
	return append(errs, validateRule(&r.Rule, p)...)
}

func validateRule(r *Rule, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	if len(r.APIGroups) == 0 {
		errs = append(errs, meta.Required(p+".apiGroups", ""))
	}
	if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, "*") {
		errs = append(errs, meta.Invalid(p+".apiGroups", r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	if len(r.APIVersions) == 0 {
		errs = append(errs, meta.Required(p+".apiVersions", ""))
	}
	if len(r.APIVersions) > 1 && slices.Contains(r.APIVersions, "*") {
		errs = append(errs, meta.Invalid(p+".apiVersions", r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, meta.Required(meta.Index(p+".apiVersions", i), ""))
		}
	}
	errs = append(errs, validateResources(r.Resources, p+".resources")...)
	if r.Scope != nil && !slices.Contains(scopes, *r.Scope) {
		errs = append(errs, meta.NotSupported(p+".scope", *r.Scope, scopes))
	}
	return errs
}

// validateResources mirrors upstream's validateResources (subresources
// allowed).
func validateResources(resources []string, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	if len(resources) == 0 {
		errs = append(errs, meta.Required(p, ""))
	}
	wildSub := map[string]bool{} // x/*
	wildRes := map[string]bool{} // */x
	double, single, plain := false, false, false
	for i, rs := range resources {
		if rs == "" {
			errs = append(errs, meta.Required(meta.Index(p, i), ""))
			continue
		}
		if rs == "*/*" {
			double = true
		}
		if rs == "*" {
			single = true
		}
		res, sub, ok := strings.Cut(rs, "/")
		if !ok {
			plain = rs != "*"
			continue
		}
		if wildSub[res] {
			errs = append(errs, meta.Invalid(meta.Index(p, i), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if wildRes[sub] {
			errs = append(errs, meta.Invalid(meta.Index(p, i), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			wildSub[res] = true
		}
		if res == "*" {
			wildRes[sub] = true
		}
	}
	if len(resources) > 1 && double {
		errs = append(errs, meta.Invalid(p, resources, "if '*/*' is present, must not specify other resources"))
	}
	if single && plain {
		errs = append(errs, meta.Invalid(p, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

// validateWebhookURL mirrors k8s.io/apiserver/pkg/util/webhook
// ValidateWebhookURL with https forced.
func validateWebhookURL(p, raw string) meta.FieldErrors {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(raw)
	if err != nil {
		return meta.FieldErrors{meta.Required(p, "url must be a valid URL: "+err.Error()+form)}
	}
	var errs meta.FieldErrors
	if u.Scheme != "https" {
		errs = append(errs, meta.Invalid(p, u.Scheme, "'https' is the only allowed URL scheme"+form))
	}
	if u.Host == "" {
		errs = append(errs, meta.Invalid(p, u.Host, "host must be specified"+form))
	}
	if u.User != nil {
		errs = append(errs, meta.Invalid(p, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		errs = append(errs, meta.Invalid(p, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, meta.Invalid(p, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

// validateWebhookService mirrors ValidateWebhookService (port already
// defaulted to 443).
func validateWebhookService(p string, s *ServiceReference) meta.FieldErrors {
	var errs meta.FieldErrors
	if s.Name == "" {
		errs = append(errs, meta.Required(p+".name", "service name is required"))
	}
	if s.Namespace == "" {
		errs = append(errs, meta.Required(p+".namespace", "service namespace is required"))
	}
	var port int32
	if s.Port != nil {
		port = *s.Port
	}
	if e := meta.IsValidPortNum(int(port)); e != nil {
		errs = append(errs, meta.Invalid(p+".port", port, "port is not valid: "+strings.Join(e, ", ")))
	}
	if s.Path == nil {
		return errs
	}
	path := *s.Path
	if path == "/" || path == "" {
		return errs
	}
	if path == "//" {
		return append(errs, meta.Invalid(p+".path", path, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(path, "/") {
		errs = append(errs, meta.Invalid(p+".path", path, "must start with a '/'"))
	}
	check := path[1:]
	check = strings.TrimSuffix(check, "/")
	for i, step := range strings.Split(check, "/") {
		if step == "" {
			errs = append(errs, meta.Invalid(p+".path", path, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, f := range meta.IsDNS1123Subdomain(step) {
			errs = append(errs, meta.Invalid(p+".path", path, fmt.Sprintf("segment[%d]: %v", i, f)))
		}
	}
	return errs
}

func validateQualifiedName(p, v string) meta.FieldErrors {
	var errs meta.FieldErrors
	for _, msg := range meta.IsQualifiedName(v) {
		errs = append(errs, meta.Invalid(p, v, msg))
	}
	return errs
}

func validateMatchConditions(mcs []MatchCondition, hasParams bool, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	if len(mcs) > 64 {
		errs = append(errs, &meta.FieldError{Type: meta.FieldValueTooMany, Field: p, BadValue: len(mcs), Detail: "must have at most 64 items"})
	}
	seen := map[string]bool{}
	for i, mc := range mcs {
		ip := meta.Index(p, i)
		if e := strings.TrimSpace(mc.Expression); e == "" {
			errs = append(errs, meta.Required(ip+".expression", ""))
		} else if fe := compileCheck(ip+".expression", e, e, kindBool, envOptions{params: hasParams, authorizer: true}); fe != nil {
			errs = append(errs, fe)
		}
		if mc.Name == "" {
			errs = append(errs, meta.Required(ip+".name", ""))
		} else {
			errs = append(errs, validateQualifiedName(ip+".name", mc.Name)...)
		}
		if mc.Name != "" {
			if seen[mc.Name] {
				errs = append(errs, &meta.FieldError{Type: meta.FieldValueDuplicate, Field: ip + ".name", BadValue: mc.Name})
			}
			seen[mc.Name] = true
		}
	}
	return errs
}

// validatePolicyHead checks what both policy kinds' specs start with:
// failurePolicy (required, Fail or Ignore) and paramKind (when set).
func validatePolicyHead(failurePolicy *string, paramKind *ParamKind, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	if failurePolicy == nil {
		errs = append(errs, meta.Required(p+".failurePolicy", ""))
	} else if !slices.Contains(failurePolicies, *failurePolicy) {
		errs = append(errs, meta.NotSupported(p+".failurePolicy", *failurePolicy, failurePolicies))
	}
	if paramKind != nil {
		errs = append(errs, validateParamKind(paramKind, p+".paramKind")...)
	}
	return errs
}

// ValidateValidatingAdmissionPolicySpec mirrors upstream's
// validateValidatingAdmissionPolicySpec for a policy named name.
func ValidateValidatingAdmissionPolicySpec(name string, s *ValidatingAdmissionPolicySpec) meta.FieldErrors {
	const p = "spec"
	var errs meta.FieldErrors
	errs = append(errs, validatePolicyHead(s.FailurePolicy, s.ParamKind, p)...)
	hasParams := s.ParamKind != nil
	if s.MatchConstraints == nil {
		errs = append(errs, meta.Required(p+".matchConstraints", ""))
	} else {
		errs = append(errs, validateMatchResources(s.MatchConstraints, p+".matchConstraints")...)
		if len(s.MatchConstraints.ResourceRules) == 0 {
			errs = append(errs, meta.Required(p+".matchConstraints.resourceRules", ""))
		}
	}
	errs = append(errs, validateMatchConditions(s.MatchConditions, hasParams, p+".matchConditions")...)
	opts := envOptions{params: hasParams, authorizer: true, variables: len(s.Variables) > 0}
	errs = append(errs, validateVariables(s.Variables, &opts, p+".variables")...)
	if len(s.Validations) == 0 && len(s.AuditAnnotations) == 0 {
		errs = append(errs,
			meta.Required(p+".validations", "validations or auditAnnotations must contain at least one item"),
			meta.Required(p+".auditAnnotations", "validations or auditAnnotations must contain at least one item"))
		return errs
	}
	for i := range s.Validations {
		errs = append(errs, validateValidation(&s.Validations[i], hasParams, opts, meta.Index(p+".validations", i))...)
	}
	if s.AuditAnnotations != nil {
		if len(s.AuditAnnotations) > maxAuditAnnotations {
			errs = append(errs, meta.Invalid(p+".auditAnnotations", fmt.Sprintf("%d items", len(s.AuditAnnotations)), fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
		}
		keys := map[string]bool{}
		for i, a := range s.AuditAnnotations {
			ap := meta.Index(p+".auditAnnotations", i)
			if name != "" {
				errs = append(errs, validateQualifiedName(ap+".key", name+"/"+a.Key)...)
			} else {
				errs = append(errs, meta.Invalid(ap+".key", a.Key, "requires metadata.name be non-empty"))
			}
			ve := strings.TrimSpace(a.ValueExpression)
			switch {
			case ve == "":
				errs = append(errs, meta.Required(ap+".valueExpression", "valueExpression is not specified"))
			case len(ve) > 5*1024:
				errs = append(errs, meta.Required(ap+".valueExpression", fmt.Sprintf("must not exceed %d bytes in length", 5*1024)))
			default:
				if fe := compileCheck(ap+".valueExpression", ve, a.ValueExpression, kindStringOrNull, opts); fe != nil {
					errs = append(errs, fe)
				}
			}
			if keys[a.Key] {
				errs = append(errs, &meta.FieldError{Type: meta.FieldValueDuplicate, Field: ap + ".key", BadValue: a.Key})
			}
			keys[a.Key] = true
		}
	}
	return errs
}

// validateVariables checks a policy's variables: names that are CEL
// identifiers, expressions that compile in opts' environment, each typed
// by the variables before it; it leaves opts with variables typed as all
// of them (opts.vars), for the expressions that follow.
func validateVariables(vars []Variable, opts *envOptions, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	if len(vars) > 0 {
		opts.vars = &varTypes{}
	}
	for i, v := range vars {
		vp := meta.Index(p, i)
		if strings.TrimSpace(v.Name) == "" {
			errs = append(errs, meta.Required(vp+".name", "name is not specified"))
		} else if !celIdentifier.MatchString(v.Name) || slices.Contains(celReservedWords, v.Name) {
			errs = append(errs, meta.Invalid(vp+".name", v.Name, "name is not a valid CEL identifier"))
		}
		typ := types.DynType
		if strings.TrimSpace(v.Expression) == "" {
			errs = append(errs, meta.Required(vp+".expression", "expression is not specified"))
		} else {
			// each variable sees the ones before it, typed
			t, fe := compileType(vp+".expression", v.Expression, v.Expression, kindAny, *opts)
			if fe != nil {
				errs = append(errs, fe)
			}
			typ = t
		}
		opts.vars.fields = append(opts.vars.fields, celrules.Field{Name: v.Name, Type: typ})
	}
	return errs
}

func validateValidation(v *Validation, hasParams bool, opts envOptions, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	msg := strings.TrimSpace(v.Message)
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, meta.Required(p+".expression", "expression is not specified"))
	} else if fe := compileCheck(p+".expression", v.Expression, v.Expression, kindBool, opts); fe != nil {
		errs = append(errs, fe)
	}
	if v.MessageExpression != "" && strings.TrimSpace(v.MessageExpression) == "" {
		errs = append(errs, meta.Invalid(p+".messageExpression", v.MessageExpression, "must be non-empty if specified"))
	} else if strings.TrimSpace(v.MessageExpression) != "" {
		// upstream compiles message expressions with params only when
		// match conditions may use them, and without the authorizer
		mo := envOptions{params: hasParams, variables: opts.variables, vars: opts.vars}
		if fe := compileCheck(p+".messageExpression", v.MessageExpression, v.MessageExpression, kindString, mo); fe != nil {
			errs = append(errs, fe)
		}
	}
	if v.Message != "" && msg == "" {
		errs = append(errs, meta.Invalid(p+".message", v.Message, "message must be non-empty if specified"))
	} else if newlines.MatchString(msg) {
		errs = append(errs, meta.Invalid(p+".message", v.Message, "message must not contain line breaks"))
	}
	if v.Reason != nil && !slices.Contains(policyReasons, *v.Reason) {
		errs = append(errs, meta.NotSupported(p+".reason", *v.Reason, policyReasons))
	}
	return errs
}

func validateParamKind(k *ParamKind, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	switch {
	case k.APIVersion == "":
		errs = append(errs, meta.Required(p+".apiVersion", ""))
	case strings.Count(k.APIVersion, "/") > 1:
		errs = append(errs, meta.Invalid(p+".apiVersion", k.APIVersion, "unexpected GroupVersion string: "+k.APIVersion))
	default:
		group, version := "", k.APIVersion
		if k.APIVersion == "/" {
			version = ""
		} else if g, v, ok := strings.Cut(k.APIVersion, "/"); ok {
			group, version = g, v
		}
		if group != "" {
			if e := meta.IsDNS1123Subdomain(group); len(e) > 0 {
				errs = append(errs, meta.Invalid(p+".apiVersion", group, strings.Join(e, ",")))
			}
		}
		if version == "" {
			errs = append(errs, meta.Invalid(p+".apiVersion", k.APIVersion, "version must be specified"))
		} else if e := meta.IsDNS1035Label(version); len(e) > 0 {
			errs = append(errs, meta.Invalid(p+".apiVersion", version, strings.Join(e, ",")))
		}
	}
	if k.Kind == "" {
		errs = append(errs, meta.Required(p+".kind", ""))
	} else if e := meta.IsDNS1035Label(strings.ToLower(k.Kind)); len(e) > 0 {
		errs = append(errs, meta.Invalid(p+".kind", k.Kind, "may have mixed case, but should otherwise match: "+strings.Join(e, ",")))
	}
	return errs
}

func validateMatchResources(m *MatchResources, p string) meta.FieldErrors {
	if m == nil {
		return nil
	}
	var errs meta.FieldErrors
	if m.MatchPolicy == nil {
		errs = append(errs, meta.Required(p+".matchPolicy", ""))
	} else if !slices.Contains(matchPolicies, *m.MatchPolicy) {
		errs = append(errs, meta.NotSupported(p+".matchPolicy", *m.MatchPolicy, matchPolicies))
	}
	if m.NamespaceSelector == nil {
		errs = append(errs, meta.Required(p+".namespaceSelector", ""))
	} else {
		errs = append(errs, meta.ValidateLabelSelector(m.NamespaceSelector, p+".namespaceSelector")...)
	}
	if m.ObjectSelector == nil {
		errs = append(errs, meta.Required(p+".objectSelector", ""))
	} else {
		errs = append(errs, meta.ValidateLabelSelector(m.ObjectSelector, p+".objectSelector")...)
	}
	for i := range m.ResourceRules {
		errs = append(errs, validateNamedRule(&m.ResourceRules[i], meta.Index(p+".resourceRules", i))...)
	}
	for i := range m.ExcludeResourceRules {
		errs = append(errs, validateNamedRule(&m.ExcludeResourceRules[i], meta.Index(p+".excludeResourceRules", i))...)
	}
	return errs
}

func validateNamedRule(n *NamedRuleWithOperations, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	seen := map[string]bool{}
	for i, rn := range n.ResourceNames {
		for _, msg := range meta.ValidatePathSegmentName(rn, false) {
			errs = append(errs, meta.Invalid(meta.Index(p+".resourceNames", i), rn, msg))
		}
		if seen[rn] {
			errs = append(errs, &meta.FieldError{Type: meta.FieldValueDuplicate, Field: meta.Index(p+".resourceNames", i), BadValue: rn})
		}
		seen[rn] = true
	}
	return append(errs, validateRuleWithOperations(&n.RuleWithOperations, p)...)
}

// ValidateValidatingAdmissionPolicyBindingSpec mirrors upstream's
// validateValidatingAdmissionPolicyBindingSpec.
func ValidateValidatingAdmissionPolicyBindingSpec(s *ValidatingAdmissionPolicyBindingSpec) meta.FieldErrors {
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
	errs = append(errs, validateMatchResources(s.MatchResources, p+".matchResources")...)
	va := p + ".validationActions"
	seen := map[string]bool{}
	for i, a := range s.ValidationActions {
		if !slices.Contains(validationActions, a) {
			errs = append(errs, meta.NotSupported(meta.Index(va, i), a, validationActions))
		}
		if seen[a] {
			errs = append(errs, &meta.FieldError{Type: meta.FieldValueDuplicate, Field: meta.Index(va, i), BadValue: a})
		}
		seen[a] = true
	}
	if seen["Deny"] && seen["Warn"] {
		errs = append(errs, meta.Invalid(va, meta.GoStringSlice("admissionregistration.ValidationAction", s.ValidationActions), "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if len(seen) == 0 {
		errs = append(errs, meta.Required(va, "at least one validation action is required"))
	}
	return errs
}

// validateParamRef checks a binding's paramRef (nil: nothing to check):
// name or selector, not both, and parameterNotFoundAction.
func validateParamRef(pr *ParamRef, pp string) meta.FieldErrors {
	if pr == nil {
		return nil
	}
	var errs meta.FieldErrors
	if pr.Name != "" {
		for _, msg := range meta.ValidatePathSegmentName(pr.Name, false) {
			errs = append(errs, meta.Invalid(pp+".name", pr.Name, msg))
		}
		if pr.Selector != nil {
			errs = append(errs, meta.Forbidden(pp+".name", "name and selector are mutually exclusive"))
		}
	}
	if pr.Selector != nil {
		errs = append(errs, meta.ValidateLabelSelector(pr.Selector, pp+".selector")...)
		if pr.Name != "" {
			errs = append(errs, meta.Forbidden(pp+".selector", "name and selector are mutually exclusive"))
		}
	}
	if pr.Name == "" && pr.Selector == nil {
		errs = append(errs, meta.Required(pp, "one of name or selector must be specified"))
	}
	if pr.ParameterNotFoundAction == nil || *pr.ParameterNotFoundAction == "" {
		errs = append(errs, meta.Required(pp+".parameterNotFoundAction", ""))
	} else if a := *pr.ParameterNotFoundAction; a != "Deny" && a != "Allow" {
		errs = append(errs, meta.NotSupported(pp+".parameterNotFoundAction", pr.ParameterNotFoundAction, []string{"Deny", "Allow"}))
	}
	return errs
}
