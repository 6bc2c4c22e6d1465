package registry

import (
	"context"
	"encoding/json"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Admission operations, as AdmissionReview's request.operation names them.
const (
	OperationCreate  = "CREATE"
	OperationUpdate  = "UPDATE"
	OperationDelete  = "DELETE"
	OperationConnect = "CONNECT"
)

// AdmissionAttributes describes one write for the admission chain, as
// upstream's admission.Attributes (k8s.io/apiserver/pkg/admission): the
// resource and subresource written, the operation, the object's name and
// namespace (a namespace's own name for a namespace object), the new
// object (nil for DELETE) and the stored one (nil for CREATE), whether
// the request is a dry run, and the request's options object
// (CreateOptions, UpdateOptions or DeleteOptions as JSON).
type AdmissionAttributes struct {
	Info        ResourceInfo
	Subresource string
	Operation   string
	Name        string
	Namespace   string
	Object      meta.Object
	OldObject   meta.Object
	DryRun      bool
	// Kind, when set, is the kind of Object instead of the resource's:
	// a CONNECT sends its options object (ServiceProxyOptions).
	Kind    string
	Options json.RawMessage
	// Decode turns a mutated object's JSON into a new object of the
	// resource's type; a mutating step that replaces Object uses it.
	Decode func([]byte) (meta.Object, error)
	// Equivalents are the other versions the resource is served in, and
	// ConvertTo converts an object to one of them (nil when there are
	// none): webhooks with matchPolicy Equivalent whose rules name only
	// another version are called with the object in that version.
	Equivalents []string
	ConvertTo   func(obj meta.Object, version string) (meta.Object, error)
}

// Admission is the admission chain the Store calls on every write
// (StoreOptions.Admission), in upstream's order: Mutate before the
// strategy prepares the object (it may replace a.Object), Validate after
// the object passed the strategy's validation and just before it is
// stored (or, for a dry run, answered). Either refuses the write with its
// error, returned as it is.
type Admission interface {
	Mutate(ctx context.Context, a *AdmissionAttributes) error
	Validate(ctx context.Context, a *AdmissionAttributes) error
}

// AdmissionOptions are the query options of a write that admission
// reports in the request's options object: dryRun, fieldManager and
// fieldValidation as the client sent them (upstream's CreateOptions and
// UpdateOptions), or the DeleteOptions of a delete.
type AdmissionOptions struct {
	DryRun          []string
	FieldManager    string
	FieldValidation string
	// Delete is the DELETE request's DeleteOptions (nil for other writes).
	Delete *meta.DeleteOptions
}

type admissionOptionsKey struct{}

// WithAdmissionOptions returns a copy of ctx carrying the write's options
// for admission (AdmissionAttributes.Options).
func WithAdmissionOptions(ctx context.Context, o AdmissionOptions) context.Context {
	return context.WithValue(ctx, admissionOptionsKey{}, o)
}

// AddWarnings passes texts to ctx's warning sink (WithWarningSink), as
// upstream's warning.AddWarning: admission webhooks' warnings become the
// response's Warning headers.
func AddWarnings(ctx context.Context, texts ...string) { warn(ctx, texts) }

// plainCreateOptions and plainUpdateOptions are admissionOptions' answer
// for a create or an update without options (TestAdmissionOptionsPlain).
const (
	plainCreateOptions = `{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}`
	plainUpdateOptions = `{"kind":"UpdateOptions","apiVersion":"meta.k8s.io/v1"}`
)

// admissionOptions builds the options object of operation op from ctx:
// {"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1",...} with the
// fields upstream's option types serialise (dryRun, fieldManager, ...).
func admissionOptions(ctx context.Context, op string) json.RawMessage {
	o, _ := ctx.Value(admissionOptionsKey{}).(AdmissionOptions)
	if op == OperationDelete {
		d := meta.DeleteOptions{}
		if o.Delete != nil {
			d = *o.Delete
		}
		d.Kind, d.APIVersion = "DeleteOptions", "meta.k8s.io/v1"
		b, _ := json.Marshal(d)
		return b
	}
	kind := "CreateOptions"
	if op == OperationUpdate {
		kind = "UpdateOptions"
	}
	if len(o.DryRun) == 0 && o.FieldManager == "" && o.FieldValidation == "" {
		// the server's own writes (the bootstrap objects, controllers):
		// the encoding below, without marshalling it every time
		if op == OperationUpdate {
			return append(json.RawMessage(nil), plainUpdateOptions...)
		}
		return append(json.RawMessage(nil), plainCreateOptions...)
	}
	v := struct {
		Kind            string   `json:"kind"`
		APIVersion      string   `json:"apiVersion"`
		DryRun          []string `json:"dryRun,omitempty"`
		FieldManager    string   `json:"fieldManager,omitempty"`
		FieldValidation string   `json:"fieldValidation,omitempty"`
	}{kind, "meta.k8s.io/v1", o.DryRun, o.FieldManager, o.FieldValidation}
	b, _ := json.Marshal(v)
	return b
}

// admissionAttrs returns the attributes of op on obj/old through sub.
func (s *Store) admissionAttrs(ctx context.Context, op, sub string, obj, old meta.Object, name, ns string) *AdmissionAttributes {
	if s.info.Group == "" && s.info.Resource == "namespaces" {
		ns = name
	}
	a := &AdmissionAttributes{
		Info: s.info, Subresource: sub, Operation: op, Name: name, Namespace: ns,
		Object: obj, OldObject: old, DryRun: isDryRun(ctx), Options: admissionOptions(ctx, op),
		Decode: func(b []byte) (meta.Object, error) {
			if d, ok := s.strategy.(MutatedDecoder); ok {
				return d.DecodeMutated(b)
			}
			o := s.strategy.New()
			if err := json.Unmarshal(b, o); err != nil {
				return nil, err // upstream's text: the JSON decoder's, as it is
			}
			return o, nil
		},
	}
	if vc, ok := s.strategy.(VersionConverter); ok {
		if a.Equivalents = vc.EquivalentVersions(); len(a.Equivalents) > 0 {
			a.ConvertTo = vc.ConvertToVersion
		}
	}
	return a
}

// admitMutate runs the chain's mutating step and returns the (possibly
// replaced) object.
func (s *Store) admitMutate(ctx context.Context, op, sub string, obj, old meta.Object, name, ns string) (meta.Object, error) {
	if s.admission == nil {
		return obj, nil
	}
	a := s.admissionAttrs(ctx, op, sub, obj, old, name, ns)
	if err := s.admission.Mutate(ctx, a); err != nil {
		return nil, err
	}
	if a.Object == nil {
		return obj, nil
	}
	return a.Object, nil
}

// admitValidate runs the chain's validating step.
func (s *Store) admitValidate(ctx context.Context, op, sub string, obj, old meta.Object, name, ns string) error {
	if s.admission == nil {
		return nil
	}
	return s.admission.Validate(ctx, s.admissionAttrs(ctx, op, sub, obj, old, name, ns))
}

// ConnectOptions is the options object of a CONNECT as admission sees it
// (upstream's ServiceProxyOptions of services/proxy: kind, apiVersion v1
// and the proxied path). It has no metadata.
type ConnectOptions struct {
	meta.TypeMeta `json:",inline"`
	Path          string          `json:"path,omitempty"`
	meta          meta.ObjectMeta `json:"-"`
}

// GetTypeMeta returns the options' kind and apiVersion.
func (c *ConnectOptions) GetTypeMeta() *meta.TypeMeta { return &c.TypeMeta }

// GetObjectMeta returns empty metadata (options carry none).
func (c *ConnectOptions) GetObjectMeta() *meta.ObjectMeta { return &c.meta }

// AdmitConnect runs the admission chain for a CONNECT to subresource sub
// of namespace/name (services/<name>/proxy), as upstream's connect handler
// does before it connects: the object is opts, there is no old object and
// the options are null. An error refuses the request as it is.
func (s *Store) AdmitConnect(ctx context.Context, namespace, name, sub string, opts *ConnectOptions) error {
	if s.admission == nil {
		return nil
	}
	a := &AdmissionAttributes{Info: s.info, Subresource: sub, Operation: OperationConnect, Name: name, Namespace: namespace,
		Object: opts, Kind: opts.Kind, Options: json.RawMessage("null")}
	if err := s.admission.Mutate(ctx, a); err != nil {
		return err
	}
	return s.admission.Validate(ctx, a)
}
