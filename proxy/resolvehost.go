package proxy

import (
	"net"
	"strconv"
	"sync"
	"sync/atomic"
)

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

// hostPorts memoises hostPort for the few endpoint addresses the proxy
// dials, so that a proxied request does not format and join the same
// address on every call; at most maxHostPorts entries are kept (addresses
// come from Endpoints objects, which any client with the right may write).
var (
	hostPorts     sync.Map // hostPortKey → string
	hostPortCount atomic.Int32
)

const maxHostPorts = 1024

type hostPortKey struct {
	host string
	port int32
}

// hostPort returns net.JoinHostPort(host, port), bracketing IPv6 literals.
func hostPort(host string, port int32) string {
	k := hostPortKey{host, port}
	if v, ok := hostPorts.Load(k); ok {
		return v.(string)
	}
	hp := net.JoinHostPort(host, strconv.Itoa(int(port)))
	if hostPortCount.Load() < maxHostPorts {
		if _, loaded := hostPorts.LoadOrStore(k, hp); !loaded {
			hostPortCount.Add(1)
		}
	}
	return hp
}
