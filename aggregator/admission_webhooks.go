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

func (a serverAdmissionSource) stores() admission.StoreSource {
	return admission.StoreSource{
		Mutating:   a.s.api.Store(meta.GroupResource{Group: registry.GroupAdmissionRegistration, Resource: "mutatingwebhookconfigurations"}),
		Validating: a.s.api.Store(meta.GroupResource{Group: registry.GroupAdmissionRegistration, Resource: "validatingwebhookconfigurations"}),
		Namespaces: a.s.api.Store(meta.GroupResource{Resource: "namespaces"}),
	}
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
		Logger: s.logger,
	})
}

// AdmissionWebhooks returns the server's admission webhook dispatcher:
// its Ring of recent calls and CloseIdleConnections.
func (s *Server) AdmissionWebhooks() *admission.Dispatcher { return s.admission }
