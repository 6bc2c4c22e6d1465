package apiextensions

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// SchemaChecker checks one openAPIV3Schema (its JSON as stored) as
// upstream's CRD validation does, fldPath prefixing the error fields
// ("spec.validation.openAPIV3Schema"); statusSubresource says the status
// subresource is on for it, which restricts the root schema. The
// structural-schema engine provides it; nil checks nothing.
type SchemaChecker func(openAPIV3Schema []byte, fldPath string, statusSubresource bool) meta.FieldErrors

// APIApprovedAnnotation is the annotation CRDs of the protected
// community groups (*.k8s.io, *.kubernetes.io) must carry.
const APIApprovedAnnotation = "api-approved.kubernetes.io"

// printerColumnTypes and printerColumnFormats are the allowed column
// types and formats, sorted as upstream lists them in its messages.
var (
	printerColumnTypes   = []string{"boolean", "date", "integer", "number", "string"}
	printerColumnFormats = []string{"byte", "date", "date-time", "double", "float", "int32", "int64", "password"}
)

// hoisted says which per-version fields upstream's conversion to its
// internal version moves to the spec because every version has the same
// value (Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_...):
// errors about them are reported at spec.validation, spec.subresources,
// spec.additionalPrinterColumns and spec.selectableFields instead of under
// spec.versions[i].
type hoisted struct {
	schema, subresources, columns, selectableFields bool
}

func sameJSON[T any](vs []CustomResourceDefinitionVersion, get func(*CustomResourceDefinitionVersion) T) bool {
	if len(vs) == 0 {
		return false
	}
	first, _ := json.Marshal(get(&vs[0]))
	for i := 1; i < len(vs); i++ {
		b, _ := json.Marshal(get(&vs[i]))
		if string(b) != string(first) {
			return false
		}
	}
	return true
}

func hoistedOf(spec *CustomResourceDefinitionSpec) hoisted {
	return hoisted{
		schema:       sameJSON(spec.Versions, func(v *CustomResourceDefinitionVersion) *CustomResourceValidation { return v.Schema }),
		subresources: sameJSON(spec.Versions, func(v *CustomResourceDefinitionVersion) *CustomResourceSubresources { return v.Subresources }),
		columns: sameJSON(spec.Versions, func(v *CustomResourceDefinitionVersion) []CustomResourceColumnDefinition {
			return v.AdditionalPrinterColumns
		}),
		selectableFields: sameJSON(spec.Versions, func(v *CustomResourceDefinitionVersion) []SelectableField { return v.SelectableFields }),
	}
}

// SchemaPath returns where errors about version i's openAPIV3Schema are
// reported: spec.validation.openAPIV3Schema when every version has the
// same schema, else spec.versions[i].schema.openAPIV3Schema.
func SchemaPath(spec *CustomResourceDefinitionSpec, i int) string {
	if hoistedOf(spec).schema {
		return "spec.validation.openAPIV3Schema"
	}
	return meta.Index("spec.versions", i) + ".schema.openAPIV3Schema"
}

// ValidateCustomResourceDefinition checks a new CRD as upstream's
// ValidateCustomResourceDefinition (apiextensions validation.go) does,
// errors in upstream's order and words: metadata (a DNS subdomain equal
// to plural.group), group, scope, versions, names, schemas (through
// check), subresources, printer columns, conversion,
// preserveUnknownFields, selectable fields, status (storedVersions) and
// the API approval annotation of protected groups.
func ValidateCustomResourceDefinition(crd *CustomResourceDefinition, check SchemaChecker) meta.FieldErrors {
	return validate(crd, nil, check)
}

// ValidateCustomResourceDefinitionUpdate checks an update: the new
// object as on create, plus upstream's update rules (scope and group are
// immutable once instances may exist — aggsim treats them as immutable as
// upstream does for an established CRD — and metadata update rules).
func ValidateCustomResourceDefinitionUpdate(crd, old *CustomResourceDefinition, check SchemaChecker) meta.FieldErrors {
	errs := meta.ValidateObjectMetaUpdate(&crd.ObjectMeta, &old.ObjectMeta)
	errs = append(errs, validate(crd, old, check)...)
	if IsEstablished(old) {
		if crd.Spec.Scope != old.Spec.Scope {
			errs = append(errs, meta.Invalid("spec.scope", string(crd.Spec.Scope), "field is immutable"))
		}
		if crd.Spec.Names.Kind != old.Spec.Names.Kind && old.Status.AcceptedNames.Kind == old.Spec.Names.Kind {
			errs = append(errs, meta.Invalid("spec.names.kind", crd.Spec.Names.Kind, "field is immutable"))
		}
	}
	if crd.Spec.Group != old.Spec.Group {
		errs = append(errs, meta.Invalid("spec.group", crd.Spec.Group, "field is immutable"))
	}
	return errs
}

// ValidateCustomResourceDefinitionStatusUpdate checks a write through
// /status as upstream's status strategy does
// (ValidateUpdateCustomResourceDefinitionStatus): metadata update rules and
// the accepted names only. The spec (kept from the stored object) and its
// schemas are not checked again, and neither is storedVersions
// (kube-apiserver 1.33.13 accepted a /status patch setting storedVersions
// to ["v1","v9"] with no version v9).
func ValidateCustomResourceDefinitionStatusUpdate(crd, old *CustomResourceDefinition) meta.FieldErrors {
	errs := meta.ValidateObjectMetaUpdate(&crd.ObjectMeta, &old.ObjectMeta)
	return append(errs, ValidateNames(&crd.Status.AcceptedNames, "status.acceptedNames")...)
}

func validate(crd *CustomResourceDefinition, old *CustomResourceDefinition, check SchemaChecker) meta.FieldErrors {
	spec := &crd.Spec
	nameFn := func(name string, prefix bool) []string {
		ret := meta.NameIsDNSSubdomain(name, prefix)
		if name != spec.Names.Plural+"."+spec.Group {
			ret = append(ret, `must be spec.names.plural+"."+spec.group`)
		}
		return ret
	}
	errs := meta.ValidateObjectMeta(&crd.ObjectMeta, false, nameFn)
	errs = append(errs, validateSpec(spec, check)...)
	errs = append(errs, validateStatus(&crd.Status, spec)...)
	errs = append(errs, validateAPIApproval(crd, old)...)
	return errs
}

func validateSpec(spec *CustomResourceDefinitionSpec, check SchemaChecker) meta.FieldErrors {
	var errs meta.FieldErrors
	switch {
	case spec.Group == "":
		errs = append(errs, meta.Required("spec.group", ""))
	case len(meta.IsDNS1123Subdomain(spec.Group)) > 0:
		errs = append(errs, meta.Invalid("spec.group", spec.Group, strings.Join(meta.IsDNS1123Subdomain(spec.Group), ",")))
	case len(strings.Split(spec.Group, ".")) < 2:
		errs = append(errs, meta.Invalid("spec.group", spec.Group, "should be a domain with at least one dot"))
	}
	switch spec.Scope {
	case "":
		errs = append(errs, meta.Required("spec.scope", ""))
	case ClusterScoped, NamespaceScoped:
	default:
		errs = append(errs, meta.NotSupported("spec.scope", string(spec.Scope), []string{string(ClusterScoped), string(NamespaceScoped)}))
	}
	// every version's missing schema first, before the versions' own
	// checks, as upstream's validateCustomResourceDefinitionSpec
	for i := range spec.Versions {
		if v := &spec.Versions[i]; v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			errs = append(errs, meta.Required(meta.Index("spec.versions", i)+".schema.openAPIV3Schema", "schemas are required"))
		}
	}

	h := hoistedOf(spec)
	storageCount := 0
	seen := map[string]bool{}
	unique := true
	for i := range spec.Versions {
		v := &spec.Versions[i]
		path := meta.Index("spec.versions", i)
		if v.Storage {
			storageCount++
		}
		if seen[v.Name] {
			unique = false
		}
		seen[v.Name] = true
		if e := meta.IsDNS1035Label(v.Name); len(e) > 0 {
			errs = append(errs, meta.Invalid(path+".name", v.Name, strings.Join(e, ",")))
		}
		if w := v.DeprecationWarning; w != nil {
			switch {
			case !v.Deprecated:
				errs = append(errs, meta.Invalid(path+".deprecationWarning", *w, "can only be set for deprecated versions"))
			case len(*w) > 256:
				errs = append(errs, &meta.FieldError{Type: meta.FieldValueTooLong, Field: path + ".deprecationWarning", BadValue: "<value omitted>", Detail: "may not be more than 256 bytes"})
			case !printable(*w):
				errs = append(errs, meta.Invalid(path+".deprecationWarning", *w, "must only have printable characters"))
			}
		}
		if !h.schema {
			errs = append(errs, validateSchema(v.Schema, path+".schema", hasStatus(v.Subresources), check)...)
		}
		if !h.subresources {
			errs = append(errs, validateSubresources(v.Subresources, path+".subresources")...)
		}
		if !h.columns {
			errs = append(errs, validateColumns(v.AdditionalPrinterColumns, path+".additionalPrinterColumns")...)
		}
		if !h.selectableFields {
			errs = append(errs, validateSelectableFields(v.SelectableFields, v.Schema, path+".selectableFields")...)
		}
	}
	if !unique {
		errs = append(errs, meta.Invalid("spec.versions", versionsGoSyntax(spec.Versions, h), "must contain unique version names"))
	}
	if storageCount != 1 {
		errs = append(errs, meta.Invalid("spec.versions", versionsGoSyntax(spec.Versions, h), "must have exactly one version marked as storage version"))
	}
	if len(spec.Versions) > 0 {
		// the internal version's spec.version, the first version's name
		if e := meta.IsDNS1035Label(spec.Versions[0].Name); len(e) > 0 {
			errs = append(errs, meta.Invalid("spec.version", spec.Versions[0].Name, strings.Join(e, ",")))
		}
	}

	if spec.Names.Plural == "" {
		errs = append(errs, meta.Required("spec.names.plural", ""))
	}
	if spec.Names.Singular == "" {
		errs = append(errs, meta.Required("spec.names.singular", ""))
	}
	if spec.Names.Kind == "" {
		errs = append(errs, meta.Required("spec.names.kind", ""))
	}
	if spec.Names.ListKind == "" {
		errs = append(errs, meta.Required("spec.names.listKind", ""))
	}
	errs = append(errs, ValidateNames(&spec.Names, "spec.names")...)

	if len(spec.Versions) > 0 {
		if h.schema {
			errs = append(errs, validateSchema(spec.Versions[0].Schema, "spec.validation", anyStatus(spec.Versions), check)...)
		}
		if h.subresources {
			errs = append(errs, validateSubresources(spec.Versions[0].Subresources, "spec.subresources")...)
		}
		if h.columns {
			errs = append(errs, validateColumns(spec.Versions[0].AdditionalPrinterColumns, "spec.additionalPrinterColumns")...)
		}
	}
	errs = append(errs, validateConversion(spec.Conversion)...)
	if spec.PreserveUnknownFields {
		errs = append(errs, meta.Invalid("spec.preserveUnknownFields", true, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
	}
	if len(spec.Versions) > 0 && h.selectableFields {
		errs = append(errs, validateSelectableFields(spec.Versions[0].SelectableFields, spec.Versions[0].Schema, "spec.selectableFields")...)
	}
	return errs
}

func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f {
			return false
		}
	}
	return true
}

// ValidateNames checks names (spec.names or status.acceptedNames) as
// upstream's ValidateCustomResourceDefinitionNames: plural, singular,
// short names and categories DNS-1035 labels, kind and listKind labels
// in any case, kind and listKind different.
func ValidateNames(n *CustomResourceDefinitionNames, path string) meta.FieldErrors {
	var errs meta.FieldErrors
	if e := meta.IsDNS1035Label(n.Plural); n.Plural != "" && len(e) > 0 {
		errs = append(errs, meta.Invalid(path+".plural", n.Plural, strings.Join(e, ",")))
	}
	if e := meta.IsDNS1035Label(n.Singular); n.Singular != "" && len(e) > 0 {
		errs = append(errs, meta.Invalid(path+".singular", n.Singular, strings.Join(e, ",")))
	}
	if e := meta.IsDNS1035Label(strings.ToLower(n.Kind)); n.Kind != "" && len(e) > 0 {
		errs = append(errs, meta.Invalid(path+".kind", n.Kind, "may have mixed case, but should otherwise match: "+strings.Join(e, ",")))
	}
	if e := meta.IsDNS1035Label(strings.ToLower(n.ListKind)); n.ListKind != "" && len(e) > 0 {
		errs = append(errs, meta.Invalid(path+".listKind", n.ListKind, "may have mixed case, but should otherwise match: "+strings.Join(e, ",")))
	}
	for i, s := range n.ShortNames {
		if e := meta.IsDNS1035Label(s); len(e) > 0 {
			errs = append(errs, meta.Invalid(meta.Index(path+".shortNames", i), s, strings.Join(e, ",")))
		}
	}
	if n.Kind != "" && n.Kind == n.ListKind {
		errs = append(errs, meta.Invalid(path+".listKind", n.ListKind, "kind and listKind may not be the same"))
	}
	for i, s := range n.Categories {
		if e := meta.IsDNS1035Label(s); len(e) > 0 {
			errs = append(errs, meta.Invalid(meta.Index(path+".categories", i), s, strings.Join(e, ",")))
		}
	}
	return errs
}

// hasStatus reports whether s turns the status subresource on.
func hasStatus(s *CustomResourceSubresources) bool { return s != nil && s.Status != nil }

// anyStatus reports whether a version turns the status subresource on:
// the shared schema (spec.validation) is then checked as upstream's
// internal version checks it, with the status subresource on.
func anyStatus(vs []CustomResourceDefinitionVersion) bool {
	for i := range vs {
		if hasStatus(vs[i].Subresources) {
			return true
		}
	}
	return false
}

func validateSchema(v *CustomResourceValidation, path string, statusSubresource bool, check SchemaChecker) meta.FieldErrors {
	if v == nil || v.OpenAPIV3Schema == nil || check == nil {
		return nil
	}
	raw, err := json.Marshal(v.OpenAPIV3Schema)
	if err != nil {
		return meta.FieldErrors{meta.Invalid(path+".openAPIV3Schema", "", err.Error())}
	}
	return check(raw, path+".openAPIV3Schema", statusSubresource)
}

// validateSimpleJSONPath checks a path of scale or of a printer column:
// it must start with a dot. Like upstream's validateSimpleJSONPath
// (apiextensions validation.go) it checks nothing else: subscripts and
// filters (`.status.conditions[?(@.type=="Ready")].status`, as
// cert-manager's Certificate uses) and wildcards are accepted.
func validateSimpleJSONPath(s, path string) meta.FieldErrors {
	if !strings.HasPrefix(s, ".") {
		return meta.FieldErrors{meta.Invalid(path, s, "must be a simple json path starting with .")}
	}
	return nil
}

func validateSubresources(s *CustomResourceSubresources, path string) meta.FieldErrors {
	if s == nil || s.Scale == nil {
		return nil
	}
	var errs meta.FieldErrors
	sc := s.Scale
	p := path + ".scale"
	if sc.SpecReplicasPath == "" {
		errs = append(errs, meta.Required(p+".specReplicasPath", ""))
	} else if e := validateSimpleJSONPath(sc.SpecReplicasPath, p+".specReplicasPath"); len(e) > 0 {
		errs = append(errs, e...)
	} else if !strings.HasPrefix(sc.SpecReplicasPath, ".spec.") {
		errs = append(errs, meta.Invalid(p+".specReplicasPath", sc.SpecReplicasPath, "should be a json path under .spec"))
	}
	if sc.StatusReplicasPath == "" {
		errs = append(errs, meta.Required(p+".statusReplicasPath", ""))
	} else if e := validateSimpleJSONPath(sc.StatusReplicasPath, p+".statusReplicasPath"); len(e) > 0 {
		errs = append(errs, e...)
	} else if !strings.HasPrefix(sc.StatusReplicasPath, ".status.") {
		errs = append(errs, meta.Invalid(p+".statusReplicasPath", sc.StatusReplicasPath, "should be a json path under .status"))
	}
	if l := sc.LabelSelectorPath; l != nil && *l != "" {
		if e := validateSimpleJSONPath(*l, p+".labelSelectorPath"); len(e) > 0 {
			errs = append(errs, e...)
		} else if !strings.HasPrefix(*l, ".spec.") && !strings.HasPrefix(*l, ".status.") {
			errs = append(errs, meta.Invalid(p+".labelSelectorPath", *l, "should be a json path under either .spec or .status"))
		}
	}
	return errs
}

func validateColumns(cols []CustomResourceColumnDefinition, path string) meta.FieldErrors {
	var errs meta.FieldErrors
	for i, c := range cols {
		p := meta.Index(path, i)
		if c.Name == "" {
			errs = append(errs, meta.Required(p+".name", ""))
		}
		switch {
		case c.Type == "":
			errs = append(errs, meta.Required(p+".type", "must be one of "+strings.Join(printerColumnTypes, ",")))
		case !contains(printerColumnTypes, c.Type):
			errs = append(errs, meta.Invalid(p+".type", c.Type, "must be one of "+strings.Join(printerColumnTypes, ",")))
		}
		if c.Format != "" && !contains(printerColumnFormats, c.Format) {
			errs = append(errs, meta.Invalid(p+".format", c.Format, "must be one of "+strings.Join(printerColumnFormats, ",")))
		}
		if c.JSONPath == "" {
			errs = append(errs, meta.Required(p+".JSONPath", ""))
		} else {
			errs = append(errs, validateSimpleJSONPath(c.JSONPath, p+".JSONPath")...)
		}
	}
	return errs
}

func validateSelectableFields(fields []SelectableField, schema *CustomResourceValidation, path string) meta.FieldErrors {
	var errs meta.FieldErrors
	seen := map[string]bool{}
	for i, f := range fields {
		p := meta.Index(path, i) + ".jsonPath"
		if f.JSONPath == "" {
			errs = append(errs, meta.Required(p, ""))
			continue
		}
		if msg := checkSelectableField(f.JSONPath, schema); msg != "" {
			errs = append(errs, meta.Invalid(p, f.JSONPath, msg))
			continue
		}
		if seen[f.JSONPath] {
			errs = append(errs, &meta.FieldError{Type: meta.FieldValueDuplicate, Field: p, BadValue: f.JSONPath})
		}
		seen[f.JSONPath] = true
	}
	if len(fields) > 8 {
		errs = append(errs, &meta.FieldError{Type: meta.FieldValueTooMany, Field: path, BadValue: len(fields), Detail: "must have at most 8 items"})
	}
	return errs
}

// checkSelectableField resolves a selectable field's path (".a.b") in the
// schema as upstream does, returning its error text or "".
func checkSelectableField(jsonPath string, schema *CustomResourceValidation) string {
	if !strings.HasPrefix(jsonPath, ".") {
		tok, _, _ := strings.Cut(jsonPath, ".")
		return "is an invalid path: expected [ or . but got: " + tok
	}
	var cur *JSONSchemaProps
	if schema != nil {
		cur = schema.OpenAPIV3Schema
	}
	for _, seg := range strings.Split(jsonPath[1:], ".") {
		if cur == nil {
			return "is an invalid path: does not refer to a valid field"
		}
		next, ok := cur.Properties[seg]
		if !ok {
			return "is an invalid path: does not refer to a valid field"
		}
		cur = &next
	}
	switch cur.Type {
	case "string", "integer", "boolean":
		return ""
	}
	return "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."
}

func validateConversion(c *CustomResourceConversion) meta.FieldErrors {
	if c == nil {
		return nil
	}
	var errs meta.FieldErrors
	switch c.Strategy {
	case NoneConverter, WebhookConverter:
	case "":
		errs = append(errs, meta.Required("spec.conversion.strategy", ""))
		return errs
	default:
		return append(errs, meta.NotSupported("spec.conversion.strategy", string(c.Strategy), []string{string(NoneConverter), string(WebhookConverter)}))
	}
	var cc *WebhookClientConfig
	var reviewVersions []string
	if c.Webhook != nil {
		cc, reviewVersions = c.Webhook.ClientConfig, c.Webhook.ConversionReviewVersions
	}
	if c.Strategy == WebhookConverter {
		if cc == nil {
			errs = append(errs, meta.Required("spec.conversion.webhookClientConfig", "required when strategy is set to Webhook"))
		} else {
			errs = append(errs, validateClientConfig(cc, "spec.conversion.webhookClientConfig")...)
		}
		if len(reviewVersions) == 0 {
			errs = append(errs, meta.Required("spec.conversion.conversionReviewVersions", ""))
		}
		return errs
	}
	if cc != nil {
		errs = append(errs, meta.Forbidden("spec.conversion.webhookClientConfig", "should not be set when strategy is not set to Webhook"))
	}
	if len(reviewVersions) > 0 {
		errs = append(errs, meta.Forbidden("spec.conversion.conversionReviewVersions", "should not be set when strategy is not set to Webhook"))
	}
	return errs
}

func validateClientConfig(cc *WebhookClientConfig, path string) meta.FieldErrors {
	var errs meta.FieldErrors
	switch {
	case cc.URL == nil && cc.Service == nil:
		errs = append(errs, meta.Required(path, "exactly one of url or service is required"))
	case cc.URL != nil && cc.Service != nil:
		errs = append(errs, meta.Required(path, "exactly one of url or service is required"))
	case cc.URL != nil:
		u, err := url.Parse(*cc.URL)
		if err != nil {
			errs = append(errs, meta.Invalid(path+".url", *cc.URL, err.Error()))
		} else if u.Scheme != "https" {
			errs = append(errs, meta.Invalid(path+".url", u.Scheme, "'https' is the only allowed URL scheme; desired format: https://host[/path]"))
		}
	case cc.Service != nil:
		if cc.Service.Name == "" {
			errs = append(errs, meta.Required(path+".service.name", "service name is required"))
		}
		if cc.Service.Namespace == "" {
			errs = append(errs, meta.Required(path+".service.namespace", "service namespace is required"))
		}
	}
	return errs
}

func validateStatus(st *CustomResourceDefinitionStatus, spec *CustomResourceDefinitionSpec) meta.FieldErrors {
	errs := ValidateNames(&st.AcceptedNames, "status.acceptedNames")
	if len(st.StoredVersions) == 0 {
		return append(errs, meta.Invalid("status.storedVersions", meta.GoStringSlice("string", st.StoredVersions), "must have at least one stored version"))
	}
	stored := map[string]int{}
	for i, v := range st.StoredVersions {
		stored[v] = i
	}
	for _, v := range spec.Versions {
		_, ok := stored[v.Name]
		if v.Storage && !ok {
			errs = append(errs, meta.Invalid("status.storedVersions", meta.GoStringSlice("string", st.StoredVersions), "must have the storage version "+v.Name))
		}
		delete(stored, v.Name)
	}
	for i, v := range st.StoredVersions {
		if _, ok := stored[v]; ok {
			// kube-apiserver 1.33.13's text (captured: dropping a former
			// storage version from spec.versions, /tmp/conv-sv.sh in
			// TestStoredVersionMustStayInSpec)
			errs = append(errs, meta.Invalid(meta.Index("status.storedVersions", i), v, fmt.Sprintf("missing from spec.versions; %s was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in %s and removes %s from status.storedVersions", v, v, v)))
		}
	}
	return errs
}

// IsProtectedCommunityGroup reports whether group is k8s.io,
// kubernetes.io or a subdomain of them, whose CRDs need the
// api-approved.kubernetes.io annotation.
func IsProtectedCommunityGroup(group string) bool {
	return group == "k8s.io" || strings.HasSuffix(group, ".k8s.io") || group == "kubernetes.io" || strings.HasSuffix(group, ".kubernetes.io")
}

// APIApprovalState is the state of a CRD's api-approved.kubernetes.io
// annotation.
type APIApprovalState int

// API approval states (upstream apihelpers.APIApprovalState).
const (
	APIApprovalInvalid APIApprovalState = iota
	APIApproved
	APIApprovalBypassed
	APIApprovalMissing
)

// GetAPIApprovalState returns the approval state of annotations and its
// reason text, word for word upstream's.
func GetAPIApprovalState(annotations map[string]string) (APIApprovalState, string) {
	a := annotations[APIApprovedAnnotation]
	switch {
	case a == "":
		return APIApprovalMissing, fmt.Sprintf("protected groups must have approval annotation %q, see https://github.com/kubernetes/enhancements/pull/1111", APIApprovedAnnotation)
	case strings.HasPrefix(a, "unapproved"):
		return APIApprovalBypassed, fmt.Sprintf("not approved: %q", a)
	}
	if _, err := url.ParseRequestURI(a); err != nil {
		return APIApprovalInvalid, fmt.Sprintf("protected groups must have approval annotation %q with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111", APIApprovedAnnotation)
	}
	return APIApproved, fmt.Sprintf("approved in %v", a)
}

func validateAPIApproval(crd, old *CustomResourceDefinition) meta.FieldErrors {
	if !IsProtectedCommunityGroup(crd.Spec.Group) {
		return nil
	}
	state, reason := GetAPIApprovalState(crd.Annotations)
	if old != nil {
		if oldState, _ := GetAPIApprovalState(old.Annotations); oldState == state {
			return nil
		}
	}
	path := "metadata.annotations[" + APIApprovedAnnotation + "]"
	switch state {
	case APIApprovalInvalid:
		return meta.FieldErrors{meta.Invalid(path, crd.Annotations[APIApprovedAnnotation], reason)}
	case APIApprovalMissing:
		return meta.FieldErrors{meta.Required(path, reason)}
	}
	return nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// versionsGoSyntax prints spec.versions as upstream's error does (%#v of
// its internal []apiextensions.CustomResourceDefinitionVersion). Hoisted
// fields print as nil; the others as pointers, whose addresses upstream
// prints and aggsim cannot (0xc000000000).
func versionsGoSyntax(vs []CustomResourceDefinitionVersion, h hoisted) meta.GoSyntax {
	const ptr = "(0xc000000000)"
	var b strings.Builder
	b.WriteString("[]apiextensions.CustomResourceDefinitionVersion{")
	for i, v := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		dw := "(*string)(nil)"
		if v.DeprecationWarning != nil {
			dw = "(*string)" + ptr
		}
		schema := "(*apiextensions.CustomResourceValidation)(nil)"
		if !h.schema && v.Schema != nil {
			schema = "(*apiextensions.CustomResourceValidation)" + ptr
		}
		sub := "(*apiextensions.CustomResourceSubresources)(nil)"
		if !h.subresources && v.Subresources != nil {
			sub = "(*apiextensions.CustomResourceSubresources)" + ptr
		}
		cols := "[]apiextensions.CustomResourceColumnDefinition(nil)"
		if !h.columns && v.AdditionalPrinterColumns != nil {
			cols = fmt.Sprintf("[]apiextensions.CustomResourceColumnDefinition{%d columns}", len(v.AdditionalPrinterColumns))
		}
		sel := "[]apiextensions.SelectableField(nil)"
		if !h.selectableFields && v.SelectableFields != nil {
			sel = fmt.Sprintf("[]apiextensions.SelectableField{%d fields}", len(v.SelectableFields))
		}
		fmt.Fprintf(&b, "apiextensions.CustomResourceDefinitionVersion{Name:%q, Served:%t, Storage:%t, Deprecated:%t, DeprecationWarning:%s, Schema:%s, Subresources:%s, AdditionalPrinterColumns:%s, SelectableFields:%s}",
			v.Name, v.Served, v.Storage, v.Deprecated, dw, schema, sub, cols, sel)
	}
	b.WriteString("}")
	return meta.GoSyntax(b.String())
}
