package aggregator

import (
	"context"
	"net/url"

	"github.com/aggsim/aggsim/aggregator/admission"
	"github.com/aggsim/aggsim/proxy"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// serverAdmissionSource is the dispatcher's Source over the server's
// stores, looked up on each call (the API is built after the
// dispatcher it is given).
type serverAdmissionSource struct{ s *Server }

func (a serverAdmissionSource) stores() admission.PolicyStoreSource {
	adm := func(r string) *registry.Store {
		return a.s.api.Store(meta.GroupResource{Group: registry.GroupAdmissionRegistration, Resource: r})
	}
	return admission.PolicyStoreSource{
		StoreSource: admission.StoreSource{
			Mutating:   adm("mutatingwebhookconfigurations"),
			Validating: adm("validatingwebhookconfigurations"),
			Namespaces: a.s.api.Store(meta.GroupResource{Resource: "namespaces"}),
		},
		PolicyStores: admission.PolicyStores{
			Policies: adm("validatingadmissionpolicies"),
			Bindings: adm("validatingadmissionpolicybindings"),
			Find:     a.findStore,
			// nil unless admissionregistration.k8s.io/v1alpha1 is served
			MutatingPolicies: adm("mutatingadmissionpolicies"),
			MutatingBindings: adm("mutatingadmissionpolicybindings"),
		},
	}
}

// findStore returns the store serving apiVersion/kind, or nil.
func (a serverAdmissionSource) findStore(apiVersion, kind string) *registry.Store {
	for _, gv := range a.s.api.GroupVersions() {
		if gv.GroupVersion() != apiVersion {
			continue
		}
		for _, r := range gv.Resources {
			if r.Kind == kind {
				return a.s.api.Store(meta.GroupResource{Group: gv.Group, Resource: r.Resource})
			}
		}
	}
	return nil
}

func (a serverAdmissionSource) ValidatingAdmissionPolicies(ctx context.Context) ([]*admissionregistration.ValidatingAdmissionPolicy, error) {
	return a.stores().ValidatingAdmissionPolicies(ctx)
}

func (a serverAdmissionSource) ValidatingAdmissionPolicyBindings(ctx context.Context) ([]*admissionregistration.ValidatingAdmissionPolicyBinding, error) {
	return a.stores().ValidatingAdmissionPolicyBindings(ctx)
}

func (a serverAdmissionSource) Params(ctx context.Context, apiVersion, kind, namespace, name string, selector *meta.LabelSelector) ([]meta.Object, bool, bool, error) {
	return a.stores().Params(ctx, apiVersion, kind, namespace, name, selector)
}

func (a serverAdmissionSource) MutatingWebhookConfigurations(ctx context.Context) ([]*admissionregistration.MutatingWebhookConfiguration, error) {
	return a.stores().MutatingWebhookConfigurations(ctx)
}

func (a serverAdmissionSource) ValidatingWebhookConfigurations(ctx context.Context) ([]*admissionregistration.ValidatingWebhookConfiguration, error) {
	return a.stores().ValidatingWebhookConfigurations(ctx)
}

func (a serverAdmissionSource) NamespaceLabels(ctx context.Context, name string) (map[string]string, bool, error) {
	return a.stores().NamespaceLabels(ctx, name)
}

// newAdmissionDispatcher returns the admission webhook dispatcher of s:
// webhooks' services resolve as APIServices' do (s.resolver, set later
// in New, read at call time).
func newAdmissionDispatcher(s *Server) *admission.Dispatcher {
	return admission.New(admission.Options{
		Source: serverAdmissionSource{s},
		Resolver: proxy.ResolverFunc(func(namespace, name string, port int32) (*url.URL, error) {
			return s.resolver.ResolveEndpoint(namespace, name, port)
		}),
		Logger:                  s.logger,
		MutatingAdmissionPolicy: mutatingAdmissionPolicyEnabled(s.opts), // features_server.go
	})
}

// AdmissionWebhooks returns the server's admission webhook dispatcher:
// its Ring of recent calls and CloseIdleConnections.
func (s *Server) AdmissionWebhooks() *admission.Dispatcher { return s.admission }
