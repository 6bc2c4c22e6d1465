package proxy_test

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/proxy"
	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// ExampleHandler wires one Handler per remote APIService with a shared
// transport cache and an endpoint resolver, as the aggregator does. Here
// the APIService is not Available yet, so the request is refused the way
// upstream refuses it.
func ExampleHandler() {
	var proxyCert tls.Certificate // the front-proxy client certificate
	transports := proxy.NewTransports(proxy.TransportOptions{
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &proxyCert, nil },
	})
	h := proxy.NewHandler(proxy.Options{
		Resolver:   proxy.NewEndpointServiceResolver(nil), // the aggregator passes its Service/Endpoints lister
		Transports: transports,
	})
	h.Update(proxy.Target{
		APIServiceName: "v1alpha1.wardle.example.com", Group: "wardle.example.com", Version: "v1alpha1",
		Service:   &proxy.ServiceRef{Namespace: "wardle", Name: "api", Port: 443},
		Available: false,
	})

	r := httptest.NewRequest(http.MethodGet, "/apis/wardle.example.com/v1alpha1/flunders", nil)
	r = r.WithContext(request.WithUser(r.Context(), &authentication.UserInfo{Username: "jane"}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	fmt.Printf("%d %q\n", w.Code, w.Body.String())
	// Output: 503 "service unavailable\n"
}
