package rest

import (
	"crypto/tls"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// serviceProxyTransport is the transport of services/proxy: https
// endpoints are not verified, as kube-apiserver's proxy transport
// (InsecureSkipVerify) does not verify pods' certificates.
var serviceProxyTransport http.RoundTripper = &http.Transport{
	Proxy:               nil,
	TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // upstream's proxy transport does not verify endpoints either
	MaxIdleConnsPerHost: 8,
	ForceAttemptHTTP2:   false,
}

// serviceProxyPath splits a core/v1 tail of the form
// namespaces/<ns>/services/<id>/proxy[/<path>] into namespace, id
// ("[scheme:]name[:port]") and the path to send on ("/" + path, "" for
// no path at all); ok is false for any other tail.
func serviceProxyPath(tail string) (ns, id, path string, ok bool) {
	segs := strings.SplitN(tail, "/", 6)
	if len(segs) < 5 || segs[0] != "namespaces" || segs[2] != "services" || segs[4] != "proxy" || segs[1] == "" || segs[3] == "" {
		return "", "", "", false
	}
	if len(segs) == 6 {
		path = "/" + segs[5]
	}
	return segs[1], segs[3], path, true
}

// splitSchemeNamePort mirrors utilnet.SplitSchemeNamePort: "name",
// "name:port" or "scheme:name:port" with scheme "", http or https.
func splitSchemeNamePort(id string) (scheme, name, port string, ok bool) {
	parts := strings.Split(id, ":")
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		name, port = parts[0], parts[1]
	case 3:
		scheme, name, port = parts[0], parts[1], parts[2]
	default:
		return "", "", "", false
	}
	if name == "" || (scheme != "" && scheme != "http" && scheme != "https") {
		return "", "", "", false
	}
	return scheme, name, port, true
}

// serviceLocation mirrors the service REST's ResourceLocation
// (pkg/registry/core/service/storage/storage.go): a port number becomes
// the Service port's name; an endpoint subset with a ready address and a
// port of that name is picked at random. Errors are upstream's: 400
// `invalid service request "<id>"`, 404 `services "<name>" not found`
// (for the Service or its Endpoints), 503 `no service port <n> found for
// service "<name>"`, 503 `no endpoints available for service "<name>"`
// (no subsets) or `... "<id>"` (no usable address with the port). Upstream
// uses only addresses whose targetRef is an existing Pod; aggsim has no
// Pods, and uses only loopback addresses (which upstream refuses in
// Endpoints, and which aggsim accepts because its backends run on this
// machine), so any other address is skipped as upstream skips it.
func (a *API) serviceLocation(r *http.Request, ns, id string) (*url.URL, error) {
	scheme, name, port, ok := splitSchemeNamePort(id)
	if !ok {
		return nil, meta.NewBadRequest(fmt.Sprintf("invalid service request %q", id))
	}
	services := a.Store(meta.GroupResource{Resource: "services"})
	endpoints := a.Store(meta.GroupResource{Resource: "endpoints"})
	if services == nil || endpoints == nil {
		return nil, meta.NewPathNotFound()
	}
	obj, err := services.Get(r.Context(), ns, name)
	if err != nil {
		return nil, err
	}
	if n, err := strconv.ParseInt(port, 10, 64); err == nil {
		svc, _ := obj.(*core.Service)
		found := false
		for _, p := range svc.Spec.Ports {
			if int64(p.Port) == n {
				port, found = p.Name, true
				break
			}
		}
		if !found {
			return nil, meta.NewStatusError(http.StatusServiceUnavailable, meta.StatusReasonServiceUnavailable,
				fmt.Sprintf("no service port %d found for service %q", n, name))
		}
	}
	eobj, err := endpoints.Get(r.Context(), ns, name)
	if err != nil {
		return nil, meta.NewNotFound(services.Info().GroupResource(), name)
	}
	eps, _ := eobj.(*core.Endpoints)
	if len(eps.Subsets) == 0 {
		return nil, meta.NewStatusError(http.StatusServiceUnavailable, meta.StatusReasonServiceUnavailable,
			fmt.Sprintf("no endpoints available for service %q", name))
	}
	seed := rand.IntN(len(eps.Subsets))
	for i := range eps.Subsets {
		ss := &eps.Subsets[(seed+i)%len(eps.Subsets)]
		if len(ss.Addresses) == 0 {
			continue
		}
		for _, p := range ss.Ports {
			if p.Name != port {
				continue
			}
			start := rand.IntN(len(ss.Addresses))
			for try := range ss.Addresses {
				addr := ss.Addresses[(start+try)%len(ss.Addresses)]
				if ip := net.ParseIP(addr.IP); ip == nil || !ip.IsLoopback() {
					continue
				}
				if scheme == "" {
					scheme = "http"
				}
				return &url.URL{Scheme: scheme, Host: net.JoinHostPort(addr.IP, strconv.Itoa(int(p.Port)))}, nil
			}
		}
	}
	return nil, meta.NewStatusError(http.StatusServiceUnavailable, meta.StatusReasonServiceUnavailable,
		fmt.Sprintf("no endpoints available for service %q", id))
}

// serveServiceProxy serves services/<id>/proxy[/<path>] (every method, as
// upstream's connect handler): the request, path and query, goes to an
// endpoint of the Service; GET or HEAD of .../proxy without a slash is
// redirected (301) to .../proxy/ as upstream's UpgradeAwareHandler does. A backend that cannot be reached is answered
// as upstream's responder answers a plain error: 500, reason Unknown, the
// transport's error text.
func (a *API) serveServiceProxy(w http.ResponseWriter, r *http.Request, ns, id, path string) {
	// Admission (CONNECT with ServiceProxyOptions) comes first, as in
	// upstream's connect handler.
	if st := a.Store(meta.GroupResource{Resource: "services"}); st != nil {
		opts := &registry.ConnectOptions{TypeMeta: meta.TypeMeta{Kind: "ServiceProxyOptions", APIVersion: "v1"}, Path: path}
		if err := st.AdmitConnect(r.Context(), ns, id, "proxy", opts); err != nil {
			negotiation.WriteStatus(w, r, err)
			return
		}
	}
	loc, err := a.serviceLocation(r, ns, id)
	if err != nil {
		negotiation.WriteStatus(w, r, err)
		return
	}
	if path == "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		// Upstream's proxyRedirectsforRootPath: the root of the proxied
		// server is addressed with a trailing slash.
		q := ""
		if r.URL.RawQuery != "" {
			q = "?" + r.URL.RawQuery
		}
		w.Header().Set("Location", r.URL.Path+"/"+q)
		w.WriteHeader(http.StatusMovedPermanently)
		return
	}
	if path == "" {
		path = "/"
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = loc.Scheme, loc.Host
			pr.Out.URL.Path, pr.Out.URL.RawPath = path, ""
			pr.Out.Host = loc.Host
			pr.Out.Header.Del("Authorization")
		},
		Transport: serviceProxyTransport,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			st := meta.NewStatusError(http.StatusInternalServerError, "", unwrapURLError(err).Error())
			negotiation.WriteStatus(w, r, st)
		},
	}
	rp.ServeHTTP(w, r)
}

// unwrapURLError returns the error inside a *url.Error (the transport's
// own text, "dial tcp ...: connect: connection refused"), as upstream's
// proxy reports it.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
