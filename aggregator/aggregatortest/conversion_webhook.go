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
	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// ConversionHandler converts one custom resource (a whole object,
// apiVersion, kind and metadata included) to desiredAPIVersion. The
// returned object must carry desiredAPIVersion; an error is answered as
// a Failure result with its text, which the client then sees as
// `conversion webhook for <gv>, Kind=<kind> failed: <text>`.
type ConversionHandler func(obj map[string]any, desiredAPIVersion string) (map[string]any, error)

// ConversionRequest is one ConversionReview the webhook received: its
// uid, desired apiVersion and objects, and the whole review as Raw.
type ConversionRequest struct {
	UID               string            `json:"uid"`
	DesiredAPIVersion string            `json:"desiredAPIVersion"`
	Objects           []json.RawMessage `json:"objects"`
	Raw               []byte            `json:"-"`
}

// ConversionWebhookOptions describes a conversion webhook for an
// installed CRD: RegisterConversionWebhook serves Handler over HTTPS on
// 127.0.0.1 and sets the CRD's spec.conversion to Webhook with it, by a
// Service (<Service>.<Namespace>.svc port 443, Endpoints at the real
// address, caBundle the webhook's CA) or, with ByURL, by url.
type ConversionWebhookOptions struct {
	// CRD names the CustomResourceDefinition ("widgets.example.com").
	// Required.
	CRD string
	// Handler converts; nil rewrites apiVersion only.
	Handler ConversionHandler
	// ReviewVersions is conversionReviewVersions; nil means ["v1"].
	ReviewVersions []string
	// ByURL reaches the webhook by clientConfig.url instead of a Service.
	ByURL bool
	// Namespace and Service name the Service; defaults "webhooks" and a
	// name derived from CRD.
	Namespace, Service string
	// Path is the URL path; default "/convert".
	Path string
}

// ConversionWebhook is a running conversion webhook. Its Backend injects
// faults as backends do: SetLatency (beyond the server's wait the
// request fails with `context deadline exceeded`), FailWith,
// DropConnections, PresentWrongCertificate, Restore.
type ConversionWebhook struct {
	*Backend
	// CRD is the CustomResourceDefinition it converts for.
	CRD string

	mu       sync.Mutex
	requests []ConversionRequest
}

// Requests returns the reviews received so far, oldest first.
func (w *ConversionWebhook) Requests() []ConversionRequest {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]ConversionRequest(nil), w.requests...)
}

// RegisterConversionWebhook serves a conversion webhook and sets it as
// the CRD's conversion (see ConversionWebhookOptions); it returns once
// the CRD's versions are served through it, fails the test on error,
// and at the end of the test sets the conversion back to None and stops
// the webhook.
func (s *Server) RegisterConversionWebhook(t testing.TB, opts ConversionWebhookOptions) *ConversionWebhook {
	t.Helper()
	w, err := s.AddConversionWebhook(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Remove(context.Background()) })
	return w
}

// AddConversionWebhook is RegisterConversionWebhook without a
// testing.TB: the caller calls Remove.
func (s *Server) AddConversionWebhook(ctx context.Context, opts ConversionWebhookOptions) (*ConversionWebhook, error) {
	if opts.CRD == "" {
		return nil, errors.New("aggregatortest: ConversionWebhookOptions.CRD is required")
	}
	if opts.Namespace == "" {
		opts.Namespace = "webhooks"
	}
	if opts.Service == "" {
		opts.Service = serviceNameFor(opts.CRD)
	}
	if opts.Path == "" {
		opts.Path = "/convert"
	}
	if opts.ReviewVersions == nil {
		opts.ReviewVersions = []string{"v1"}
	}
	w := &ConversionWebhook{CRD: opts.CRD}
	b, err := s.serveWebhook(opts.Namespace, opts.Service, w.handler(opts.Handler))
	if err != nil {
		return nil, err
	}
	w.Backend = b
	cc, err := b.webhookClientConfig(ctx, opts.ByURL, opts.Path)
	if err != nil {
		b.Close()
		return nil, err
	}
	conv := &apiextensions.CustomResourceConversion{Strategy: apiextensions.WebhookConverter, Webhook: &apiextensions.WebhookConversion{
		ConversionReviewVersions: opts.ReviewVersions,
		ClientConfig:             &apiextensions.WebhookClientConfig{URL: cc.URL, CABundle: cc.CABundle},
	}}
	if cc.Service != nil {
		conv.Webhook.ClientConfig.Service = &apiextensions.ServiceReference{Namespace: cc.Service.Namespace, Name: cc.Service.Name, Path: cc.Service.Path, Port: cc.Service.Port}
	}
	if err := s.setConversion(ctx, opts.CRD, conv); err != nil {
		b.Close()
		return nil, err
	}
	return w, nil
}

// setConversion updates the CRD's spec.conversion and waits (at most
// 10 s) until every served version's store converts with it.
func (s *Server) setConversion(ctx context.Context, name string, conv *apiextensions.CustomResourceConversion) error {
	store := s.agg.API().Store(meta.GroupResource{Group: registry.GroupAPIExtensions, Resource: "customresourcedefinitions"})
	for attempt := 0; ; attempt++ {
		o, err := store.Get(ctx, "", name)
		if err != nil {
			return fmt.Errorf("aggregatortest: get CRD %q: %w", name, err)
		}
		crd := o.(*apiextensions.CustomResourceDefinition)
		crd.Spec.Conversion = conv
		_, err = store.Update(ctx, crd)
		if err == nil {
			break
		}
		if !errors.Is(err, meta.ErrConflict) || attempt > 5 {
			return fmt.Errorf("aggregatortest: update CRD %q: %w", name, err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		o, err := store.Get(ctx, "", name)
		if err != nil {
			return err
		}
		crd := o.(*apiextensions.CustomResourceDefinition)
		ready := true
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			st := s.agg.API().GroupVersionStore(crd.Spec.Group, v.Name, crd.Status.AcceptedNames.Plural)
			cs, ok := st.Strategy().(*registry.CustomResourceStrategy)
			if st == nil || !ok || (cs.Converter != nil) != (conv.Strategy == apiextensions.WebhookConverter) {
				ready = false
			}
		}
		if ready {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("aggregatortest: CRD %q not served with its new conversion within 10 s", name)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// handler decodes ConversionReviews, records them and answers with h's
// conversions in the request's ConversionReview version.
func (w *ConversionWebhook) handler(h ConversionHandler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		var review struct {
			APIVersion string            `json:"apiVersion"`
			Request    ConversionRequest `json:"request"`
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
		resp := map[string]any{"uid": req.UID}
		converted := []map[string]any{}
		var failure error
		for _, raw := range req.Objects {
			var obj map[string]any
			if err := json.Unmarshal(raw, &obj); err != nil {
				failure = err
				break
			}
			if h == nil {
				obj["apiVersion"] = req.DesiredAPIVersion
			} else if obj, err = h(obj, req.DesiredAPIVersion); err != nil {
				failure = err
				break
			}
			converted = append(converted, obj)
		}
		if failure != nil {
			resp["result"] = map[string]any{"status": "Failure", "message": failure.Error()}
		} else {
			resp["result"] = map[string]any{"status": "Success"}
			resp["convertedObjects"] = converted
		}
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(map[string]any{"apiVersion": review.APIVersion, "kind": "ConversionReview", "response": resp})
	})
}

// Remove sets the CRD's conversion back to None and stops the webhook.
func (w *ConversionWebhook) Remove(ctx context.Context) {
	_ = w.srv.setConversion(ctx, w.CRD, &apiextensions.CustomResourceConversion{Strategy: apiextensions.NoneConverter})
	w.Backend.Close()
}
