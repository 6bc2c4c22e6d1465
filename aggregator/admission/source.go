package admission

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Source reads what the dispatcher needs on every write: the webhook
// configurations (any order; the dispatcher sorts them by name, as
// upstream's configuration manager does) and a namespace's labels for
// namespaceSelector. Labels returns found=false for a missing namespace.
type Source interface {
	MutatingWebhookConfigurations(ctx context.Context) ([]*admissionregistration.MutatingWebhookConfiguration, error)
	ValidatingWebhookConfigurations(ctx context.Context) ([]*admissionregistration.ValidatingWebhookConfiguration, error)
	NamespaceLabels(ctx context.Context, name string) (labels map[string]string, found bool, err error)
}

// StoreSource is a Source over the registry's stores. A nil store reads
// as empty.
type StoreSource struct {
	Mutating, Validating, Namespaces *registry.Store
}

// MutatingWebhookConfigurations lists the stored configurations.
func (s StoreSource) MutatingWebhookConfigurations(ctx context.Context) ([]*admissionregistration.MutatingWebhookConfiguration, error) {
	if s.Mutating == nil {
		return nil, nil
	}
	if empty, err := s.Mutating.Empty(ctx); err != nil || empty { // registry/store_empty.go: no read while nothing was written
		return nil, err
	}
	items, _, _, err := s.Mutating.List(ctx, "", registry.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*admissionregistration.MutatingWebhookConfiguration, 0, len(items))
	for _, it := range items {
		c := &admissionregistration.MutatingWebhookConfiguration{}
		if err := convert(it, c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// ValidatingWebhookConfigurations lists the stored configurations.
func (s StoreSource) ValidatingWebhookConfigurations(ctx context.Context) ([]*admissionregistration.ValidatingWebhookConfiguration, error) {
	if s.Validating == nil {
		return nil, nil
	}
	if empty, err := s.Validating.Empty(ctx); err != nil || empty { // registry/store_empty.go: no read while nothing was written
		return nil, err
	}
	items, _, _, err := s.Validating.List(ctx, "", registry.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*admissionregistration.ValidatingWebhookConfiguration, 0, len(items))
	for _, it := range items {
		c := &admissionregistration.ValidatingWebhookConfiguration{}
		if err := convert(it, c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// NamespaceLabels reads the namespace's labels.
func (s StoreSource) NamespaceLabels(ctx context.Context, name string) (map[string]string, bool, error) {
	obj, found, err := s.namespace(ctx, name)
	if !found || err != nil {
		return nil, false, err
	}
	if ns, ok := obj.(*core.Namespace); ok {
		return ns.Labels, true, nil
	}
	return obj.GetObjectMeta().Labels, true, nil
}

// namespace reads the stored Namespace name; found is false when it does
// not exist or the source has no Namespaces store.
func (s StoreSource) namespace(ctx context.Context, name string) (obj meta.Object, found bool, err error) {
	if s.Namespaces == nil {
		return nil, false, nil
	}
	obj, err = s.Namespaces.Get(ctx, "", name)
	if errors.Is(err, meta.ErrNotFound) {
		return nil, false, nil
	}
	return obj, err == nil, err
}

// convert turns a stored object (a typed one or the registry's
// GenericObject) into the wire type out by a JSON round trip.
func convert(obj meta.Object, out any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// PolicyStores are the stores a StoreSource reads ValidatingAdmissionPolicies,
// their bindings and parameter objects from. Find returns the store of
// apiVersion/kind, or nil.
type PolicyStores struct {
	Policies, Bindings *registry.Store
	Find               func(apiVersion, kind string) *registry.Store
	// MutatingPolicies and MutatingBindings hold MutatingAdmissionPolicies
	// and their bindings (nil when admissionregistration.k8s.io/v1alpha1
	// is not served: none).
	MutatingPolicies, MutatingBindings *registry.Store
}

// PolicyStoreSource is a StoreSource that also enforces policies.
type PolicyStoreSource struct {
	StoreSource
	PolicyStores
}

var _ PolicySource = PolicyStoreSource{}

// ValidatingAdmissionPolicies lists the stored policies.
func (s PolicyStoreSource) ValidatingAdmissionPolicies(ctx context.Context) ([]*admissionregistration.ValidatingAdmissionPolicy, error) {
	if s.Policies == nil {
		return nil, nil
	}
	if empty, err := s.Policies.Empty(ctx); err != nil || empty { // registry/store_empty.go: no read while nothing was written
		return nil, err
	}
	items, _, _, err := s.Policies.List(ctx, "", registry.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*admissionregistration.ValidatingAdmissionPolicy, 0, len(items))
	for _, it := range items {
		p := &admissionregistration.ValidatingAdmissionPolicy{}
		if err := convert(it, p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// ValidatingAdmissionPolicyBindings lists the stored bindings.
func (s PolicyStoreSource) ValidatingAdmissionPolicyBindings(ctx context.Context) ([]*admissionregistration.ValidatingAdmissionPolicyBinding, error) {
	if s.Bindings == nil {
		return nil, nil
	}
	if empty, err := s.Bindings.Empty(ctx); err != nil || empty { // registry/store_empty.go: no read while nothing was written
		return nil, err
	}
	items, _, _, err := s.Bindings.List(ctx, "", registry.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*admissionregistration.ValidatingAdmissionPolicyBinding, 0, len(items))
	for _, it := range items {
		b := &admissionregistration.ValidatingAdmissionPolicyBinding{}
		if err := convert(it, b); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// Params reads the parameter objects (see PolicySource).
func (s PolicyStoreSource) Params(ctx context.Context, apiVersion, kind, namespace, name string, selector *meta.LabelSelector) ([]meta.Object, bool, bool, error) {
	if s.Find == nil {
		return nil, false, false, nil
	}
	st := s.Find(apiVersion, kind)
	if st == nil {
		return nil, false, false, nil
	}
	namespaced := st.Info().Namespaced
	if !namespaced {
		namespace = ""
	}
	if name != "" {
		obj, err := st.Get(ctx, namespace, name)
		if errors.Is(err, meta.ErrNotFound) {
			return nil, namespaced, true, nil
		}
		if err != nil {
			return nil, namespaced, true, err
		}
		return []meta.Object{obj}, namespaced, true, nil
	}
	items, _, _, err := st.List(ctx, namespace, registry.ListOptions{})
	if err != nil {
		return nil, namespaced, true, err
	}
	var out []meta.Object
	for _, it := range items {
		if selector == nil || selector.Matches(it.GetObjectMeta().Labels) {
			out = append(out, it)
		}
	}
	return out, namespaced, true, nil
}
