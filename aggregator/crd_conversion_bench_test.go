package aggregator

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aggsim/aggsim/aggregator/admission"
	"github.com/aggsim/aggsim/registry/apis/apiextensions"
)

// BenchmarkConversionWebhookCall measures the latency a conversion adds
// over the webhook's own round trip: "direct" POSTs a ConversionReview
// to a loopback HTTPS webhook with a plain HTTP/2 client, "converter"
// converts one object through webhookConverter (review built, posted with
// the admission Poster, answer checked, metadata restored).
func BenchmarkConversionWebhookCall(b *testing.B) {
	hook := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rev struct {
			APIVersion string `json:"apiVersion"`
			Request    struct {
				UID               string           `json:"uid"`
				DesiredAPIVersion string           `json:"desiredAPIVersion"`
				Objects           []map[string]any `json:"objects"`
			} `json:"request"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &rev)
		for _, o := range rev.Request.Objects {
			o["apiVersion"] = rev.Request.DesiredAPIVersion
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": rev.APIVersion, "kind": "ConversionReview",
			"response": map[string]any{"uid": rev.Request.UID, "result": map[string]any{"status": "Success"}, "convertedObjects": rev.Request.Objects}})
	}))
	hook.EnableHTTP2 = true
	hook.StartTLS()
	defer hook.Close()
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})
	url := hook.URL + "/convert"
	crd := &apiextensions.CustomResourceDefinition{}
	crd.Name = "widgets.conv.example.com"
	crd.Spec.Names.Kind = "Widget"
	crd.Spec.Conversion = &apiextensions.CustomResourceConversion{Strategy: apiextensions.WebhookConverter, Webhook: &apiextensions.WebhookConversion{
		ConversionReviewVersions: []string{"v1"}, ClientConfig: &apiextensions.WebhookClientConfig{URL: &url, CABundle: caPEM}}}
	conv := newCRDConversion(admission.New(admission.Options{}).Poster(), nil).converter(crd)
	obj := func() map[string]any {
		return map[string]any{"apiVersion": "conv.example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w", "namespace": "default", "uid": "u", "labels": map[string]any{"a": "b"}},
			"spec":     map[string]any{"toppings": []any{"ham", "cheese"}}}
	}
	b.Run("direct", func(b *testing.B) {
		client := hook.Client()
		body, _ := json.Marshal(conversionReview{Kind: "ConversionReview", APIVersion: "apiextensions.k8s.io/v1",
			Request: conversionReviewRequest{UID: "x", DesiredAPIVersion: "conv.example.com/v2", Objects: []map[string]any{obj()}}})
		for b.Loop() {
			res, err := client.Post(url+"?timeout=30s", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	})
	b.Run("converter", func(b *testing.B) {
		for b.Loop() {
			if _, err := conv.Convert(obj(), "conv.example.com/v2"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
