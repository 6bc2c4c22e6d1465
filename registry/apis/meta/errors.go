package meta

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
)

// The reasons of a failure Status, one constant per reason, with upstream's
// values (metav1.StatusReason, k8s.io/apimachinery/pkg/apis/meta/v1/types.go).
const (
	StatusReasonUnauthorized          = "Unauthorized"
	StatusReasonForbidden             = "Forbidden"
	StatusReasonNotFound              = "NotFound"
	StatusReasonAlreadyExists         = "AlreadyExists"
	StatusReasonConflict              = "Conflict"
	StatusReasonGone                  = "Gone"
	StatusReasonInvalid               = "Invalid"
	StatusReasonTimeout               = "Timeout"
	StatusReasonBadRequest            = "BadRequest"
	StatusReasonMethodNotAllowed      = "MethodNotAllowed"
	StatusReasonNotAcceptable         = "NotAcceptable"
	StatusReasonRequestEntityTooLarge = "RequestEntityTooLarge"
	StatusReasonUnsupportedMediaType  = "UnsupportedMediaType"
	StatusReasonInternalError         = "InternalError"
	StatusReasonExpired               = "Expired"
	StatusReasonServiceUnavailable    = "ServiceUnavailable"
)

// reasonError is the sentinel of one Status reason: a *StatusError with
// that reason matches it under errors.Is (see StatusError.Is).
type reasonError string

// Error returns the reason.
func (r reasonError) Error() string { return string(r) }

// Sentinels to match a *StatusError by reason with errors.Is, as upstream's
// apierrors.IsNotFound and its siblings do: errors.Is(err, meta.ErrNotFound)
// holds for any (wrapped) *StatusError whose reason is NotFound. Code never
// compares reason strings itself.
var (
	// ErrNotFound matches 404 NotFound.
	ErrNotFound error = reasonError(StatusReasonNotFound)
	// ErrAlreadyExists matches 409 AlreadyExists (create of a name that exists).
	ErrAlreadyExists error = reasonError(StatusReasonAlreadyExists)
	// ErrConflict matches 409 Conflict (a stale resourceVersion or failed precondition).
	ErrConflict error = reasonError(StatusReasonConflict)
	// ErrInvalid matches 422 Invalid.
	ErrInvalid error = reasonError(StatusReasonInvalid)
	// ErrExpired matches 410 Expired (a resourceVersion too old to watch or continue from).
	ErrExpired error = reasonError(StatusReasonExpired)
	// ErrForbidden matches 403 Forbidden.
	ErrForbidden error = reasonError(StatusReasonForbidden)
)

// FieldErrorType names the kind of a field validation failure, mirroring
// field.ErrorType (k8s.io/apimachinery/pkg/util/validation/field/errors.go).
type FieldErrorType string

// The field error types upstream reports, with their cause reasons.
const (
	FieldValueNotFound     FieldErrorType = "FieldValueNotFound"
	FieldValueRequired     FieldErrorType = "FieldValueRequired"
	FieldValueDuplicate    FieldErrorType = "FieldValueDuplicate"
	FieldValueInvalid      FieldErrorType = "FieldValueInvalid"
	FieldValueNotSupported FieldErrorType = "FieldValueNotSupported"
	FieldValueForbidden    FieldErrorType = "FieldValueForbidden"
	FieldValueTooLong      FieldErrorType = "FieldValueTooLong"
	FieldValueTooMany      FieldErrorType = "FieldValueTooMany"
	InternalError          FieldErrorType = "InternalError"
	FieldValueTypeInvalid  FieldErrorType = "FieldValueTypeInvalid" // a value of the wrong JSON type, printed "Invalid value"
)

// String returns the phrase upstream prints for the type ("Invalid value",
// "Required value", ...).
func (t FieldErrorType) String() string {
	switch t {
	case FieldValueNotFound:
		return "Not found"
	case FieldValueRequired:
		return "Required value"
	case FieldValueDuplicate:
		return "Duplicate value"
	case FieldValueInvalid, FieldValueTypeInvalid:
		return "Invalid value"
	case FieldValueNotSupported:
		return "Unsupported value"
	case FieldValueForbidden:
		return "Forbidden"
	case FieldValueTooLong:
		return "Too long"
	case FieldValueTooMany:
		return "Too many"
	case InternalError:
		return "Internal error"
	}
	return string(t)
}

// FieldError is one validation failure on one field, formatted like
// field.Error: `<field>: <Type string>[: <value>][: <detail>]`.
type FieldError struct {
	Type     FieldErrorType
	Field    string
	BadValue any
	Detail   string
}

// Error returns the upstream text, e.g.
// `spec.versionPriority: Invalid value: 0: must be positive and less than 1000`.
func (e *FieldError) Error() string { return e.Field + ": " + e.ErrorBody() }

// ErrorBody is the message without the field path, as used in StatusCause.
func (e *FieldError) ErrorBody() string {
	s := e.Type.String()
	switch e.Type {
	case FieldValueRequired, FieldValueForbidden, FieldValueTooLong, InternalError:
		// upstream omits the value for these types
	default:
		s += ": " + formatBadValue(e.BadValue)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func formatBadValue(v any) string {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return `"null"` // a typed nil pointer prints as upstream prints nil
	}
	switch x := v.(type) {
	case nil:
		return `"null"` // upstream turns a nil value into the string "null", quoted
	case string:
		return fmt.Sprintf("%q", x)
	case *string:
		if x == nil {
			return `"null"`
		}
		return fmt.Sprintf("%q", *x)
	case int, int32, int64, uint, uint32, uint64, bool, float64:
		return fmt.Sprint(x)
	case *int32:
		if x == nil {
			return `"null"`
		}
		return fmt.Sprint(*x)
	case []string:
		return fmt.Sprintf("%#v", x) // upstream's fallback: []string{"a", "b"}
	case fmt.Stringer:
		return x.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

// GoSyntax is a bad value that upstream prints with %#v, a Go struct of
// its internal types (`authorization.NonResourceAttributes{Path:"/",
// Verb:"get"}`): the text, built by the caller, is printed as it is.
type GoSyntax string

// String returns the text.
func (g GoSyntax) String() string { return string(g) }

// Index returns the path of the i-th element of the list at path, as
// upstream's field.Path.Index prints it: "spec.rules[2]".
func Index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// GoStringSlice is the %#v form of a string slice of the Go type
// "[]"+typeName, as upstream prints a typed slice bad value:
// `[]admissionregistration.OperationType{"*", "CREATE"}`, and
// `[]string(nil)` for a nil slice.
func GoStringSlice(typeName string, l []string) GoSyntax {
	if l == nil {
		return GoSyntax("[]" + typeName + "(nil)")
	}
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = strconv.Quote(s)
	}
	return GoSyntax("[]" + typeName + "{" + strings.Join(q, ", ") + "}")
}

// FieldErrors is the list a Validate function returns; empty means valid.
type FieldErrors []*FieldError

// Invalid builds a FieldValueInvalid error.
func Invalid(field string, value any, detail string) *FieldError {
	return &FieldError{Type: FieldValueInvalid, Field: field, BadValue: value, Detail: detail}
}

// Required builds a FieldValueRequired error.
func Required(field, detail string) *FieldError {
	return &FieldError{Type: FieldValueRequired, Field: field, Detail: detail}
}

// Forbidden builds a FieldValueForbidden error.
func Forbidden(field, detail string) *FieldError {
	return &FieldError{Type: FieldValueForbidden, Field: field, Detail: detail}
}

// NotSupported builds a FieldValueNotSupported error listing the valid values
// as upstream does: `supported values: "a", "b"`.
func NotSupported(field string, value any, valid []string) *FieldError {
	q := make([]string, len(valid))
	for i, v := range valid {
		q[i] = fmt.Sprintf("%q", v)
	}
	return &FieldError{Type: FieldValueNotSupported, Field: field, BadValue: value, Detail: "supported values: " + strings.Join(q, ", ")}
}

// StatusError is an error that carries the exact Status to answer with.
// Handlers never pick HTTP codes themselves: they return errors and
// ToStatus turns them into one of these.
type StatusError struct {
	Status Status
}

// Error returns the Status message.
func (e *StatusError) Error() string { return e.Status.Message }

// Is reports whether target is the sentinel of e's reason (ErrNotFound,
// ErrConflict, ...), so errors.Is matches a StatusError by reason.
func (e *StatusError) Is(target error) bool {
	r, ok := target.(reasonError)
	return ok && e.Status.Reason == string(r)
}

// NewStatusError builds a Failure Status with the given code, reason and
// message.
func NewStatusError(code int, reason, message string) *StatusError {
	return &StatusError{Status: Status{
		TypeMeta: TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   "Failure", Message: message, Reason: reason, Code: int32(code),
	}}
}

// GroupResource names a resource for error messages: "apiservices.apiregistration.k8s.io",
// or just "services" for the core group.
type GroupResource struct {
	Group    string
	Resource string
}

// String returns "<resource>.<group>", or "<resource>" for the core group.
func (gr GroupResource) String() string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}

// NewNotFound mirrors apierrors.NewNotFound: 404 `<resource>.<group> "<name>" not found`.
func NewNotFound(gr GroupResource, name string) *StatusError {
	e := NewStatusError(http.StatusNotFound, StatusReasonNotFound, fmt.Sprintf("%s %q not found", gr, name))
	e.Status.Details = &StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}
	return e
}

// NewAlreadyExists mirrors apierrors.NewAlreadyExists: 409 `<resource>.<group> "<name>" already exists`.
func NewAlreadyExists(gr GroupResource, name string) *StatusError {
	e := NewStatusError(http.StatusConflict, StatusReasonAlreadyExists, fmt.Sprintf("%s %q already exists", gr, name))
	e.Status.Details = &StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}
	return e
}

// NewConflict mirrors apierrors.NewConflict: 409 `Operation cannot be fulfilled on <resource>.<group> "<name>": <msg>`.
func NewConflict(gr GroupResource, name string, msg string) *StatusError {
	e := NewStatusError(http.StatusConflict, StatusReasonConflict, fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", gr, name, msg))
	e.Status.Details = &StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}
	return e
}

// NewForbidden mirrors apierrors.NewForbidden: 403 Forbidden
// `<resource>.<group> "<name>" is forbidden: <err>`, details naming the
// object (as the NamespaceLifecycle admission plugin refuses deleting an
// immortal namespace).
func NewForbidden(gr GroupResource, name string, err error) *StatusError {
	e := NewStatusError(http.StatusForbidden, StatusReasonForbidden, fmt.Sprintf("%s %q is forbidden: %v", gr, name, err))
	e.Status.Details = &StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}
	return e
}

// NewBadRequest mirrors apierrors.NewBadRequest (400 BadRequest).
func NewBadRequest(msg string) *StatusError {
	return NewStatusError(http.StatusBadRequest, StatusReasonBadRequest, msg)
}

// NewInternalError mirrors apierrors.NewInternalError: 500 `Internal error occurred: <err>`.
func NewInternalError(err error) *StatusError {
	e := NewStatusError(http.StatusInternalServerError, StatusReasonInternalError, "Internal error occurred: "+err.Error())
	e.Status.Details = &StatusDetails{Causes: []StatusCause{{Message: err.Error()}}}
	return e
}

// NewInvalid mirrors apierrors.NewInvalid: 422 Invalid with one cause per
// field error, the distinct texts joined as `[a, b]` in the message (an
// aggregate error lists a repeated text once).
// kind is the Kind ("APIService"), group its API group.
func NewInvalid(group, kind, name string, errs FieldErrors) *StatusError {
	causes := make([]StatusCause, 0, len(errs))
	msgs := make([]string, 0, len(errs))
	seen := map[string]bool{}
	for _, fe := range errs {
		causes = append(causes, StatusCause{Reason: string(fe.Type), Message: fe.ErrorBody(), Field: fe.Field})
		if m := fe.Error(); !seen[m] { // the message lists each text once, the causes every error
			seen[m] = true
			msgs = append(msgs, m)
		}
	}
	qualified := kind
	if group != "" {
		qualified = kind + "." + group
	}
	var msg string
	switch len(msgs) {
	case 0:
		msg = fmt.Sprintf("%s %q is invalid", qualified, name)
	case 1:
		msg = fmt.Sprintf("%s %q is invalid: %s", qualified, name, msgs[0])
	default:
		msg = fmt.Sprintf("%s %q is invalid: [%s]", qualified, name, strings.Join(msgs, ", "))
	}
	e := NewStatusError(http.StatusUnprocessableEntity, StatusReasonInvalid, msg)
	e.Status.Details = &StatusDetails{Name: name, Group: group, Kind: kind, Causes: causes}
	return e
}

// ToStatus turns any error into the Status to answer with. A *StatusError
// (possibly wrapped) is returned as is; anything else becomes a 500
// InternalError. This is the one place errors become HTTP codes.
func ToStatus(err error) *StatusError {
	if err == nil {
		return NewInternalError(errors.New("no error"))
	}
	var se *StatusError
	if errors.As(err, &se) {
		return se
	}
	return NewInternalError(err)
}

// NewNotAcceptable mirrors apierrors.NewNotAcceptableError (406 NotAcceptable)
// naming the accepted media types.
func NewNotAcceptable(accepted string) *StatusError {
	return NewStatusError(http.StatusNotAcceptable, StatusReasonNotAcceptable, "only the following media types are accepted: "+accepted)
}

// NewUnsupportedMediaType mirrors apierrors.NewUnsupportedMediaTypeError
// (415 UnsupportedMediaType) listing the accepted types.
func NewUnsupportedMediaType(accepted string) *StatusError {
	return NewStatusError(http.StatusUnsupportedMediaType, StatusReasonUnsupportedMediaType, "the body of the request was in an unknown format - accepted media types include: "+accepted)
}

// NewRequestEntityTooLarge mirrors apierrors.NewRequestEntityTooLargeError
// (413 RequestEntityTooLarge): `Request entity too large: <message>`, e.g.
// "limit is 3145728" for a body over the size limit.
func NewRequestEntityTooLarge(message string) *StatusError {
	return NewStatusError(http.StatusRequestEntityTooLarge, StatusReasonRequestEntityTooLarge, "Request entity too large: "+message)
}

// NewPathNotFound is the 404 NotFound a server answers for a path it does
// not serve at all, with empty details (go-restful's answer in
// kube-apiserver): `the server could not find the requested resource`.
func NewPathNotFound() *StatusError {
	e := NewStatusError(http.StatusNotFound, StatusReasonNotFound, "the server could not find the requested resource")
	e.Status.Details = &StatusDetails{}
	return e
}

// NewPathMethodNotAllowed is go-restful's 405 MethodNotAllowed for a verb a
// route lacks: `the server does not allow this method on the requested
// resource`, with empty details.
func NewPathMethodNotAllowed() *StatusError {
	e := NewStatusError(http.StatusMethodNotAllowed, StatusReasonMethodNotAllowed, "the server does not allow this method on the requested resource")
	e.Status.Details = &StatusDetails{}
	return e
}
