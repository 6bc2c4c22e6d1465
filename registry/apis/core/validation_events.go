package core

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Event, ResourceQuota and LimitRange defaulting and validation, as
// kube-apiserver 1.33 does them for core/v1 (pkg/apis/core/v1/defaults.go,
// pkg/apis/core/validation/validation.go, pkg/apis/core/helper). Upstream
// ranges over ResourceList maps, so its causes come in random order;
// aggsim checks keys in sorted order.

// Length limits of an Event's fields (upstream's ReportingInstanceLengthLimit,
// ActionLengthLimit, ReasonLengthLimit, NoteLengthLimit).
const (
	eventReportingInstanceLimit = 128
	eventActionLimit            = 128
	eventReasonLimit            = 128
	eventNoteLimit              = 1024
)

// ValidateEvent is upstream's legacyValidateEvent for a core/v1 request
// (ValidateEventCreate and ValidateEventUpdate add nothing for v1): an
// event without eventTime must have involvedObject.namespace equal to its
// own namespace (both may be empty, or the event in "default"); one with
// eventTime needs reportingComponent, reportingInstance, action and reason
// within their lengths. Upstream validates nothing else of the Event here;
// its ObjectMeta is checked only when this passes (ValidateEventMeta).
func ValidateEvent(e *Event) meta.FieldErrors {
	var errs meta.FieldErrors
	if e.EventTime.IsZero() {
		if e.InvolvedObject.Namespace == "" {
			if e.Namespace != "" && e.Namespace != "default" {
				errs = append(errs, meta.Invalid("involvedObject.namespace", e.InvolvedObject.Namespace, "does not match event.namespace"))
			}
		} else if e.Namespace != e.InvolvedObject.Namespace {
			errs = append(errs, meta.Invalid("involvedObject.namespace", e.InvolvedObject.Namespace, "does not match event.namespace"))
		}
	} else {
		if e.InvolvedObject.Namespace == "" && e.Namespace != "default" && e.Namespace != "kube-system" {
			errs = append(errs, meta.Invalid("involvedObject.namespace", e.InvolvedObject.Namespace, "does not match event.namespace"))
		}
		if e.ReportingController == "" {
			errs = append(errs, meta.Required("reportingComponent", ""))
		}
		for _, msg := range meta.IsQualifiedName(e.ReportingController) {
			errs = append(errs, meta.Invalid("reportingComponent", e.ReportingController, msg))
		}
		if e.ReportingInstance == "" {
			errs = append(errs, meta.Required("reportingInstance", ""))
		}
		if len(e.ReportingInstance) > eventReportingInstanceLimit {
			errs = append(errs, meta.Invalid("reportingInstance", "", fmt.Sprintf("can have at most %v characters", eventReportingInstanceLimit)))
		}
		if e.Action == "" {
			errs = append(errs, meta.Required("action", ""))
		}
		if len(e.Action) > eventActionLimit {
			errs = append(errs, meta.Invalid("action", "", fmt.Sprintf("can have at most %v characters", eventActionLimit)))
		}
		if e.Reason == "" {
			errs = append(errs, meta.Required("reason", ""))
		}
		if len(e.Reason) > eventReasonLimit {
			errs = append(errs, meta.Invalid("reason", "", fmt.Sprintf("can have at most %v characters", eventReasonLimit)))
		}
		if len(e.Message) > eventNoteLimit {
			errs = append(errs, meta.Invalid("message", "", fmt.Sprintf("can have at most %v characters", eventNoteLimit)))
		}
	}
	for _, msg := range meta.IsDNS1123Subdomain(e.Namespace) {
		errs = append(errs, meta.Invalid("namespace", e.Namespace, msg))
	}
	return errs
}

// ValidateEventMeta is the generic ObjectMeta validation upstream's store
// runs after a strategy's own (genericregistry BeforeCreate): names are
// path segments, not DNS names. Events reach it only when ValidateEvent
// passed.
func ValidateEventMeta(e *Event) meta.FieldErrors {
	return meta.ValidateObjectMeta(&e.ObjectMeta, true, meta.ValidatePathSegmentName)
}

// DefaultResourceList rounds every value up to thousandths, as core/v1's
// SetDefaults_ResourceList does.
func DefaultResourceList(l ResourceList) {
	for k, q := range l {
		q.RoundUpMilli()
		l[k] = q
	}
}

// DefaultResourceQuota applies core/v1 defaults to a ResourceQuota: its
// resource lists are rounded (DefaultResourceList).
func DefaultResourceQuota(q *ResourceQuota) {
	DefaultResourceList(q.Spec.Hard)
	DefaultResourceList(q.Status.Hard)
	DefaultResourceList(q.Status.Used)
}

// DefaultLimitRange applies core/v1 defaults to a LimitRange
// (SetDefaults_LimitRangeItem): for a Container item a missing default
// limit is the max, a missing default request the default limit, else the
// min; every resource list is rounded (DefaultResourceList).
func DefaultLimitRange(l *LimitRange) {
	for i := range l.Spec.Limits {
		it := &l.Spec.Limits[i]
		for _, rl := range []ResourceList{it.Max, it.Min, it.Default, it.DefaultRequest, it.MaxLimitRequestRatio} {
			DefaultResourceList(rl)
		}
		if it.Type != LimitTypeContainer {
			continue
		}
		if it.Default == nil {
			it.Default = ResourceList{}
		}
		if it.DefaultRequest == nil {
			it.DefaultRequest = ResourceList{}
		}
		for k, v := range it.Max {
			if _, ok := it.Default[k]; !ok {
				it.Default[k] = v
			}
		}
		for k, v := range it.Default {
			if _, ok := it.DefaultRequest[k]; !ok {
				it.DefaultRequest[k] = v
			}
		}
		for k, v := range it.Min {
			if _, ok := it.DefaultRequest[k]; !ok {
				it.DefaultRequest[k] = v
			}
		}
	}
}

// Resource name sets of upstream's core helper (helpers.go).
var (
	standardResources = []string{"cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
		"requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
		"resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
		"persistentvolumeclaims", "storage", "requests.storage", "services.nodeports", "services.loadbalancers"}
	standardQuotaResources = []string{"cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
		"requests.storage", "requests.ephemeral-storage", "limits.cpu", "limits.memory",
		"limits.ephemeral-storage", "pods", "resourcequotas", "services", "replicationcontrollers", "secrets",
		"persistentvolumeclaims", "configmaps", "services.nodeports", "services.loadbalancers"}
	integerResources = []string{"pods", "resourcequotas", "services", "replicationcontrollers", "secrets",
		"configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"}
	standardContainerResources = []string{"cpu", "memory", "ephemeral-storage"}
	standardLimitTypes         = []string{LimitTypePod, LimitTypeContainer, LimitTypePersistentVolumeClaim}
	standardQuotaScopes        = []string{"Terminating", "NotTerminating", "BestEffort", "NotBestEffort",
		"PriorityClass", "CrossNamespacePodAffinity", "VolumeAttributesClass"}
	podComputeQuotaResources = []string{"cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"}
)

func isQuotaHugePage(name string) bool {
	return strings.HasPrefix(name, "hugepages-") || strings.HasPrefix(name, "requests.hugepages-")
}

func isStandardResourceName(name string) bool {
	return slices.Contains(standardResources, name) || isQuotaHugePage(name)
}

func isStandardQuotaResourceName(name string) bool {
	return slices.Contains(standardQuotaResources, name) || isQuotaHugePage(name)
}

// isNativeResource: no domain, or a kubernetes.io/ one.
func isNativeResource(name string) bool {
	return !strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/")
}

func isExtendedResourceName(name string) bool {
	if isNativeResource(name) || strings.HasPrefix(name, "requests.") {
		return false
	}
	return len(meta.IsQualifiedName("requests."+name)) == 0
}

func isIntegerResourceName(name string) bool {
	return slices.Contains(integerResources, name) || isExtendedResourceName(name)
}

// goResourceName is how upstream prints a core.ResourceName bad value: it
// has a String method, so unquoted.
func goResourceName(name string) meta.GoSyntax { return meta.GoSyntax(name) }

// validateResourceName is upstream's validateResourceName.
func validateResourceName(name, path string) meta.FieldErrors {
	var errs meta.FieldErrors
	for _, msg := range meta.IsQualifiedName(name) {
		errs = append(errs, meta.Invalid(path, goResourceName(name), msg))
	}
	if len(errs) > 0 {
		return errs
	}
	if !strings.Contains(name, "/") && !isStandardResourceName(name) {
		errs = append(errs, meta.Invalid(path, goResourceName(name), "must be a standard resource type or fully qualified"))
	}
	return errs
}

// validateQuotaResourceName is upstream's ValidateResourceQuotaResourceName.
func validateQuotaResourceName(name, path string) meta.FieldErrors {
	errs := validateResourceName(name, path)
	if !strings.Contains(name, "/") && !isStandardQuotaResourceName(name) {
		errs = append(errs, meta.Invalid(path, goResourceName(name), "must be a standard resource for quota"))
	}
	return errs
}

// validateQuantityValue is upstream's ValidateResourceQuantityValue:
// non-negative, and whole for integer resources.
func validateQuantityValue(name string, q Quantity, path string) meta.FieldErrors {
	var errs meta.FieldErrors
	if q.Sign() < 0 {
		errs = append(errs, meta.Invalid(path, q.String(), "must be greater than or equal to 0"))
	}
	if isIntegerResourceName(name) && q.MilliValue()%1000 != 0 {
		errs = append(errs, meta.Invalid(path, meta.GoSyntax(q.GoSyntax()), "must be an integer"))
	}
	return errs
}

// sortedResourceNames are the names of l in order.
func sortedResourceNames(l ResourceList) []string { return slices.Sorted(maps.Keys(l)) }

func validateQuotaList(l ResourceList, path string) meta.FieldErrors {
	var errs meta.FieldErrors
	for _, k := range sortedResourceNames(l) {
		p := path + "[" + k + "]"
		errs = append(errs, validateQuotaResourceName(k, p)...)
		errs = append(errs, validateQuantityValue(k, l[k], p)...)
	}
	return errs
}

// goScopes is upstream's %#v of a []core.ResourceQuotaScope: an update
// that drops every scope prints `[]core.ResourceQuotaScope(nil)` (measured:
// kubectl patch --type=json remove /spec/scopes on the reference), an
// explicit `[]` prints `{}`.
func goScopes(scopes []string) meta.GoSyntax {
	return meta.GoStringSlice("core.ResourceQuotaScope", scopes)
}

// scopeValidForResource is upstream's IsResourceQuotaScopeValidForResource.
func scopeValidForResource(scope, resource string) bool {
	switch scope {
	case "Terminating", "NotTerminating", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity":
		return resource == "pods" || slices.Contains(podComputeQuotaResources, resource)
	case "BestEffort":
		return resource == "pods"
	case "VolumeAttributesClass":
		return resource == "persistentvolumeclaims" || resource == "requests.storage"
	}
	return true
}

// conflictingScopes reports whether scopes hold both of BestEffort and
// NotBestEffort or of Terminating and NotTerminating (once per pair).
func conflictingScopes(scopes []string) int {
	n := 0
	for _, pair := range [][2]string{{"BestEffort", "NotBestEffort"}, {"Terminating", "NotTerminating"}} {
		if slices.Contains(scopes, pair[0]) && slices.Contains(scopes, pair[1]) {
			n++
		}
	}
	return n
}

// validateQuotaSpec is upstream's ValidateResourceQuotaSpec: hard names
// and values, scopes (standard, valid for every standard hard resource,
// not conflicting) and the scope selector's requirements.
func validateQuotaSpec(s *ResourceQuotaSpec) meta.FieldErrors {
	errs := validateQuotaList(s.Hard, "spec.hard")
	hard := sortedResourceNames(s.Hard)
	if len(s.Scopes) > 0 {
		for _, scope := range s.Scopes {
			if !slices.Contains(standardQuotaScopes, scope) {
				errs = append(errs, meta.Invalid("spec.scopes", goScopes(s.Scopes), "unsupported scope"))
			}
			for _, k := range hard {
				if isStandardQuotaResourceName(k) && !scopeValidForResource(scope, k) {
					errs = append(errs, meta.Invalid("spec.scopes", goScopes(s.Scopes), "unsupported scope applied to resource"))
				}
			}
		}
		for range conflictingScopes(s.Scopes) {
			errs = append(errs, meta.Invalid("spec.scopes", goScopes(s.Scopes), "conflicting scopes"))
		}
	}
	if s.ScopeSelector == nil {
		return errs
	}
	const path = "spec.scopeSelector.matchExpressions"
	var names []string
	for _, r := range s.ScopeSelector.MatchExpressions {
		if !slices.Contains(standardQuotaScopes, r.ScopeName) {
			errs = append(errs, meta.Invalid(path+".scopeName", r.ScopeName, "unsupported scope"))
		}
		for _, k := range hard {
			if isStandardQuotaResourceName(k) && !scopeValidForResource(r.ScopeName, k) {
				errs = append(errs, meta.Invalid(path, goScopeSelector(s.ScopeSelector), "unsupported scope applied to resource"))
			}
		}
		switch r.ScopeName {
		case "BestEffort", "NotBestEffort", "Terminating", "NotTerminating", "CrossNamespacePodAffinity":
			if r.Operator != "Exists" {
				errs = append(errs, meta.Invalid(path+".operator", r.Operator,
					"must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"))
			}
		}
		switch r.Operator {
		case "In", "NotIn":
			if len(r.Values) == 0 {
				errs = append(errs, meta.Required(path+".values", "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"))
			}
		case "Exists", "DoesNotExist":
			if len(r.Values) != 0 {
				errs = append(errs, meta.Invalid(path+".values", r.Values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"))
			}
		default:
			errs = append(errs, meta.Invalid(path+".operator", r.Operator, "not a valid selector operator"))
		}
		names = append(names, r.ScopeName)
	}
	for range conflictingScopes(names) {
		errs = append(errs, meta.Invalid(path, goScopeSelector(s.ScopeSelector), "conflicting scopes"))
	}
	return errs
}

// goScopeSelector is upstream's %#v of a core.ScopeSelector.
func goScopeSelector(s *ScopeSelector) meta.GoSyntax {
	reqs := make([]string, len(s.MatchExpressions))
	for i, r := range s.MatchExpressions {
		reqs[i] = fmt.Sprintf("core.ScopedResourceSelectorRequirement{ScopeName:%q, Operator:%q, Values:%s}", r.ScopeName, r.Operator, meta.GoStringSlice("string", r.Values))
	}
	list := "[]core.ScopedResourceSelectorRequirement(nil)"
	if s.MatchExpressions != nil {
		list = "[]core.ScopedResourceSelectorRequirement{" + strings.Join(reqs, ", ") + "}"
	}
	return meta.GoSyntax("core.ScopeSelector{MatchExpressions:" + list + "}")
}

// ValidateResourceQuota is upstream's ValidateResourceQuota: metadata (a
// DNS subdomain name), spec, and the names and values of status.hard and
// status.used.
func ValidateResourceQuota(q *ResourceQuota) meta.FieldErrors {
	errs := validateObjectMeta(&q.ObjectMeta, true, meta.NameIsDNSSubdomain)
	errs = append(errs, validateQuotaSpec(&q.Spec)...)
	errs = append(errs, validateQuotaList(q.Status.Hard, "status.hard")...)
	return append(errs, validateQuotaList(q.Status.Used, "status.used")...)
}

// ValidateResourceQuotaUpdate is upstream's ValidateResourceQuotaUpdate:
// metadata, spec, and scopes that may not change.
func ValidateResourceQuotaUpdate(q, old *ResourceQuota) meta.FieldErrors {
	errs := validateObjectMetaUpdate(&q.ObjectMeta, &old.ObjectMeta)
	errs = append(errs, validateQuotaSpec(&q.Spec)...)
	a, b := slices.Clone(q.Spec.Scopes), slices.Clone(old.Spec.Scopes)
	sort.Strings(a)
	sort.Strings(b)
	if !slices.Equal(slices.Compact(a), slices.Compact(b)) {
		errs = append(errs, meta.Invalid("spec.scopes", goScopes(q.Spec.Scopes), "field is immutable"))
	}
	return errs
}

// ValidateResourceQuotaStatusUpdate is upstream's
// ValidateResourceQuotaStatusUpdate: metadata, a resourceVersion, and the
// names and values of status.hard and status.used.
func ValidateResourceQuotaStatusUpdate(q, old *ResourceQuota) meta.FieldErrors {
	errs := validateObjectMetaUpdate(&q.ObjectMeta, &old.ObjectMeta)
	if q.ResourceVersion == "" {
		errs = append(errs, meta.Required("resourceVersion", ""))
	}
	errs = append(errs, validateQuotaList(q.Status.Hard, "status.hard")...)
	return append(errs, validateQuotaList(q.Status.Used, "status.used")...)
}

// validateLimitResourceName is upstream's validateLimitRangeResourceName.
func validateLimitResourceName(limitType, name, path string) meta.FieldErrors {
	if limitType != LimitTypePod && limitType != LimitTypeContainer {
		return validateResourceName(name, path)
	}
	errs := validateResourceName(name, path)
	if !strings.Contains(name, "/") {
		if !slices.Contains(standardContainerResources, name) && !strings.HasPrefix(name, "hugepages-") {
			errs = append(errs, meta.Invalid(path, goResourceName(name), "must be a standard resource for containers"))
		}
	} else if !isNativeResource(name) && !isExtendedResourceName(name) {
		errs = append(errs, meta.Invalid(path, goResourceName(name), "doesn't follow extended resource name standard"))
	}
	return errs
}

// isOvercommitAllowed is upstream's helper: native resources other than
// huge pages may be overcommitted.
func isOvercommitAllowed(name string) bool {
	return isNativeResource(name) && !strings.HasPrefix(name, "hugepages-")
}

// quantityArg is a Quantity as upstream's LimitRange causes print it:
// String() was called on it for the message, so its cached text is set.
func quantityArg(q Quantity) meta.GoSyntax {
	q.rep.s = q.String()
	return meta.GoSyntax(q.GoSyntax())
}

// ValidateLimitRange is upstream's ValidateLimitRange: metadata (a DNS
// subdomain name); per item a standard or qualified type given once, valid
// resource names, no default or defaultRequest for Pod items, a storage
// min or max for PersistentVolumeClaim items, and per resource min ≤
// defaultRequest ≤ default ≤ max, a maxLimitRequestRatio of at least 1 and
// at most max/min, and default = defaultRequest where overcommit is not
// allowed.
func ValidateLimitRange(l *LimitRange) meta.FieldErrors {
	errs := validateObjectMeta(&l.ObjectMeta, true, meta.NameIsDNSSubdomain)
	seen := map[string]bool{}
	for i := range l.Spec.Limits {
		it := &l.Spec.Limits[i]
		p := fmt.Sprintf("spec.limits[%d]", i)
		var typeErrs meta.FieldErrors
		for _, msg := range meta.IsQualifiedName(it.Type) {
			typeErrs = append(typeErrs, meta.Invalid(p+".type", it.Type, msg))
		}
		if len(typeErrs) == 0 && !strings.Contains(it.Type, "/") && !slices.Contains(standardLimitTypes, it.Type) {
			typeErrs = append(typeErrs, meta.Invalid(p+".type", it.Type, "must be a standard limit type or fully qualified"))
		}
		errs = append(errs, typeErrs...)
		if seen[it.Type] {
			errs = append(errs, &meta.FieldError{Type: meta.FieldValueDuplicate, Field: p + ".type", BadValue: it.Type})
		}
		seen[it.Type] = true

		keys := map[string]bool{}
		names := func(rl ResourceList, field string) {
			for _, k := range sortedResourceNames(rl) {
				errs = append(errs, validateLimitResourceName(it.Type, k, p+"."+field+"["+k+"]")...)
				keys[k] = true
			}
		}
		names(it.Max, "max")
		names(it.Min, "min")
		if it.Type == LimitTypePod {
			if len(it.Default) > 0 {
				errs = append(errs, meta.Forbidden(p+".default", "may not be specified when `type` is 'Pod'"))
			}
			if len(it.DefaultRequest) > 0 {
				errs = append(errs, meta.Forbidden(p+".defaultRequest", "may not be specified when `type` is 'Pod'"))
			}
		} else {
			names(it.Default, "default")
			names(it.DefaultRequest, "defaultRequest")
		}
		if it.Type == LimitTypePersistentVolumeClaim {
			_, minOK := it.Min["storage"]
			_, maxOK := it.Max["storage"]
			if !minOK && !maxOK {
				errs = append(errs, meta.Required(p+".limits", "either minimum or maximum storage value is required, but neither was provided"))
			}
		}
		names(it.MaxLimitRequestRatio, "maxLimitRequestRatio")

		one := MustParseQuantity("1")
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			minQ, minOK := it.Min[k]
			maxQ, maxOK := it.Max[k]
			defQ, defOK := it.Default[k]
			if it.Type == LimitTypePod {
				defOK = false
			}
			reqQ, reqOK := it.DefaultRequest[k]
			if it.Type == LimitTypePod {
				reqOK = false
			}
			ratio, ratioOK := it.MaxLimitRequestRatio[k]
			key := "[" + k + "]"
			if minOK && maxOK && minQ.Cmp(maxQ) > 0 {
				errs = append(errs, meta.Invalid(p+".min"+key, quantityArg(minQ), fmt.Sprintf("min value %s is greater than max value %s", minQ.String(), maxQ.String())))
			}
			if reqOK && minOK && minQ.Cmp(reqQ) > 0 {
				errs = append(errs, meta.Invalid(p+".defaultRequest"+key, quantityArg(reqQ), fmt.Sprintf("min value %s is greater than default request value %s", minQ.String(), reqQ.String())))
			}
			if reqOK && maxOK && reqQ.Cmp(maxQ) > 0 {
				errs = append(errs, meta.Invalid(p+".defaultRequest"+key, quantityArg(reqQ), fmt.Sprintf("default request value %s is greater than max value %s", reqQ.String(), maxQ.String())))
			}
			if reqOK && defOK && reqQ.Cmp(defQ) > 0 {
				errs = append(errs, meta.Invalid(p+".defaultRequest"+key, quantityArg(reqQ), fmt.Sprintf("default request value %s is greater than default limit value %s", reqQ.String(), defQ.String())))
			}
			if defOK && minOK && minQ.Cmp(defQ) > 0 {
				errs = append(errs, meta.Invalid(p+".default"+key, quantityArg(minQ), fmt.Sprintf("min value %s is greater than default value %s", minQ.String(), defQ.String())))
			}
			if defOK && maxOK && defQ.Cmp(maxQ) > 0 {
				errs = append(errs, meta.Invalid(p+".default"+key, quantityArg(maxQ), fmt.Sprintf("default value %s is greater than max value %s", defQ.String(), maxQ.String())))
			}
			if ratioOK && ratio.Cmp(one) < 0 {
				errs = append(errs, meta.Invalid(p+".maxLimitRequestRatio"+key, quantityArg(ratio), fmt.Sprintf("ratio %s is less than 1", ratio.String())))
			}
			if ratioOK && minOK && maxOK && minQ.Sign() != 0 {
				limit := float64(maxQ.MilliValue()) / float64(minQ.MilliValue())
				if float64(ratio.MilliValue())/1000 > limit {
					errs = append(errs, meta.Invalid(p+".maxLimitRequestRatio"+key, quantityArg(ratio), fmt.Sprintf("ratio %s is greater than max/min = %f", ratio.String(), limit)))
				}
			}
			if !isOvercommitAllowed(k) && defOK && reqOK && defQ.Cmp(reqQ) != 0 {
				errs = append(errs, meta.Invalid(p+".defaultRequest"+key, quantityArg(reqQ), fmt.Sprintf("default value %s must equal to defaultRequest value %s in %s", defQ.String(), reqQ.String(), k)))
			}
		}
	}
	return errs
}

// ValidateLimitRangeUpdate is upstream's: metadata update rules, then
// ValidateLimitRange's checks of the new object.
func ValidateLimitRangeUpdate(l, old *LimitRange) meta.FieldErrors {
	errs := validateObjectMetaUpdate(&l.ObjectMeta, &old.ObjectMeta)
	full := ValidateLimitRange(l)
	// ValidateLimitRange starts with the create-time metadata checks,
	// which the update rules replace.
	meta := validateObjectMeta(&l.ObjectMeta, true, meta.NameIsDNSSubdomain)
	return append(errs, full[len(meta):]...)
}
