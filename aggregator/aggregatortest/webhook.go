package aggregatortest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// AdmissionRequest is what an admission webhook registered with
// RegisterAdmissionWebhook is asked: the fields of AdmissionReview's
// request that tests look at, with the objects as raw JSON ("null" when
// absent). Raw is the whole AdmissionReview as received.
type AdmissionRequest struct {
	UID         string          `json:"uid"`
	Operation   string          `json:"operation"`
	Name        string          `json:"name"`
	Namespace   string          `json:"namespace"`
	SubResource string          `json:"subResource"`
	DryRun      bool            `json:"dryRun"`
	Object      json.RawMessage `json:"object"`
	OldObject   json.RawMessage `json:"oldObject"`
	Resource    struct {
		Group    string `json:"group"`
		Version  string `json:"version"`
		Resource string `json:"resource"`
	} `json:"resource"`
	UserInfo struct {
		Username string   `json:"username"`
		Groups   []string `json:"groups"`
	} `json:"userInfo"`
	Raw []byte `json:"-"`
}

// AdmissionResponse is a webhook's answer: Allowed, or a refusal with
// Message (and Code, 403 when zero); Patch is a JSONPatch for a mutating
// webhook; Warnings become the client's Warning headers.
type AdmissionResponse struct {
	Allowed  bool
	Message  string
	Code     int32
	Patch    []byte
	Warnings []string
}

// AdmissionHandler answers one AdmissionRequest.
type AdmissionHandler func(*AdmissionRequest) AdmissionResponse

// WebhookOptions describes an admission webhook to register: a
// ValidatingWebhookConfiguration (or, with Mutating, a
// MutatingWebhookConfiguration) named Name with one webhook named Name,
// served by Handler over HTTPS on 127.0.0.1 and reached through a Service
// (like RegisterBackend's: <Service>.<Namespace>.svc, port 443, Endpoints
// at the real address, caBundle the webhook's CA) or, with ByURL, at
// https://127.0.0.1:<port>/.
type WebhookOptions struct {
	// Name names the configuration and its webhook; it must have at least
	// three dot-separated parts ("deny.example.com"). Required.
	Name string
	// Handler answers the calls; nil allows everything.
	Handler AdmissionHandler
	// Mutating registers a MutatingWebhookConfiguration.
	Mutating bool
	// Rules select the requests sent; nil means CREATE and UPDATE of
	// configmaps.
	Rules []admissionregistration.RuleWithOperations
	// FailurePolicy is "Fail" (default) or "Ignore".
	FailurePolicy string
	// TimeoutSeconds is 1..30; 0 means the default (10).
	TimeoutSeconds int32
	// ObjectSelector and NamespaceSelector limit the webhook; nil matches
	// everything.
	ObjectSelector, NamespaceSelector *meta.LabelSelector
	// MatchConditions are CEL conditions (see MatchCondition).
	MatchConditions []admissionregistration.MatchCondition
	// ReinvocationPolicy is "Never" (default) or "IfNeeded" (mutating).
	ReinvocationPolicy string
	// ByURL reaches the webhook by clientConfig.url instead of a Service.
	ByURL bool
	// Namespace and Service name the Service; defaults "webhooks" and a
	// name derived from Name.
	Namespace, Service string
	// Path is the URL path; default "/".
	Path string
}

// Webhook is an admission webhook registered with a Server. Its embedded
// Backend carries the fault injection of backends: SetLatency, FailWith,
// DropConnections and PresentWrongCertificate (webhook calls then fail
// and FailurePolicy decides). Safe for concurrent use; must not be copied.
type Webhook struct {
	*Backend
	// Configuration is the name of the webhook configuration created.
	Configuration string
	// Mutating says which kind of configuration it is.
	Mutating bool

	mu       sync.Mutex
	requests []AdmissionRequest
}

// Requests returns the requests the webhook received so far, oldest first.
func (w *Webhook) Requests() []AdmissionRequest {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]AdmissionRequest(nil), w.requests...)
}

// RegisterAdmissionWebhook serves an admission webhook and registers it
// with s (see WebhookOptions); it fails the test on error and closes the
// webhook (and deletes its configuration) at the end of the test.
func (s *Server) RegisterAdmissionWebhook(t testing.TB, opts WebhookOptions) *Webhook {
	t.Helper()
	w, err := s.AddAdmissionWebhook(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Remove(context.Background()) })
	return w
}

// AddAdmissionWebhook is RegisterAdmissionWebhook without a testing.TB:
// the caller calls Remove (or the Server's Close stops the server).
func (s *Server) AddAdmissionWebhook(ctx context.Context, opts WebhookOptions) (*Webhook, error) {
	if opts.Name == "" {
		return nil, errors.New("aggregatortest: WebhookOptions.Name is required")
	}
	if opts.Namespace == "" {
		opts.Namespace = "webhooks"
	}
	if opts.Service == "" {
		opts.Service = serviceNameFor(opts.Name)
	}
	if opts.Path == "" {
		opts.Path = "/"
	}
	w := &Webhook{Configuration: opts.Name, Mutating: opts.Mutating}
	b, err := s.serveWebhook(opts.Namespace, opts.Service, w.handler(opts.Handler))
	if err != nil {
		return nil, err
	}
	w.Backend = b
	if err := w.register(ctx, opts); err != nil {
		b.Close()
		return nil, err
	}
	if !opts.ByURL {
		w.waitResolved(ctx)
	}
	return w, nil
}

// waitResolved waits (up to 5 s) until the server resolves the webhook's
// Service: its resolver reads Services and Endpoints from a watch, so a
// call right after they were created could fail with `service "<name>"
// not found` (seen once in a few dozen runs).
func (w *Webhook) waitResolved(ctx context.Context) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		es, err := w.srv.agg.ExplainWebhookConfiguration(ctx, w.Configuration, "")
		if err == nil && len(es) > 0 && len(es[0].Webhooks) > 0 && es[0].Webhooks[0].Address != "" {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// handler decodes AdmissionReviews, records them and answers h's verdict
// in the request's AdmissionReview version.
func (w *Webhook) handler(h AdmissionHandler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		var review struct {
			APIVersion string           `json:"apiVersion"`
			Request    AdmissionRequest `json:"request"`
		}
		if err := json.Unmarshal(body, &review); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		req := review.Request
		req.Raw = body
		w.mu.Lock()
		w.requests = append(w.requests, req)
		w.mu.Unlock()
		verdict := AdmissionResponse{Allowed: true}
		if h != nil {
			verdict = h(&req)
		}
		resp := map[string]any{"uid": req.UID, "allowed": verdict.Allowed}
		if !verdict.Allowed {
			code := verdict.Code
			if code == 0 {
				code = http.StatusForbidden
			}
			resp["status"] = map[string]any{"message": verdict.Message, "code": code}
		}
		if len(verdict.Patch) > 0 {
			resp["patchType"] = "JSONPatch"
			resp["patch"] = verdict.Patch
		}
		if len(verdict.Warnings) > 0 {
			resp["warnings"] = verdict.Warnings
		}
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(map[string]any{"apiVersion": review.APIVersion, "kind": "AdmissionReview", "response": resp})
	})
}

// register creates the Namespace, Service and Endpoints (unless ByURL)
// and the webhook configuration.
func (w *Webhook) register(ctx context.Context, opts WebhookOptions) error {
	api := w.srv.agg.API()
	cc, err := w.webhookClientConfig(ctx, opts.ByURL, opts.Path)
	if err != nil {
		return err
	}

	rules := opts.Rules
	if rules == nil {
		rules = []admissionregistration.RuleWithOperations{{Operations: []string{"CREATE", "UPDATE"},
			Rule: admissionregistration.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}
	}
	none := "None"
	wh := admissionregistration.ValidatingWebhook{
		Name: opts.Name, ClientConfig: cc, Rules: rules, SideEffects: &none,
		AdmissionReviewVersions: []string{"v1"}, ObjectSelector: opts.ObjectSelector,
		NamespaceSelector: opts.NamespaceSelector, MatchConditions: opts.MatchConditions,
	}
	if opts.FailurePolicy != "" {
		wh.FailurePolicy = &opts.FailurePolicy
	}
	if opts.TimeoutSeconds != 0 {
		wh.TimeoutSeconds = &opts.TimeoutSeconds
	}
	var obj any
	resource := "validatingwebhookconfigurations"
	if opts.Mutating {
		resource = "mutatingwebhookconfigurations"
		mw := wh.Mutating()
		if opts.ReinvocationPolicy != "" {
			mw.ReinvocationPolicy = &opts.ReinvocationPolicy
		}
		obj = &admissionregistration.MutatingWebhookConfiguration{
			TypeMeta:   meta.TypeMeta{Kind: "MutatingWebhookConfiguration", APIVersion: "admissionregistration.k8s.io/v1"},
			ObjectMeta: meta.ObjectMeta{Name: opts.Name}, Webhooks: []admissionregistration.MutatingWebhook{mw},
		}
	} else {
		obj = &admissionregistration.ValidatingWebhookConfiguration{
			TypeMeta:   meta.TypeMeta{Kind: "ValidatingWebhookConfiguration", APIVersion: "admissionregistration.k8s.io/v1"},
			ObjectMeta: meta.ObjectMeta{Name: opts.Name}, Webhooks: []admissionregistration.ValidatingWebhook{wh},
		}
	}
	store := api.Store(meta.GroupResource{Group: registry.GroupAdmissionRegistration, Resource: resource})
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	o := store.Strategy().New()
	if err := json.Unmarshal(raw, o); err != nil {
		return err
	}
	if _, err := store.Create(ctx, o); err != nil {
		return fmt.Errorf("aggregatortest: create %s %q: %w", resource, opts.Name, err)
	}
	return nil
}

// Remove deletes the webhook configuration and stops the webhook server.
func (w *Webhook) Remove(ctx context.Context) {
	resource := "validatingwebhookconfigurations"
	if w.Mutating {
		resource = "mutatingwebhookconfigurations"
	}
	store := w.srv.agg.API().Store(meta.GroupResource{Group: registry.GroupAdmissionRegistration, Resource: resource})
	_, _ = store.Delete(ctx, "", w.Configuration, nil)
	w.Backend.Close()
}

// webhookClientConfig returns the clientConfig that reaches b's server
// at path: by url, or by b's Service, which it creates (createService).
func (b *Backend) webhookClientConfig(ctx context.Context, byURL bool, path string) (admissionregistration.WebhookClientConfig, error) {
	cc := admissionregistration.WebhookClientConfig{CABundle: b.CAPEM}
	if byURL {
		u := b.URL + path
		cc.URL = &u
		return cc, nil
	}
	if err := b.createService(ctx); err != nil {
		return cc, err
	}
	port := int32(443)
	cc.Service = &admissionregistration.ServiceReference{Namespace: b.Namespace, Name: b.Service, Port: &port, Path: &path}
	return cc, nil
}

// serveWebhook starts a Backend serving h over HTTPS on 127.0.0.1 for a
// webhook of Service namespace/service: the fault injection of backends
// applies to it.
func (s *Server) serveWebhook(namespace, service string, h http.Handler) (*Backend, error) {
	b := &Backend{srv: s, Service: service, Namespace: namespace, ServerName: service + "." + namespace + ".svc"}
	if err := s.addBackend(b); err != nil {
		return nil, err
	}
	if err := b.serve(h, s.logger); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}
