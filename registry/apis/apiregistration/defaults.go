package apiregistration

// GroupAPIRegistration is the aggregator's own API group.
const GroupAPIRegistration = "apiregistration.k8s.io"

// DefaultServicePort is the spec.service.port an APIService gets when it
// names a Service without a port (apiregistration/v1 defaults.go).
const DefaultServicePort int32 = 443

// DefaultAPIService applies upstream's defaulting: a Service without a
// port gets port 443.
func DefaultAPIService(a *APIService) {
	if a.Spec.Service != nil && a.Spec.Service.Port == nil {
		p := DefaultServicePort
		a.Spec.Service.Port = &p
	}
}
