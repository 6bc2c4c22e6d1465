package admission

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// BenchmarkWebhookCallOverhead measures what aggsim adds to one
// validating webhook call over the webhook's own round trip: "direct"
// POSTs a prepared AdmissionReview to the webhook with a client like the
// dispatcher's (same TLS, HTTP/2, keep-alive); "dispatcher" runs
// Dispatcher.Validate for a CREATE the webhook matches (listing the
// configuration, matching, building and encoding the review, the call,
// decoding and verifying the answer, recording it in the ring). The
// reported added-ns/call is the difference of the two means, measured in
// the same run.
func BenchmarkWebhookCallOverhead(b *testing.B) {
	srv := newWebhookServer(&testing.T{}, func(string, map[string]any) map[string]any { return map[string]any{"allowed": true} })
	defer srv.Close()
	cc := srv.clientConfig("/v")
	src := &fakeSource{validating: []*admissionregistration.ValidatingWebhookConfiguration{{ObjectMeta: meta.ObjectMeta{Name: "v"},
		Webhooks: []admissionregistration.ValidatingWebhook{{Name: "v.example.com", ClientConfig: cc,
			Rules:       []admissionregistration.RuleWithOperations{rule([]string{"CREATE"}, "configmaps")},
			SideEffects: ptr("None"), AdmissionReviewVersions: []string{"v1"}}}}}}
	d := New(Options{Source: src})
	obj := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "x", Namespace: "default", Labels: map[string]string{"a": "b"}}, Data: map[string]string{"k": "v"}}
	a := createAttrs(obj)
	review, err := buildReview(context.Background(), reviewV1, a)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := json.Marshal(review)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	client, err := d.clients.get(cc.CABundle, "127.0.0.1", false)
	if err != nil {
		b.Fatal(err)
	}
	direct := func() {
		resp, err := client.Post(*cc.URL+"?timeout=10s", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatal(resp.Status)
		}
	}
	via := func() {
		if err := d.Validate(context.Background(), a); err != nil {
			b.Fatal(err)
		}
	}
	// warm both paths (TLS handshake, client cache)
	direct()
	via()
	var directNs, viaNs float64
	b.Run("direct", func(b *testing.B) {
		start := time.Now()
		for b.Loop() {
			direct()
		}
		directNs = float64(time.Since(start).Nanoseconds()) / float64(b.N)
	})
	b.Run("dispatcher", func(b *testing.B) {
		start := time.Now()
		for b.Loop() {
			via()
		}
		viaNs = float64(time.Since(start).Nanoseconds()) / float64(b.N)
		b.ReportMetric(viaNs-directNs, "added-ns/call")
	})
}

// BenchmarkMatchConditionsNoCall times Validate for a CREATE that four
// validating webhooks match by rule but none by its match condition
// (nothing is called): the cost of building the conditions' variables
// and evaluating them.
func BenchmarkMatchConditionsNoCall(b *testing.B) {
	src := &fakeSource{}
	for _, n := range []string{"a", "b", "c", "d"} {
		src.validating = append(src.validating, &admissionregistration.ValidatingWebhookConfiguration{ObjectMeta: meta.ObjectMeta{Name: n},
			Webhooks: []admissionregistration.ValidatingWebhook{{Name: n + ".example.com",
				ClientConfig: admissionregistration.WebhookClientConfig{URL: ptr("https://127.0.0.1:1/" + n)},
				Rules:        []admissionregistration.RuleWithOperations{rule([]string{"CREATE"}, "configmaps")},
				SideEffects:  ptr("None"), AdmissionReviewVersions: []string{"v1"},
				MatchConditions: []admissionregistration.MatchCondition{{Name: "other", Expression: `object.metadata.name == "other"`}}}}})
	}
	d := New(Options{Source: src})
	obj := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "x", Namespace: "default", Labels: map[string]string{"a": "b"}}, Data: map[string]string{"k": "v"}}
	a := createAttrs(obj)
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Validate(context.Background(), a); err != nil {
			b.Fatal(err)
		}
	}
}
