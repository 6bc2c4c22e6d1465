package meta

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Name-format helpers with upstream's exact messages. They mirror
// k8s.io/apimachinery/pkg/util/validation/validation.go and
// k8s.io/apimachinery/pkg/api/validation/path/name.go. Each returns the
// problems as detail strings (empty means valid) so callers can wrap them in
// a FieldError with the field path they validate.

// Length limits of the name formats, in bytes.
const (
	// DNS1123LabelMaxLength is the longest RFC 1123 label (63).
	DNS1123LabelMaxLength = 63
	// DNS1123SubdomainMaxLength is the longest RFC 1123 subdomain (253).
	DNS1123SubdomainMaxLength = 253
	// DNS1035LabelMaxLength is the longest RFC 1035 label (63).
	DNS1035LabelMaxLength = 63
	// ConfigMapKeyMaxLength is the longest ConfigMap/Secret key (253).
	ConfigMapKeyMaxLength = 253
)

const (
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1035LabelFmt     = "[a-z]([-a-z0-9]*[a-z0-9])?"
	configMapKeyFmt     = `[-._a-zA-Z0-9]+`
)

var (
	dns1035LabelRE    = regexp.MustCompile("^" + dns1035LabelFmt + "$")
	configMapKeyRE    = regexp.MustCompile("^" + configMapKeyFmt + "$")
	ianaSvcNameLetter = regexp.MustCompile("[a-z]")
	ianaSvcNameChars  = regexp.MustCompile("^[-a-z0-9]+$")
)

func regexError(msg, fmtRE string, examples ...string) string {
	if len(examples) == 0 {
		return msg + " (regex used for validation is '" + fmtRE + "')"
	}
	msg += " (e.g. "
	for i := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + examples[i] + "', "
	}
	msg += "regex used for validation is '" + fmtRE + "')"
	return msg
}

func maxLenError(n int) string { return fmt.Sprintf("must be no more than %d characters", n) }

// IsDNS1123Label reports why value is not a lowercase RFC 1123 label
// (namespace names, Service names, port names in Endpoints).
// Mirrors validation.IsDNS1123Label.
func IsDNS1123Label(value string) []string {
	var errs []string
	if len(value) > DNS1123LabelMaxLength {
		errs = append(errs, maxLenError(DNS1123LabelMaxLength))
	}
	if !matchDNS1123Label(value) {
		if matchDNS1123Subdomain(value) {
			errs = append(errs, "must not contain dots")
		} else {
			errs = append(errs, regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", dns1123LabelFmt, "my-name", "123-abc"))
		}
	}
	return errs
}

// IsDNS1123Subdomain reports why value is not a lowercase RFC 1123
// subdomain (API group names, most object names). Mirrors
// validation.IsDNS1123Subdomain.
func IsDNS1123Subdomain(value string) []string {
	var errs []string
	if len(value) > DNS1123SubdomainMaxLength {
		errs = append(errs, maxLenError(DNS1123SubdomainMaxLength))
	}
	if !matchDNS1123Subdomain(value) {
		errs = append(errs, regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", dns1123SubdomainFmt, "example.com"))
	}
	return errs
}

// IsDNS1035Label reports why value is not an RFC 1035 label (API versions,
// Service names). Mirrors validation.IsDNS1035Label; the double space in
// "'my-name',  or 'abc-123'" comes from how examples are joined, as upstream.
func IsDNS1035Label(value string) []string {
	var errs []string
	if len(value) > DNS1035LabelMaxLength {
		errs = append(errs, maxLenError(DNS1035LabelMaxLength))
	}
	if !dns1035LabelRE.MatchString(value) {
		errs = append(errs, regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", dns1035LabelFmt, "my-name", "abc-123"))
	}
	return errs
}

// ValidatePathSegmentName reports why name cannot be used as one segment
// of a URL path: "." and "..", or any '/' or '%'. prefix allows a
// generateName prefix. Mirrors path.ValidatePathSegmentName, the only name
// rule APIService applies (so "V1.Bad_Group" passes it).
func ValidatePathSegmentName(name string, prefix bool) []string {
	var errs []string
	if !prefix {
		switch name {
		case ".", "..":
			errs = append(errs, fmt.Sprintf("may not be '%s'", name))
		}
	}
	for _, illegal := range []string{"/", "%"} {
		if strings.Contains(name, illegal) {
			errs = append(errs, fmt.Sprintf("may not contain '%s'", illegal))
		}
	}
	return errs
}

// IsValidPortNum reports why port is not in 1..65535. Mirrors
// validation.IsValidPortNum.
func IsValidPortNum(port int) []string {
	if port >= 1 && port <= 65535 {
		return nil
	}
	return []string{"must be between 1 and 65535, inclusive"}
}

// IsValidPortName reports why name is not an IANA_SVC_NAME (RFC 6335):
// at most 15 characters, [-a-z0-9], at least one letter, no leading,
// trailing or double hyphen. Mirrors validation.IsValidPortName.
func IsValidPortName(port string) []string {
	var errs []string
	if len(port) > 15 {
		errs = append(errs, maxLenError(15))
	}
	if !ianaSvcNameChars.MatchString(port) {
		errs = append(errs, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if !ianaSvcNameLetter.MatchString(port) {
		errs = append(errs, "must contain at least one letter (a-z)")
	}
	if strings.Contains(port, "--") {
		errs = append(errs, "must not contain consecutive hyphens")
	}
	if len(port) > 0 && (port[0] == '-' || port[len(port)-1] == '-') {
		errs = append(errs, "must not begin or end with a hyphen")
	}
	return errs
}

// IsConfigMapKey reports why value cannot be a ConfigMap data or
// binaryData key. Mirrors validation.IsConfigMapKey.
func IsConfigMapKey(value string) []string {
	var errs []string
	if len(value) > ConfigMapKeyMaxLength {
		errs = append(errs, maxLenError(ConfigMapKeyMaxLength))
	}
	if !configMapKeyRE.MatchString(value) {
		errs = append(errs, regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", configMapKeyFmt, "key.name", "KEY_NAME", "key-name"))
	}
	switch {
	case value == ".":
		errs = append(errs, "must not be '.'")
	case value == "..":
		errs = append(errs, "must not be '..'")
	case strings.HasPrefix(value, ".."):
		errs = append(errs, "must not start with '..'")
	}
	return errs
}

// ValidateObjectName applies a name-format function to metadata.name (or
// the generateName prefix) and returns one FieldError per problem, as
// upstream's ValidateObjectMeta does. Required when both are empty.
func ValidateObjectName(meta *ObjectMeta, check func(string, bool) []string) FieldErrors {
	var errs FieldErrors
	if meta.GenerateName != "" {
		for _, msg := range check(meta.GenerateName, true) {
			errs = append(errs, Invalid("metadata.generateName", meta.GenerateName, msg))
		}
	}
	if meta.Name == "" {
		if meta.GenerateName == "" {
			errs = append(errs, Required("metadata.name", "name or generateName is required"))
		}
		return errs
	}
	for _, msg := range check(meta.Name, false) {
		errs = append(errs, Invalid("metadata.name", meta.Name, msg))
	}
	return errs
}

// ValidateNamespaceField checks metadata.namespace for namespaced (must be
// a DNS-1123 label, Required when empty) or cluster-scoped (must be empty)
// resources, as ValidateObjectMeta does.
func ValidateNamespaceField(meta *ObjectMeta, namespaced bool) FieldErrors {
	var errs FieldErrors
	if namespaced {
		if meta.Namespace == "" {
			return FieldErrors{Required("metadata.namespace", "")}
		}
		for _, msg := range IsDNS1123Label(meta.Namespace) {
			errs = append(errs, Invalid("metadata.namespace", meta.Namespace, msg))
		}
		return errs
	}
	if meta.Namespace != "" {
		errs = append(errs, Forbidden("metadata.namespace", "not allowed on this type"))
	}
	return errs
}

// NameIsDNSSubdomain adapts IsDNS1123Subdomain to the name-check signature
// of ValidateObjectName (apimachinery api/validation NameIsDNSSubdomain)
// (a generateName prefix may end in '-', so it is checked with a suffix).
func NameIsDNSSubdomain(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1123Subdomain(name)
}

// NameIsDNSLabel adapts IsDNS1123Label to the name-check signature
// (apimachinery api/validation NameIsDNSLabel).
func NameIsDNSLabel(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1123Label(name)
}

// NameIsDNS1035Label adapts IsDNS1035Label to the name-check signature
// (apimachinery api/validation NameIsDNS1035Label).
func NameIsDNS1035Label(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1035Label(name)
}

func maskTrailingDash(name string) string {
	if len(name) > 1 && strings.HasSuffix(name, "-") {
		return name[:len(name)-1] + "a"
	}
	return name
}

// ValidateObjectMetaUpdate is the one validation of an update's ObjectMeta,
// as ValidateObjectMetaAccessorUpdate: no new finalizers once the object is
// being deleted, name, namespace, uid and creationTimestamp immutable
// ("field is immutable"), then the labels, annotations, ownerReferences and
// finalizers of the new object as ValidateObjectMeta checks them.
func ValidateObjectMetaUpdate(m, old *ObjectMeta) FieldErrors {
	var errs FieldErrors
	if old.DeletionTimestamp != nil {
		var added []string
		for _, f := range m.Finalizers {
			if !slices.Contains(old.Finalizers, f) && !slices.Contains(added, f) {
				added = append(added, f)
			}
		}
		if len(added) > 0 {
			slices.Sort(added)
			errs = append(errs, Forbidden("metadata.finalizers", fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", added)))
		}
	}
	if m.Name != old.Name {
		errs = append(errs, Invalid("metadata.name", m.Name, "field is immutable"))
	}
	if m.Namespace != old.Namespace {
		errs = append(errs, Invalid("metadata.namespace", m.Namespace, "field is immutable"))
	}
	if m.UID != "" && old.UID != "" && m.UID != old.UID {
		errs = append(errs, Invalid("metadata.uid", m.UID, "field is immutable"))
	}
	if !m.CreationTimestamp.IsZero() && !old.CreationTimestamp.IsZero() && !m.CreationTimestamp.Equal(old.CreationTimestamp.Time) {
		errs = append(errs, Invalid("metadata.creationTimestamp", m.CreationTimestamp, "field is immutable"))
	}
	errs = append(errs, ValidateLabels(m.Labels, "metadata.labels")...)
	errs = append(errs, ValidateAnnotations(m.Annotations, "metadata.annotations")...)
	errs = append(errs, ValidateOwnerReferences(m.OwnerReferences, "metadata.ownerReferences")...)
	errs = append(errs, ValidateFinalizers(m.Finalizers, "metadata.finalizers")...)
	return errs
}

const (
	qualifiedNameCharFmt = "[A-Za-z0-9]"
	qualifiedNameFmt     = "(" + qualifiedNameCharFmt + "[-A-Za-z0-9_.]*)?" + qualifiedNameCharFmt
	qualifiedNameErrMsg  = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueFmt        = "(" + qualifiedNameFmt + ")?"
	labelValueErrMsg     = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	// QualifiedNameMaxLength is the longest name part of a qualified name
	// (label keys, annotation keys, finalizers): 63.
	QualifiedNameMaxLength = 63
	// LabelValueMaxLength is the longest label value: 63.
	LabelValueMaxLength = 63
	// TotalAnnotationSizeLimitB is the most bytes all annotation keys and
	// values of one object may hold together: 256 KiB.
	TotalAnnotationSizeLimitB = 256 * 1024
)

// IsQualifiedName reports why value is not a qualified name: an optional
// DNS-1123 subdomain prefix and '/', then a name part of at most 63
// alphanumerics, '-', '_' or '.' that starts and ends alphanumeric. Label
// keys, annotation keys (lower-cased first) and finalizers use it. Mirrors
// validation.IsQualifiedName, messages included.
func IsQualifiedName(value string) []string {
	var errs []string
	parts := strings.Split(value, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		var prefix string
		prefix, name = parts[0], parts[1]
		if len(prefix) == 0 {
			errs = append(errs, "prefix part must be non-empty")
		} else if msgs := IsDNS1123Subdomain(prefix); len(msgs) != 0 {
			for _, m := range msgs {
				errs = append(errs, "prefix part "+m)
			}
		}
	default:
		return append(errs, "a qualified name "+regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc")+
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
	}
	if len(name) == 0 {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > QualifiedNameMaxLength {
		errs = append(errs, "name part "+maxLenError(QualifiedNameMaxLength))
	}
	if !matchQualifiedNamePart(name) {
		errs = append(errs, "name part "+regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// IsValidLabelValue reports why value is not a label value: empty, or at
// most 63 alphanumerics, '-', '_' or '.' starting and ending alphanumeric.
// Mirrors validation.IsValidLabelValue.
func IsValidLabelValue(value string) []string {
	var errs []string
	if len(value) > LabelValueMaxLength {
		errs = append(errs, maxLenError(LabelValueMaxLength))
	}
	if value != "" && !matchQualifiedNamePart(value) { // labelValueFmt
		errs = append(errs, regexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

// ValidateObjectMeta is the one validation of ObjectMeta every resource
// runs, in upstream's order (apimachinery api/validation objectmeta.go
// ValidateObjectMetaAccessor): generateName and name with nameFn,
// namespace (required and a DNS-1123 label when namespaced, forbidden
// otherwise), generation, labels, annotations (keys and the 256 KiB total),
// ownerReferences and finalizers. Labels and annotations are checked in
// key order (upstream ranges over the map, so its order varies).
func ValidateObjectMeta(m *ObjectMeta, namespaced bool, nameFn func(name string, prefix bool) []string) FieldErrors {
	errs := ValidateObjectName(m, nameFn)
	errs = append(errs, ValidateNamespaceField(m, namespaced)...)
	if m.Generation < 0 {
		errs = append(errs, Invalid("metadata.generation", m.Generation, "must be greater than or equal to 0"))
	}
	errs = append(errs, ValidateLabels(m.Labels, "metadata.labels")...)
	errs = append(errs, ValidateAnnotations(m.Annotations, "metadata.annotations")...)
	errs = append(errs, ValidateOwnerReferences(m.OwnerReferences, "metadata.ownerReferences")...)
	errs = append(errs, ValidateFinalizers(m.Finalizers, "metadata.finalizers")...)
	return errs
}

// ValidateLabels checks label keys (qualified names) and values, each
// error on the map's path as upstream reports it (v1validation.ValidateLabels).
func ValidateLabels(labels map[string]string, path string) FieldErrors {
	var errs FieldErrors
	for _, k := range sortedMapKeys(labels) {
		for _, msg := range IsQualifiedName(k) {
			errs = append(errs, Invalid(path, k, msg))
		}
		for _, msg := range IsValidLabelValue(labels[k]) {
			errs = append(errs, Invalid(path, labels[k], msg))
		}
	}
	return errs
}

// ValidateAnnotations checks annotation keys (qualified names, case
// ignored) and that keys and values together stay within
// TotalAnnotationSizeLimitB (ValidateAnnotations).
func ValidateAnnotations(annotations map[string]string, path string) FieldErrors {
	var errs FieldErrors
	size := 0
	for _, k := range sortedMapKeys(annotations) {
		for _, msg := range IsQualifiedName(strings.ToLower(k)) {
			errs = append(errs, Invalid(path, k, msg))
		}
		size += len(k) + len(annotations[k])
	}
	if size > TotalAnnotationSizeLimitB {
		errs = append(errs, &FieldError{Type: FieldValueTooLong, Field: path, Detail: fmt.Sprintf("may not be more than %d bytes", TotalAnnotationSizeLimitB)})
	}
	return errs
}

// ValidateOwnerReferences checks each reference's apiVersion (a version is
// required), kind, name and uid, and that at most one is the controller
// (ValidateOwnerReferences).
func ValidateOwnerReferences(refs []OwnerReference, path string) FieldErrors {
	var errs FieldErrors
	firstController := ""
	for _, r := range refs {
		version := r.APIVersion
		if i := strings.LastIndexByte(version, '/'); i >= 0 {
			version = version[i+1:]
		}
		if version == "" {
			errs = append(errs, Invalid(path+".apiVersion", r.APIVersion, "version must not be empty"))
		}
		if r.Kind == "" {
			errs = append(errs, Invalid(path+".kind", r.Kind, "kind must not be empty"))
		}
		if r.Name == "" {
			errs = append(errs, Invalid(path+".name", r.Name, "name must not be empty"))
		}
		if r.UID == "" {
			errs = append(errs, Invalid(path+".uid", r.UID, "uid must not be empty"))
		}
		if r.Controller != nil && *r.Controller {
			cur := r.Kind + "/" + r.Name
			if firstController != "" {
				errs = append(errs, &FieldError{Type: FieldValueInvalid, Field: path, BadValue: ownerReferencesValue(refs),
					Detail: fmt.Sprintf("Only one reference can have Controller set to true. Found \"true\" in references for %s and %s", firstController, cur)})
			} else {
				firstController = cur
			}
		}
	}
	return errs
}

// The finalizers the garbage collector understands (metav1).
const (
	FinalizerOrphanDependents = "orphan"
	FinalizerDeleteDependents = "foregroundDeletion"
)

// ValidateFinalizers checks that each finalizer is a qualified name and
// that orphan and foregroundDeletion are not both set (ValidateFinalizers).
func ValidateFinalizers(finalizers []string, path string) FieldErrors {
	var errs FieldErrors
	orphan, foreground := false, false
	for _, f := range finalizers {
		for _, msg := range IsQualifiedName(f) {
			errs = append(errs, Invalid(path, f, msg))
		}
		orphan = orphan || f == FinalizerOrphanDependents
		foreground = foreground || f == FinalizerDeleteDependents
	}
	if orphan && foreground {
		errs = append(errs, &FieldError{Type: FieldValueInvalid, Field: path, BadValue: finalizers,
			Detail: fmt.Sprintf("finalizer %s and %s cannot be both set", FinalizerOrphanDependents, FinalizerDeleteDependents)})
	}
	return errs
}

// ownerReferencesValue prints a list of owner references as upstream's
// field errors print it (Go's %#v of []v1.OwnerReference). A set pointer
// prints as its address there, which differs on every request; aggsim
// prints the pointer of its own copy.
type ownerReferencesValue []OwnerReference

// String returns `[]v1.OwnerReference{v1.OwnerReference{APIVersion:"v1", ...}}`.
func (refs ownerReferencesValue) String() string {
	ptr := func(p *bool) string {
		if p == nil {
			return "(*bool)(nil)"
		}
		return fmt.Sprintf("(*bool)(%p)", p)
	}
	var sb strings.Builder
	sb.WriteString("[]v1.OwnerReference{")
	for i, r := range refs {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "v1.OwnerReference{APIVersion:%q, Kind:%q, Name:%q, UID:%q, Controller:%s, BlockOwnerDeletion:%s}",
			r.APIVersion, r.Kind, r.Name, r.UID, ptr(r.Controller), ptr(r.BlockOwnerDeletion))
	}
	sb.WriteString("}")
	return sb.String()
}

func sortedMapKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
