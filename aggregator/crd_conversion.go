package aggregator

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aggsim/aggsim/aggregator/admission"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// ConversionWebhookTimeout is how long kube-apiserver 1.33 waits for a
// CRD conversion webhook (fixed; sent as ?timeout=30s; measured: a
// webhook that never answers fails the request after 30.0 s with
// `Post "<url>?timeout=30s": context deadline exceeded`).
const ConversionWebhookTimeout = 30 * time.Second

// DebugConversionsPath serves the recent conversion webhook calls as
// JSON (ConversionCall, oldest first).
const DebugConversionsPath = "/debug/aggsim/conversions"

// conversionRingSize is how many conversion calls are kept.
const conversionRingSize = 100

// ConversionCall is one CRD conversion webhook call as
// /debug/aggsim/conversions shows it: when, for which CRD, from and to
// which apiVersion, the URL, the ConversionReview sent and the answer
// (JSON, or the raw text as a JSON string), the HTTP status, latency in
// milliseconds and the error returned to the client ("" on success).
type ConversionCall struct {
	Time          time.Time       `json:"time"`
	CRD           string          `json:"crd"`
	From          string          `json:"from"`
	To            string          `json:"to"`
	URL           string          `json:"url,omitempty"`
	Request       json.RawMessage `json:"request,omitempty"`
	Response      json.RawMessage `json:"response,omitempty"`
	StatusCode    int             `json:"statusCode,omitempty"`
	LatencyMillis float64         `json:"latencyMillis"`
	Error         string          `json:"error,omitempty"`
}

// crdConversion makes the converters of Webhook-strategy CRDs: it posts
// ConversionReviews with the admission webhooks' Poster and records the
// calls.
type crdConversion struct {
	poster *admission.Poster
	log    *slog.Logger

	calls *admission.Recent[ConversionCall]

	mu   sync.Mutex
	wait time.Duration // how long a call may take; ConversionWebhookTimeout unless lowered by a test
}

func newCRDConversion(poster *admission.Poster, log *slog.Logger) *crdConversion {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &crdConversion{poster: poster, log: log, calls: admission.NewRecent[ConversionCall](conversionRingSize), wait: ConversionWebhookTimeout}
}

// converter returns the converter of crd: nil (None) unless its strategy
// is Webhook with a clientConfig.
func (c *crdConversion) converter(crd *apiextensions.CustomResourceDefinition) registry.CRConverter {
	if c == nil {
		return nil
	}
	conv := crd.Spec.Conversion
	if conv == nil || conv.Strategy != apiextensions.WebhookConverter || conv.Webhook == nil || conv.Webhook.ClientConfig == nil {
		return nil
	}
	version := ""
	for _, v := range conv.Webhook.ConversionReviewVersions {
		if v == "v1" || v == "v1beta1" {
			version = v
			break
		}
	}
	cc := conv.Webhook.ClientConfig
	acc := admissionregistration.WebhookClientConfig{URL: cc.URL, CABundle: cc.CABundle}
	if s := cc.Service; s != nil {
		acc.Service = &admissionregistration.ServiceReference{Namespace: s.Namespace, Name: s.Name, Path: s.Path, Port: s.Port}
	}
	return &webhookConverter{c: c, crd: crd.Name, kind: crd.Spec.Names.Kind, reviewVersion: version, cc: acc}
}

// setWait changes how long calls may take (tests).
func (c *crdConversion) setWait(d time.Duration) {
	c.mu.Lock()
	c.wait = d
	c.mu.Unlock()
}

func (c *crdConversion) record(call ConversionCall) {
	if len(call.Response) > 0 && !json.Valid(call.Response) {
		b, _ := json.Marshal(string(call.Response))
		call.Response = b
	}
	c.calls.Add(call)
	c.log.Debug("conversion webhook", "crd", call.CRD, "from", call.From, "to", call.To, "url", call.URL,
		"request", string(call.Request), "response", string(call.Response), "status", call.StatusCode,
		"latencyMillis", call.LatencyMillis, "error", call.Error)
}

// Calls returns the recorded calls, oldest first.
func (c *crdConversion) Calls() []ConversionCall { return c.calls.All() }

// ServeHTTP answers /debug/aggsim/conversions.
func (c *crdConversion) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	calls := c.Calls()
	if calls == nil {
		calls = []ConversionCall{}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(calls)
}

// webhookConverter is the registry.CRConverter of one Webhook CRD
// (upstream apiextensions-apiserver/pkg/apiserver/conversion/webhook_converter.go).
type webhookConverter struct {
	c             *crdConversion
	crd, kind     string
	reviewVersion string // "v1" or "v1beta1"; "" when none is known
	cc            admissionregistration.WebhookClientConfig
}

// conversionReview is the ConversionReview sent, in upstream's field
// order (an empty response included, as upstream serialises it).
type conversionReview struct {
	Kind       string                    `json:"kind"`
	APIVersion string                    `json:"apiVersion"`
	Request    conversionReviewRequest   `json:"request"`
	Response   conversionReviewResponseS `json:"response"`
}

type conversionReviewRequest struct {
	UID               string           `json:"uid"`
	DesiredAPIVersion string           `json:"desiredAPIVersion"`
	Objects           []map[string]any `json:"objects"`
}

type conversionReviewResponseS struct {
	UID              string           `json:"uid"`
	ConvertedObjects []map[string]any `json:"convertedObjects"`
	Result           meta.Status      `json:"result"`
}

// Convert sends obj to the webhook (one object per review, as upstream's
// storage codec converts one object at a time) and checks the answer as
// upstream does; an object already in toAPIVersion is returned as it is.
// Errors are 500 Statuses without reason, worded as upstream's.
func (w *webhookConverter) Convert(obj map[string]any, toAPIVersion string) (map[string]any, error) {
	from, _ := obj["apiVersion"].(string)
	if from == toAPIVersion {
		return obj, nil
	}
	prefix := fmt.Sprintf("conversion webhook for %s, Kind=%s", from, w.kind)
	call := ConversionCall{Time: time.Now(), CRD: w.crd, From: from, To: toAPIVersion}
	out, err := w.convert(obj, toAPIVersion, prefix, &call)
	call.LatencyMillis = float64(time.Since(call.Time).Microseconds()) / 1000
	if err != nil {
		call.Error = err.Error()
	}
	w.c.record(call)
	if err != nil {
		return nil, &meta.StatusError{Status: meta.Status{
			TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status:   "Failure", Message: err.Error(), Code: http.StatusInternalServerError,
		}}
	}
	return out, nil
}

func (w *webhookConverter) convert(obj map[string]any, toAPIVersion, prefix string, call *ConversionCall) (map[string]any, error) {
	failed := func(err error) error { return fmt.Errorf("%s failed: %w", prefix, err) }
	if w.reviewVersion == "" {
		return nil, failed(errors.New("webhook does not accept known ConversionReview versions"))
	}
	uid := newConversionUID()
	review := conversionReview{Kind: "ConversionReview", APIVersion: "apiextensions.k8s.io/" + w.reviewVersion,
		Request: conversionReviewRequest{UID: uid, DesiredAPIVersion: toAPIVersion, Objects: []map[string]any{obj}}}
	body, err := json.Marshal(review)
	if err != nil {
		return nil, failed(err)
	}
	call.Request = body
	w.c.mu.Lock()
	wait := w.c.wait
	w.c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := w.c.poster.Post(ctx, w.cc, ConversionWebhookTimeout, body)
	call.URL, call.StatusCode, call.Response = res.URL, res.StatusCode, res.Body
	if err != nil {
		return nil, failed(err)
	}
	ans, err := decodeConversionReview(res.StatusCode, res.ContentType, res.Body, w.reviewVersion, uid)
	if err != nil {
		return nil, failed(err)
	}
	if n := len(ans.ConvertedObjects); n != 1 {
		return nil, fmt.Errorf("%s returned %d objects, expected 1", prefix, n)
	}
	conv, err := decodeConvertedObject(ans.ConvertedObjects[0])
	if err != nil {
		return nil, err // upstream returns this one without a prefix
	}
	if got, _ := conv["apiVersion"].(string); got != toAPIVersion {
		return nil, fmt.Errorf("%s returned invalid object at index 0: invalid groupVersion (expected %s, received %s)", prefix, toAPIVersion, got)
	}
	if got, _ := conv["kind"].(string); got != obj["kind"] {
		return nil, fmt.Errorf("%s returned invalid object at index 0: invalid kind (expected %v, received %s)", prefix, obj["kind"], got)
	}
	inMeta, _ := obj["metadata"].(map[string]any)
	outMeta, _ := conv["metadata"].(map[string]any)
	for _, f := range [][2]string{{"name", "name"}, {"namespace", "namespace"}, {"uid", "UID"}} {
		a, _ := inMeta[f[0]].(string)
		b, _ := outMeta[f[0]].(string)
		if a != b {
			return nil, fmt.Errorf("%s returned invalid object: must have the same %s: %s != %s", prefix, f[1], a, b)
		}
	}
	// Only labels and annotations may change; the rest of metadata is
	// the original's (upstream restoreObjectMeta).
	if err := restoreConvertedMeta(inMeta, outMeta, conv); err != nil {
		return nil, fmt.Errorf("%s returned invalid metadata: %w", prefix, err)
	}
	return conv, nil
}

// aggregateText is apimachinery's utilerrors aggregate text: one error
// as it is, several as "[a, b]".
func aggregateText(errs meta.FieldErrors) string {
	if len(errs) == 1 {
		return errs[0].Error()
	}
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = e.Error()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// newConversionUID returns a random RFC 4122 version 4 UUID.
func newConversionUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// ConversionCalls returns the recent CRD conversion webhook calls, oldest
// first (what /debug/aggsim/conversions serves).
func (s *Server) ConversionCalls() []ConversionCall { return s.crdServing.conversion.Calls() }

// SetConversionWebhookWait changes how long a conversion webhook call may
// take before it fails with `context deadline exceeded` (default and
// upstream's: ConversionWebhookTimeout; the URL keeps ?timeout=30s). For
// tests that exercise a slow webhook without waiting 30 s.
func (s *Server) SetConversionWebhookWait(d time.Duration) { s.crdServing.conversion.setWait(d) }

// serveDebugConversions answers /debug/aggsim/conversions.
func (s *Server) serveDebugConversions(w http.ResponseWriter, r *http.Request) {
	s.crdServing.conversion.ServeHTTP(w, r)
}
