package proxy

// hostResolver is implemented by the resolvers that can answer the
// backend's host:port without building a URL (endpointResolver); the
// proxy handler uses it when available.
type hostResolver interface {
	resolveHost(namespace, name string, port int32) (string, error)
}

// resolveHost returns the host:port a request for svc is sent to, through
// r's host-only path when it has one, else from ResolveEndpoint's URL.
func resolveHost(r ServiceResolver, svc *ServiceRef) (string, error) {
	if hr, ok := r.(hostResolver); ok {
		return hr.resolveHost(svc.Namespace, svc.Name, svc.Port)
	}
	loc, err := r.ResolveEndpoint(svc.Namespace, svc.Name, svc.Port)
	if err != nil {
		return "", err
	}
	return loc.Host, nil
}
