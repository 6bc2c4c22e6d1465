package aggregator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// crdLastConversions is how many recent conversion calls a CRD
// explanation lists.
const crdLastConversions = 5

// CRDExplanation is aggsim's account of one CustomResourceDefinition:
// its versions with their automanaged APIServices, conditions,
// storedVersions, conversion strategy and, for Webhook conversion, whether
// the webhook can be reached now (explain_webhook.go's checks) and its
// last calls from the conversion ring (crd_conversion.go). Upstream has no
// such view.
type CRDExplanation struct {
	Name           string                                            `json:"name"`
	Group          string                                            `json:"group"`
	Kind           string                                            `json:"kind"`
	Scope          string                                            `json:"scope"`
	Versions       []CRDVersionExplanation                           `json:"versions"`
	Conditions     []apiextensions.CustomResourceDefinitionCondition `json:"conditions"`
	StoredVersions []string                                          `json:"storedVersions"`
	// Conversion is the strategy: None or Webhook.
	Conversion string `json:"conversion"`
	// ConversionReviewVersions are the webhook's, in order.
	ConversionReviewVersions []string `json:"conversionReviewVersions,omitempty"`
	// Webhook is the conversion webhook's target and reachability.
	Webhook *CRDConversionWebhook `json:"webhook,omitempty"`
	// LastConversions are the CRD's most recent conversion calls, newest
	// first; LastFailure is its most recent failed one still in the ring.
	LastConversions []CRDConversion `json:"lastConversions"`
	LastFailure     *CRDConversion  `json:"lastFailure,omitempty"`
}

// CRDVersionExplanation is one version of a CRD with its APIService.
type CRDVersionExplanation struct {
	Name               string `json:"name"`
	Served             bool   `json:"served"`
	Storage            bool   `json:"storage"`
	Deprecated         bool   `json:"deprecated,omitempty"`
	DeprecationWarning string `json:"deprecationWarning,omitempty"`
	// APIService is the automanaged APIService <version>.<group>;
	// Available is its Available condition ("True", "False (<reason>)"),
	// or "missing" when it does not exist.
	APIService string `json:"apiService"`
	Available  string `json:"available"`
}

// CRDConversionWebhook is where a CRD's conversion webhook is called
// and whether it can be reached now (the fields of WebhookExplanation
// that apply to a conversion webhook).
type CRDConversionWebhook struct {
	// URL is what conversions POST to (without ?timeout=).
	URL string `json:"url"`
	// TimeoutSeconds is upstream's fixed wait (ConversionWebhookTimeout).
	TimeoutSeconds int32 `json:"timeoutSeconds"`
	// Service is "<namespace>/<name>:<port>" for a service webhook.
	Service string `json:"service,omitempty"`
	// Address is the host:port dialled; empty if it does not resolve.
	Address string `json:"address,omitempty"`
	// ServerName is the name the serving certificate must carry.
	ServerName            string              `json:"serverName"`
	CABundle              []certs.CertSummary `json:"caBundle,omitempty"`
	PresentedCertificates []certs.CertSummary `json:"presentedCertificates,omitempty"`
	// Verification is "ok" or why the serving certificate does not verify.
	Verification string `json:"verification,omitempty"`
	// Reachable is true when the address resolves, the handshake works and
	// the certificate verifies; Problem says why not and what requests
	// needing a conversion will answer.
	Reachable bool   `json:"reachable"`
	Problem   string `json:"problem,omitempty"`
	// Advice is one line on what to do next.
	Advice string `json:"advice"`
}

// CRDConversion is one conversion call as an explanation lists it.
type CRDConversion struct {
	Time          time.Time `json:"time"`
	From          string    `json:"from"`
	To            string    `json:"to"`
	Objects       int       `json:"objects"`
	LatencyMillis float64   `json:"latencyMillis"`
	// Result is "ok" or "failed"; Error is the message the client got.
	Result string `json:"result"`
	Error  string `json:"error,omitempty"`
}

// ExplainCRD explains the CustomResourceDefinition called name; for a
// Webhook conversion it dials the webhook (up to explainDialTimeout).
// Errors: a 404 *meta.StatusError when no CRD has that name, or a store
// error.
func (s *Server) ExplainCRD(ctx context.Context, name string) (*CRDExplanation, error) {
	obj, err := s.api.Store(crdResource).Get(ctx, "", name)
	if err != nil {
		return nil, err
	}
	crd := obj.(*apiextensions.CustomResourceDefinition)
	e := &CRDExplanation{Name: crd.Name, Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind, Scope: string(crd.Spec.Scope),
		Conditions: crd.Status.Conditions, StoredVersions: crd.Status.StoredVersions, Conversion: string(apiextensions.NoneConverter),
		LastConversions: []CRDConversion{}}
	if e.Conditions == nil {
		e.Conditions = []apiextensions.CustomResourceDefinitionCondition{}
	}
	if e.StoredVersions == nil {
		e.StoredVersions = []string{}
	}
	for _, v := range crd.Spec.Versions {
		x := CRDVersionExplanation{Name: v.Name, Served: v.Served, Storage: v.Storage, Deprecated: v.Deprecated,
			APIService: v.Name + "." + crd.Spec.Group, Available: "missing"}
		if v.DeprecationWarning != nil {
			x.DeprecationWarning = *v.DeprecationWarning
		}
		if o, err := s.api.Store(apiServicesResource).Get(ctx, "", x.APIService); err == nil {
			x.Available = "Unknown (no Available condition yet)"
			if c := o.(*apiregistration.APIService).GetCondition(apiregistration.Available); c != nil {
				x.Available = string(c.Status)
				if c.Status != apiregistration.ConditionTrue {
					x.Available += " (" + c.Reason + ")"
				}
			}
		}
		e.Versions = append(e.Versions, x)
	}
	if conv := crd.Spec.Conversion; conv != nil && conv.Strategy != "" {
		e.Conversion = string(conv.Strategy)
		if conv.Strategy == apiextensions.WebhookConverter && conv.Webhook != nil {
			e.ConversionReviewVersions = conv.Webhook.ConversionReviewVersions
			if cc := conv.Webhook.ClientConfig; cc != nil {
				e.Webhook = s.conversionReachability(ctx, crd, cc)
			}
		}
	}
	calls := s.ConversionCalls()
	for i := len(calls) - 1; i >= 0; i-- {
		c := calls[i]
		if c.CRD != crd.Name {
			continue
		}
		x := CRDConversion{Time: c.Time, From: c.From, To: c.To, LatencyMillis: c.LatencyMillis, Result: "ok", Error: c.Error}
		var review struct {
			Request struct {
				Objects []json.RawMessage `json:"objects"`
			} `json:"request"`
		}
		if json.Unmarshal(c.Request, &review) == nil {
			x.Objects = len(review.Request.Objects)
		}
		if c.Error != "" {
			x.Result = "failed"
			if e.LastFailure == nil {
				f := x
				e.LastFailure = &f
			}
		}
		if len(e.LastConversions) < crdLastConversions {
			e.LastConversions = append(e.LastConversions, x)
		}
		if len(e.LastConversions) == crdLastConversions && e.LastFailure != nil {
			break
		}
	}
	return e, nil
}

// conversionReachability checks the conversion webhook as explain webhook
// checks an admission webhook (Service resolution or url, TLS against
// caBundle for <svc>.<ns>.svc), then words the consequence for
// conversions: every request that needs one answers upstream's 500.
func (s *Server) conversionReachability(ctx context.Context, crd *apiextensions.CustomResourceDefinition, cc *apiextensions.WebhookClientConfig) *CRDConversionWebhook {
	acc := admissionregistration.WebhookClientConfig{URL: cc.URL, CABundle: cc.CABundle}
	if r := cc.Service; r != nil {
		acc.Service = &admissionregistration.ServiceReference{Namespace: r.Namespace, Name: r.Name, Path: r.Path, Port: r.Port}
	}
	x := &WebhookExplanation{Name: crd.Name, FailurePolicy: "Fail", TimeoutSeconds: int32(ConversionWebhookTimeout / time.Second)}
	s.webhookReachability(ctx, x, acc)
	if !x.Reachable {
		cause, _, _ := strings.Cut(x.Problem, "; every call fails")
		x.Problem = fmt.Sprintf("%s; every read, write or list in a version other than the stored one fails with 500 InternalError: conversion webhook for %s/<from version>, Kind=%s failed: ...",
			cause, crd.Spec.Group, crd.Spec.Names.Kind)
	}
	x.Advice = strings.ReplaceAll(x.Advice, "clientConfig.", "spec.conversion.webhook.clientConfig.")
	return &CRDConversionWebhook{URL: x.URL, TimeoutSeconds: x.TimeoutSeconds, Service: x.Service, Address: x.Address,
		ServerName: x.ServerName, CABundle: x.CABundle, PresentedCertificates: x.PresentedCertificates,
		Verification: x.Verification, Reachable: x.Reachable, Problem: x.Problem, Advice: x.Advice}
}

// WriteText writes e for a human.
func (e *CRDExplanation) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("CustomResourceDefinition: %s\n", e.Name)
	p("Kind:            %s (%s) in group %s\n", e.Kind, e.Scope, e.Group)
	p("Versions:\n")
	for _, v := range e.Versions {
		var flags []string
		if v.Served {
			flags = append(flags, "served")
		} else {
			flags = append(flags, "not served")
		}
		if v.Storage {
			flags = append(flags, "storage")
		}
		if v.Deprecated {
			flags = append(flags, "deprecated")
		}
		p("  %s: %s; APIService %s Available=%s\n", v.Name, strings.Join(flags, ", "), v.APIService, v.Available)
		if v.DeprecationWarning != "" {
			p("    deprecationWarning: %s\n", v.DeprecationWarning)
		}
	}
	if len(e.Conditions) == 0 {
		p("Conditions:      none yet\n")
	} else {
		p("Conditions:\n")
	}
	for _, c := range e.Conditions {
		p("  %s=%s (%s): %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	p("StoredVersions:  [%s]\n", strings.Join(e.StoredVersions, ", "))
	p("Conversion:      %s", e.Conversion)
	if e.Conversion != string(apiextensions.WebhookConverter) {
		p(" (only apiVersion is rewritten)\n")
	} else {
		p(" (ConversionReview %s)\n", strings.Join(e.ConversionReviewVersions, ", "))
	}
	if x := e.Webhook; x != nil {
		p("  Calls:         POST %s?timeout=%ds\n", x.URL, x.TimeoutSeconds)
		webhookEndpoint{Service: x.Service, Address: x.Address, ServerName: x.ServerName, CABundle: x.CABundle,
			PresentedCertificates: x.PresentedCertificates, Verification: x.Verification, Reachable: x.Reachable,
			Problem: x.Problem, Advice: x.Advice}.writeText(p, 15)
	}
	if len(e.LastConversions) == 0 {
		p("Last conversions: none recorded\n")
	} else {
		p("Last conversions (newest first):\n")
	}
	for _, c := range e.LastConversions {
		writeConversionLine(p, c)
	}
	if e.LastFailure == nil {
		p("Last failure:    none recorded\n")
	} else {
		p("Last failure:\n")
		writeConversionLine(p, *e.LastFailure)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeConversionLine writes one conversion call (two lines when it
// failed).
func writeConversionLine(p func(string, ...any), c CRDConversion) {
	objects := "objects"
	if c.Objects == 1 {
		objects = "object"
	}
	p("  %s  %s -> %s, %d %s in %.1f ms: %s\n", c.Time.Format(time.RFC3339), c.From, c.To, c.Objects, objects, c.LatencyMillis, c.Result)
	if c.Error != "" {
		p("    %s\n", c.Error)
	}
}

// serveDebugCRD answers DebugCRDsPath/<name> with the CRD's explanation:
// text/plain, or JSON when Accept names application/json.
func (s *Server) serveDebugCRD(w http.ResponseWriter, r *http.Request) {
	if !debugReadOnly(w, r) {
		return
	}
	name := strings.Trim(strings.TrimPrefix(r.URL.Path, DebugCRDsPath), "/")
	if name == "" || strings.Contains(name, "/") {
		negotiation.WriteStatus(w, r, meta.NewBadRequest("a CustomResourceDefinition name is required: "+DebugCRDsPath+"/<name>"))
		return
	}
	e, err := s.ExplainCRD(r.Context(), name)
	if err != nil {
		negotiation.WriteStatus(w, r, err)
		return
	}
	writeExplanation(w, r, e, e.WriteText)
}
