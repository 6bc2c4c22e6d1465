package flowcontrol

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

var (
	distinguishers  = []string{"ByNamespace", "ByUser"}
	supportedVerbs  = []string{"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"}
	subjectKinds    = []string{"Group", "ServiceAccount", "User"}
	enablements     = []string{"Exempt", "Limited"}
	limitResponses  = []string{"Queue", "Reject"}
	maxQueues       = int32(10 * 1000 * 1000)
	maxHashBits     = 60
	nsErrIntro      = "each member of this list must be '*' or a DNS-1123 label; "
	maxPrecedence   = int32(10000)
	exemptLevelName = "exempt"
)

// ValidateFlowSchemaSpec mirrors upstream's ValidateFlowSchemaSpec for a
// FlowSchema named name (paths under "spec").
func ValidateFlowSchemaSpec(name string, s *FlowSchemaSpec) meta.FieldErrors {
	const p = "spec"
	var errs meta.FieldErrors
	mp := s.MatchingPrecedence
	if mp <= 0 {
		errs = append(errs, meta.Invalid(p+".matchingPrecedence", mp, "must be a positive value"))
	}
	if mp > maxPrecedence {
		errs = append(errs, meta.Invalid(p+".matchingPrecedence", mp, fmt.Sprintf("must not be greater than %v", maxPrecedence)))
	}
	if mp == 1 && name != exemptLevelName {
		errs = append(errs, meta.Invalid(p+".matchingPrecedence", mp, "only the schema named 'exempt' may have matchingPrecedence 1"))
	}
	if d := s.DistinguisherMethod; d != nil && !slices.Contains(distinguishers, d.Type) {
		errs = append(errs, meta.NotSupported(p+".distinguisherMethod.type", meta.GoSyntax(fmt.Sprintf("flowcontrol.FlowDistinguisherMethod{Type:%q}", d.Type)), distinguishers))
	}
	if n := s.PriorityLevelConfiguration.Name; n != "" {
		for _, msg := range meta.NameIsDNSSubdomain(n, false) {
			errs = append(errs, meta.Invalid(p+".priorityLevelConfiguration.name", n, msg))
		}
	} else {
		errs = append(errs, meta.Required(p+".priorityLevelConfiguration.name", "must reference a priority level"))
	}
	for i := range s.Rules {
		errs = append(errs, validateRules(&s.Rules[i], meta.Index(p+".rules", i))...)
	}
	return errs
}

func validateRules(r *PolicyRulesWithSubjects, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	if len(r.Subjects) == 0 {
		errs = append(errs, meta.Required(p+".subjects", "subjects must contain at least one value"))
	}
	for i := range r.Subjects {
		errs = append(errs, validateSubject(&r.Subjects[i], meta.Index(p+".subjects", i))...)
	}
	if len(r.ResourceRules) == 0 && len(r.NonResourceRules) == 0 {
		errs = append(errs, meta.Required(p, "at least one of resourceRules and nonResourceRules has to be non-empty"))
	}
	for i := range r.ResourceRules {
		errs = append(errs, validateResourceRule(&r.ResourceRules[i], meta.Index(p+".resourceRules", i))...)
	}
	for i := range r.NonResourceRules {
		errs = append(errs, validateNonResourceRule(&r.NonResourceRules[i], meta.Index(p+".nonResourceRules", i))...)
	}
	return errs
}

func validateSubject(s *Subject, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	forbidUser := func() {
		if s.User != nil {
			errs = append(errs, meta.Forbidden(p+".user", "user is forbidden when subject kind is not 'User'"))
		}
	}
	forbidGroup := func() {
		if s.Group != nil {
			errs = append(errs, meta.Forbidden(p+".group", "group is forbidden when subject kind is not 'Group'"))
		}
	}
	forbidSA := func() {
		if s.ServiceAccount != nil {
			errs = append(errs, meta.Forbidden(p+".serviceAccount", "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"))
		}
	}
	switch s.Kind {
	case "ServiceAccount":
		if sa := s.ServiceAccount; sa == nil {
			errs = append(errs, meta.Required(p+".serviceAccount", "serviceAccount is required when subject kind is 'ServiceAccount'"))
		} else {
			if sa.Name == "" {
				errs = append(errs, meta.Required(p+".serviceAccount.name", ""))
			} else if sa.Name != "*" {
				for _, msg := range meta.NameIsDNSSubdomain(sa.Name, false) {
					errs = append(errs, meta.Invalid(p+".serviceAccount.name", sa.Name, msg))
				}
			}
			if sa.Namespace != "" {
				for _, msg := range meta.NameIsDNSLabel(sa.Namespace, false) {
					errs = append(errs, meta.Invalid(p+".serviceAccount.namespace", sa.Namespace, msg))
				}
			} else {
				errs = append(errs, meta.Required(p+".serviceAccount.namespace", "must specify namespace for service account"))
			}
		}
		forbidUser()
		forbidGroup()
	case "User":
		if s.User == nil {
			errs = append(errs, meta.Required(p+".user", "user is required when subject kind is 'User'"))
		} else if s.User.Name == "" {
			errs = append(errs, meta.Required(p+".user.name", ""))
		}
		forbidSA()
		forbidGroup()
	case "Group":
		if s.Group == nil {
			errs = append(errs, meta.Required(p+".group", "group is required when subject kind is 'Group'"))
		} else if s.Group.Name == "" {
			errs = append(errs, meta.Required(p+".group.name", ""))
		}
		forbidSA()
		forbidUser()
	default:
		errs = append(errs, meta.NotSupported(p+".kind", s.Kind, subjectKinds))
	}
	return errs
}

func validateVerbs(verbs []string, p string) meta.FieldErrors {
	switch {
	case len(verbs) == 0:
		return meta.FieldErrors{meta.Required(p, "verbs must contain at least one value")}
	case slices.Contains(verbs, "*"):
		if len(verbs) > 1 {
			return meta.FieldErrors{meta.Invalid(p, verbs, "if '*' is present, must not specify other verbs")}
		}
	default:
		for _, v := range verbs {
			if !slices.Contains(supportedVerbs, v) {
				return meta.FieldErrors{meta.NotSupported(p, verbs, supportedVerbs)}
			}
		}
	}
	return nil
}

func validateResourceRule(r *ResourcePolicyRule, p string) meta.FieldErrors {
	errs := validateVerbs(r.Verbs, p+".verbs")
	if len(r.APIGroups) == 0 {
		errs = append(errs, meta.Required(p+".apiGroups", "resource rules must supply at least one api group"))
	} else if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, "*") {
		errs = append(errs, meta.Invalid(p+".apiGroups", r.APIGroups, "if '*' is present, must not specify other api groups"))
	}
	if len(r.Resources) == 0 {
		errs = append(errs, meta.Required(p+".resources", "resource rules must supply at least one resource"))
	} else if len(r.Resources) > 1 && slices.Contains(r.Resources, "*") {
		errs = append(errs, meta.Invalid(p+".resources", r.Resources, "if '*' is present, must not specify other resources"))
	}
	switch {
	case len(r.Namespaces) == 0 && !r.ClusterScope:
		errs = append(errs, meta.Required(p+".namespaces", "resource rules that are not cluster scoped must supply at least one namespace"))
	case slices.Contains(r.Namespaces, "*"):
		if len(r.Namespaces) > 1 {
			errs = append(errs, meta.Invalid(p+".namespaces", r.Namespaces, "if '*' is present, must not specify other namespaces"))
		}
	default:
		for i, ns := range r.Namespaces {
			for _, msg := range meta.NameIsDNSLabel(ns, false) {
				errs = append(errs, meta.Invalid(meta.Index(p+".namespaces", i), ns, nsErrIntro+msg))
			}
		}
	}
	return errs
}

func validateNonResourceRule(r *NonResourcePolicyRule, p string) meta.FieldErrors {
	errs := validateVerbs(r.Verbs, p+".verbs")
	switch {
	case len(r.NonResourceURLs) == 0:
		errs = append(errs, meta.Required(p+".nonResourceURLs", "nonResourceURLs must contain at least one value"))
	case slices.Contains(r.NonResourceURLs, "*"):
		if len(r.NonResourceURLs) > 1 {
			errs = append(errs, meta.Invalid(p+".nonResourceURLs", r.NonResourceURLs, "if '*' is present, must not specify other non-resource URLs"))
		}
	default:
		for i, u := range r.NonResourceURLs {
			if fe := validateNonResourceURL(u, meta.Index(p+".nonResourceURLs", i)); fe != nil {
				errs = append(errs, fe)
			}
		}
	}
	return errs
}

// validateNonResourceURL mirrors upstream's ValidateNonResourceURLPath.
func validateNonResourceURL(u, p string) *meta.FieldError {
	switch {
	case u == "":
		return meta.Invalid(p, u, "must not be empty")
	case u == "/":
		return nil
	case !strings.HasPrefix(u, "/"):
		return meta.Invalid(p, u, "must start with slash")
	case strings.Contains(u, " "):
		return meta.Invalid(p, u, "must not contain white-space")
	case strings.Contains(u, "//"):
		return meta.Invalid(p, u, "must not contain double slash")
	}
	if n := strings.Count(u, "*"); n > 1 || n == 1 && !strings.HasSuffix(u, "/*") {
		return meta.Invalid(p, u, "wildcard can only do suffix matching")
	}
	return nil
}

// ValidatePriorityLevelConfigurationSpec mirrors upstream's
// ValidatePriorityLevelConfigurationSpec for a level named name.
func ValidatePriorityLevelConfigurationSpec(name string, s *PriorityLevelConfigurationSpec) meta.FieldErrors {
	const p = "spec"
	var errs meta.FieldErrors
	if (name == exemptLevelName) != (s.Type == "Exempt") {
		errs = append(errs, meta.Invalid(p+".type", s.Type, "type must be 'Exempt' if and only if name is 'exempt'"))
	}
	switch s.Type {
	case "Exempt":
		if s.Limited != nil {
			errs = append(errs, meta.Forbidden(p+".limited", "must be nil if the type is not Limited"))
		}
		if e := s.Exempt; e != nil {
			if e.NominalConcurrencyShares != nil && *e.NominalConcurrencyShares < 0 {
				errs = append(errs, meta.Invalid(p+".exempt.nominalConcurrencyShares", *e.NominalConcurrencyShares, "must be a non-negative integer"))
			}
			if e.LendablePercent != nil && (*e.LendablePercent < 0 || *e.LendablePercent > 100) {
				errs = append(errs, meta.Invalid(p+".exempt.lendablePercent", *e.LendablePercent, "must be between 0 and 100, inclusive"))
			}
		}
	case "Limited":
		if s.Exempt != nil {
			errs = append(errs, meta.Forbidden(p+".exempt", "must be nil if the type is Limited"))
		}
		if s.Limited == nil {
			errs = append(errs, meta.Required(p+".limited", "must not be empty when type is Limited"))
		} else {
			errs = append(errs, validateLimited(s.Limited, p+".limited")...)
		}
	default:
		errs = append(errs, meta.NotSupported(p+".type", s.Type, enablements))
	}
	return errs
}

func validateLimited(l *LimitedPriorityLevelConfiguration, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	if l.NominalConcurrencyShares != nil && *l.NominalConcurrencyShares < 0 {
		errs = append(errs, meta.Invalid(p+".nominalConcurrencyShares", *l.NominalConcurrencyShares, "must be a non-negative integer"))
	}
	lp := p + ".limitResponse"
	switch lr := l.LimitResponse; lr.Type {
	case "Reject":
		if lr.Queuing != nil {
			errs = append(errs, meta.Forbidden(lp+".queuing", "must be nil if limited.limitResponse.type is not Limited"))
		}
	case "Queue":
		if lr.Queuing == nil {
			errs = append(errs, meta.Required(lp+".queuing", "must not be empty if limited.limitResponse.type is Limited"))
		} else {
			errs = append(errs, validateQueuing(lr.Queuing, lp+".queuing")...)
		}
	default:
		errs = append(errs, meta.NotSupported(lp+".type", lr.Type, limitResponses))
	}
	if v := l.LendablePercent; v != nil && (*v < 0 || *v > 100) {
		errs = append(errs, meta.Invalid(p+".lendablePercent", *v, "must be between 0 and 100, inclusive"))
	}
	if v := l.BorrowingLimitPercent; v != nil && *v < 0 {
		errs = append(errs, meta.Invalid(p+".borrowingLimitPercent", *v, "if specified, must be a non-negative integer"))
	}
	return errs
}

func validateQueuing(q *QueuingConfiguration, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	if q.QueueLengthLimit <= 0 {
		errs = append(errs, meta.Invalid(p+".queueLengthLimit", q.QueueLengthLimit, "must be positive"))
	}
	if q.Queues <= 0 {
		errs = append(errs, meta.Invalid(p+".queues", q.Queues, "must be positive"))
	} else if q.Queues > maxQueues {
		errs = append(errs, meta.Invalid(p+".queues", q.Queues, fmt.Sprintf("must not be greater than %d", maxQueues)))
	}
	switch {
	case q.HandSize <= 0:
		errs = append(errs, meta.Invalid(p+".handSize", q.HandSize, "must be positive"))
	case q.HandSize > q.Queues:
		errs = append(errs, meta.Invalid(p+".handSize", q.HandSize, fmt.Sprintf("should not be greater than queues (%d)", q.Queues)))
	case int(math.Ceil(math.Log2(float64(q.Queues))*float64(q.HandSize))) > maxHashBits:
		errs = append(errs, meta.Invalid(p+".handSize", q.HandSize, fmt.Sprintf("required entropy bits of deckSize %d and handSize %d should not be greater than %d", q.Queues, q.HandSize, maxHashBits)))
	}
	return errs
}
