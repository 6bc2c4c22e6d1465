package demo

import (
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/certs"
)

// TestBackendServesConversion: the demo backend answers ConversionReviews
// at ConversionPath without a client certificate (webhooks are called
// without one), in the review's version, with ConvertPizza's objects.
func TestBackendServesConversion(t *testing.T) {
	b := newWebhookTestBackend(t)
	body := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u-1","desiredAPIVersion":"restaurant.example.com/v1alpha1","objects":[{"apiVersion":"restaurant.example.com/v1beta1","kind":"Pizza","metadata":{"name":"m"},"spec":{"toppings":[{"name":"basil","quantity":2}]}}]}}`
	w := httptest.NewRecorder()
	b.ServeHTTP(w, httptest.NewRequest(http.MethodPost, ConversionPath+"?timeout=30s", strings.NewReader(body)))
	want := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"convertedObjects":[{"apiVersion":"restaurant.example.com/v1alpha1","kind":"Pizza","metadata":{"name":"m"},"spec":{"toppings":["basil","basil"]}}],"result":{"status":"Success"},"uid":"u-1"}}`
	if w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != want {
		t.Errorf("got %d %s\nwant %s", w.Code, w.Body, want)
	}
}

// newWebhookTestBackend returns a Backend (not started) for calling its
// webhooks through ServeHTTP: a serving certificate for api.wardle.svc and
// no front-proxy CA, as webhooks are called without client certificates.
func newWebhookTestBackend(t *testing.T) *Backend {
	t.Helper()
	bc, err := certs.IssueBackend(certs.BackendOptions{Service: "api", Namespace: "wardle"})
	if err != nil {
		t.Fatal(err)
	}
	serving, err := bc.Serving.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBackend(Options{GetCertificate: StaticCertificate(serving), RequestHeaderClientCA: func() *x509.CertPool { return x509.NewCertPool() }})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
