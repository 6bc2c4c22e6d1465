package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// The AdmissionReview versions aggsim sends, as kube-apiserver 1.33.
const (
	reviewV1      = "admission.k8s.io/v1"
	reviewV1beta1 = "admission.k8s.io/v1beta1"
)

// groupVersionKind and groupVersionResource are AdmissionRequest's kind
// and resource shapes.
type groupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type groupVersionResource struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

// admissionRequest is AdmissionRequest (admission.k8s.io/v1 and v1beta1
// share it) in upstream's field order.
type admissionRequest struct {
	UID                string                `json:"uid"`
	Kind               groupVersionKind      `json:"kind"`
	Resource           groupVersionResource  `json:"resource"`
	SubResource        string                `json:"subResource,omitempty"`
	RequestKind        *groupVersionKind     `json:"requestKind,omitempty"`
	RequestResource    *groupVersionResource `json:"requestResource,omitempty"`
	RequestSubResource string                `json:"requestSubResource,omitempty"`
	Name               string                `json:"name,omitempty"`
	Namespace          string                `json:"namespace,omitempty"`
	Operation          string                `json:"operation"`
	UserInfo           any                   `json:"userInfo"`
	Object             json.RawMessage       `json:"object"`
	OldObject          json.RawMessage       `json:"oldObject"`
	DryRun             *bool                 `json:"dryRun,omitempty"`
	Options            json.RawMessage       `json:"options"`
}

type admissionReview struct {
	Kind       string            `json:"kind"`
	APIVersion string            `json:"apiVersion"`
	Request    *admissionRequest `json:"request,omitempty"`
}

// admissionResponse is AdmissionResponse as a webhook answers it.
type admissionResponse struct {
	UID              string            `json:"uid"`
	Allowed          bool              `json:"allowed"`
	Result           *meta.Status      `json:"status,omitempty"`
	Patch            []byte            `json:"patch,omitempty"`
	PatchType        *string           `json:"patchType,omitempty"`
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
	Warnings         []string          `json:"warnings,omitempty"`
}

type admissionReviewResponse struct {
	Kind       string             `json:"kind"`
	APIVersion string             `json:"apiVersion"`
	Response   *admissionResponse `json:"response"`
}

// callError is upstream's ErrCallingWebhook: the call failed (not the
// webhook's verdict), so the failure policy decides. Its text is
// `failed calling webhook "<name>": <reason>`.
type callError struct {
	name   string
	reason error
}

func (e *callError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %v", e.name, e.reason)
}
func (e *callError) Unwrap() error { return e.reason }

// reviewVersion picks the first of the webhook's admissionReviewVersions
// aggsim speaks.
func reviewVersion(versions []string) (string, bool) {
	for _, v := range versions {
		switch v {
		case "v1":
			return reviewV1, true
		case "v1beta1":
			return reviewV1beta1, true
		}
	}
	return "", false
}

// buildReview returns the AdmissionReview for one call of h on a.
func buildReview(ctx context.Context, apiVersion string, a *registry.AdmissionAttributes) (*admissionReview, error) {
	gvk := groupVersionKind{Group: a.Info.Group, Version: a.Info.Version, Kind: a.Info.Kind}
	if a.Kind != "" {
		gvk.Kind = a.Kind
	}
	gvr := groupVersionResource{Group: a.Info.Group, Version: a.Info.Version, Resource: a.Info.Resource}
	dry := a.DryRun
	r := &admissionRequest{
		UID: registry.NewUID(), Kind: gvk, Resource: gvr, SubResource: a.Subresource,
		RequestKind: &gvk, RequestResource: &gvr, RequestSubResource: a.Subresource,
		Name: a.Name, Namespace: a.Namespace, Operation: a.Operation, UserInfo: userOf(ctx),
		Object: json.RawMessage("null"), OldObject: json.RawMessage("null"), DryRun: &dry, Options: a.Options,
	}
	if a.Object != nil {
		b, err := attrsObjectJSON(a)
		if err != nil {
			return nil, err
		}
		r.Object = b
	}
	if a.OldObject != nil {
		b, err := objectJSON(a.Info, a.OldObject)
		if err != nil {
			return nil, err
		}
		r.OldObject = b
	}
	if len(r.Options) == 0 {
		r.Options = json.RawMessage("null")
	}
	return &admissionReview{Kind: "AdmissionReview", APIVersion: apiVersion, Request: r}, nil
}

// call sends one AdmissionReview to h and verifies the answer as
// upstream's VerifyAdmissionResponse. Errors are *callError unless the
// request must be refused whatever the failure policy.
func (d *Dispatcher) call(ctx context.Context, h *hook, a *registry.AdmissionAttributes) (*admissionResponse, error) {
	start := time.Now()
	rec := Call{Time: start.UTC(), Webhook: h.w.Name, Configuration: h.config, Mutating: h.mutating,
		Operation: a.Operation, Resource: resourceString(a), Namespace: a.Namespace, Name: a.Name,
		FailurePolicy: failurePolicyName(h)}
	if rec.Name == "" && a.Object != nil {
		rec.Name = a.Object.GetObjectMeta().Name
	}
	if u, ok := request.UserFrom(ctx); ok {
		rec.User = u.Username
	}
	resp, err := d.doCall(ctx, h, a, &rec)
	rec.LatencyMillis = float64(time.Since(start).Microseconds()) / 1000
	switch {
	case err != nil:
		rec.Verdict, rec.Error = "error", err.Error()
		rec.Outcome = "request refused (failurePolicy Fail)"
		if !h.failClosed() {
			rec.Outcome = "request let through (failurePolicy Ignore)"
		}
	case resp.Allowed && h.mutating && len(resp.Patch) > 0 && strings.TrimSpace(string(resp.Patch)) != "[]":
		rec.Verdict = "patched"
	case resp.Allowed:
		rec.Verdict = "allowed"
	default:
		rec.Verdict = "denied"
		rec.Message = toStatusErr(h.w.Name, resp.Result).Status.Message
	}
	d.ring.add(rec)
	d.log.Debug("admission webhook call", "webhook", h.w.Name, "configuration", h.config, "url", rec.URL,
		"verdict", rec.Verdict, "latency", time.Since(start), "request", string(rec.Request), "response", string(rec.Response), "err", rec.Error)
	return resp, err
}

func resourceString(a *registry.AdmissionAttributes) string {
	s := a.Info.Resource
	if a.Info.Group != "" {
		s += "." + a.Info.Group
	}
	if a.Subresource != "" {
		s += "/" + a.Subresource
	}
	return s
}

func (d *Dispatcher) doCall(ctx context.Context, h *hook, a *registry.AdmissionAttributes, rec *Call) (*admissionResponse, error) {
	fail := func(err error) error { return &callError{name: h.w.Name, reason: err} }
	version, ok := reviewVersion(h.w.AdmissionReviewVersions)
	if !ok {
		return nil, fail(fmt.Errorf("webhook does not accept known AdmissionReview versions %v", h.w.AdmissionReviewVersions))
	}
	va, err := versioned(a, h.version)
	if err != nil {
		return nil, fail(err)
	}
	h.sent = va
	review, err := buildReview(ctx, version, va)
	if err != nil {
		return nil, fail(err)
	}
	if va != a { // requestKind and requestResource are the request's
		rk := groupVersionKind{Group: a.Info.Group, Version: a.Info.Version, Kind: a.Info.Kind}
		rr := groupVersionResource{Group: a.Info.Group, Version: a.Info.Version, Resource: a.Info.Resource}
		review.Request.RequestKind, review.Request.RequestResource = &rk, &rr
	}
	body, err := json.Marshal(review)
	if err != nil {
		return nil, fail(err)
	}
	rec.Request = body
	timeout := DefaultTimeout
	if t := h.w.TimeoutSeconds; t != nil && *t > 0 {
		timeout = time.Duration(*t) * time.Second
	}
	u, serverName, err := d.target(h.w.ClientConfig)
	if err != nil {
		return nil, fail(err)
	}
	q := u.Query()
	q.Set("timeout", timeout.String())
	u.RawQuery = q.Encode()
	rec.URL = u.String()
	client, err := d.clients.get(h.w.ClientConfig.CABundle, serverName, h.w.ClientConfig.URL == nil)
	if err != nil {
		return nil, fail(fmt.Errorf("failed to call webhook: %w", err))
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fail(fmt.Errorf("failed to call webhook: %w", err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	req.Header.Set("User-Agent", "kube-apiserver-admission")
	res, err := client.Do(req)
	if err != nil {
		return nil, fail(fmt.Errorf("failed to call webhook: %w", err))
	}
	defer res.Body.Close()
	rb, err := io.ReadAll(io.LimitReader(res.Body, 3<<20))
	if err != nil {
		return nil, fail(fmt.Errorf("failed to call webhook: %w", err))
	}
	rec.Response = rb
	rec.StatusCode = res.StatusCode
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, fail(fmt.Errorf("failed to call webhook: %w", genericServerError(res, rb)))
	}
	resp, err := parseResponse(res.StatusCode, res.Header.Get("Content-Type"), rb, version, review.Request.UID, h.mutating)
	if err != nil {
		return nil, fail(err)
	}
	return resp, nil
}

// gvkString is schema.GroupVersionKind.String: "group/version, Kind=kind".
func gvkString(group, version, kind string) string {
	return group + "/" + version + ", Kind=" + kind
}

// genericServerError is client-go's answer to a non-2xx response that is
// no Status (NewGenericServerResponse without a resource).
func genericServerError(res *http.Response, body []byte) error {
	var st meta.Status
	if json.Unmarshal(body, &st) == nil && st.Kind == "Status" && st.Status == "Failure" {
		return &meta.StatusError{Status: st}
	}
	msg := "unknown"
	if ct, _, err := mime.ParseMediaType(res.Header.Get("Content-Type")); err == nil && strings.HasPrefix(ct, "text/") {
		msg = strings.TrimSpace(string(body))
	}
	var text string
	switch res.StatusCode {
	case http.StatusConflict:
		text = "the server reported a conflict"
	case http.StatusNotFound:
		text = "the server could not find the requested resource"
	case http.StatusBadRequest:
		text = "the server rejected our request for an unknown reason"
	case http.StatusUnauthorized:
		text = "the server has asked for the client to provide credentials"
	case http.StatusForbidden:
		text = msg
	case http.StatusMethodNotAllowed:
		text = "the server does not allow this method on the requested resource"
	case http.StatusUnprocessableEntity:
		text = "the server rejected our request due to an error in our request"
	case http.StatusServiceUnavailable:
		text = "the server is currently unable to handle the request"
	case http.StatusGatewayTimeout:
		text = "the server was unable to return a response in the time allotted, but may still be processing the request"
	case http.StatusTooManyRequests:
		text = "the server has received too many requests and has asked us to try again later"
	default:
		if res.StatusCode >= 500 {
			text = fmt.Sprintf("an error on the server (%q) has prevented the request from succeeding", msg)
		} else {
			text = fmt.Sprintf("the server responded with the status code %d but did not return more information", res.StatusCode)
		}
	}
	return fmt.Errorf("%s", text)
}

// target returns the URL of the webhook (path included) and the TLS
// server name to verify: <name>.<namespace>.svc for a service, the URL's
// host otherwise.
func (d *Dispatcher) target(cc admissionregistration.WebhookClientConfig) (*url.URL, string, error) {
	if cc.URL != nil {
		u, err := url.Parse(*cc.URL)
		if err != nil {
			return nil, "", err
		}
		return u, u.Hostname(), nil
	}
	if cc.Service == nil {
		return nil, "", fmt.Errorf("invalid webhook client config: neither url nor service is set")
	}
	s := cc.Service
	port := int32(443)
	if s.Port != nil {
		port = *s.Port
	}
	serverName := s.Name + "." + s.Namespace + ".svc"
	u := &url.URL{Scheme: "https", Host: net.JoinHostPort(serverName, strconv.Itoa(int(port)))}
	if s.Path != nil {
		u.Path = *s.Path
	}
	return u, serverName, nil
}
