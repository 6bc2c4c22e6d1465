package aggregator

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// DebugAPIServicesPath lists every APIService, one line each;
// DebugAPIServicesPath + "/<name>" explains one (ExplainAPIService).
const DebugAPIServicesPath = "/debug/aggsim/apiservices"

// explainDialTimeout bounds the TLS dial explain makes to capture the
// serving certificate chain.
const explainDialTimeout = 5 * time.Second

// ExplainCheck is one step of the availability checks, in upstream's
// order: local (for a local APIService), or service, port, endpoints,
// addresses, discovery. Steps after the first failure are not run.
type ExplainCheck struct {
	// Name is the step: local, service, port, endpoints, addresses or
	// discovery.
	Name string `json:"name"`
	// Result is ok, failed or skipped (port, endpoints and addresses are
	// skipped for Services that are not ClusterIP, as upstream does).
	Result string `json:"result"`
	// Detail says what was found; for the failing step it is the
	// condition message.
	Detail string `json:"detail,omitempty"`
}

// Explanation is aggsim's account of one APIService's availability: the
// condition stored, what the checks find now and why, the backend's
// serving certificate chain against what the proxy requires, and one line
// of advice. It goes beyond upstream, whose probe does not verify the
// serving certificate: Explanation says when the condition is Passed but
// every proxied request will fail.
type Explanation struct {
	Name    string `json:"name"`
	Group   string `json:"group"`
	Version string `json:"version"`
	// Service is "<namespace>/<name>:<port>", or "Local".
	Service string `json:"service"`
	// Condition is the Available condition stored on the APIService; nil
	// before the first check wrote one.
	Condition *apiregistration.APIServiceCondition `json:"condition,omitempty"`
	// Verdict is the condition the checks give now (no
	// lastTransitionTime); the controller writes it within one interval.
	Verdict apiregistration.APIServiceCondition `json:"verdict"`
	// Checks are the steps run, in order.
	Checks []ExplainCheck `json:"checks"`
	// ProbeURL is the discovery URL probed; empty if the checks stopped
	// before the probe.
	ProbeURL string `json:"probeURL,omitempty"`
	// Address is the host:port the Service resolves to; empty if it does
	// not resolve.
	Address string `json:"address,omitempty"`
	// ServerName is what the proxy verifies the serving certificate for
	// (and sends as SNI): <service>.<namespace>.svc.
	ServerName string `json:"serverName,omitempty"`
	// CABundle summarises spec.caBundle: the certificates it holds.
	CABundle []certs.CertSummary `json:"caBundle,omitempty"`
	// InsecureSkipTLSVerify is spec.insecureSkipTLSVerify.
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty"`
	// PresentedCertificates is the chain the backend presented, leaf first.
	PresentedCertificates []certs.CertSummary `json:"presentedCertificates,omitempty"`
	// HandshakeError is why the chain could not be captured.
	HandshakeError string `json:"handshakeError,omitempty"`
	// Verification is "ok", "skipped (insecureSkipTLSVerify)", or why the
	// proxy's verification fails (certs.VerifyFor's sentence).
	Verification string `json:"verification,omitempty"`
	// ProxyWillFail is true when proxied requests will fail although (or
	// because) of the condition: the APIService is not Available (503
	// `service unavailable`), or it is but the proxy cannot verify or
	// build its TLS connection.
	ProxyWillFail bool `json:"proxyWillFail"`
	// ProxyProblem says why ProxyWillFail is true.
	ProxyProblem string `json:"proxyProblem,omitempty"`
	// Advice is one line on what to do next.
	Advice string `json:"advice"`
}

// ExplainAPIService checks the APIService name now, as the availability
// controller does (one probe attempt instead of five), and explains the
// result. For a remote APIService whose Service resolves, it also dials
// the backend with the proxy's SNI and client certificate, captures the
// serving certificate chain without verifying it, and verifies it as the
// proxy would (spec.caBundle, <service>.<namespace>.svc). It takes up to
// about 10 s against a backend that does not answer. Errors: a 404
// *registry.StatusError when the APIService does not exist, or a store
// error.
func (s *Server) ExplainAPIService(ctx context.Context, name string) (*Explanation, error) {
	obj, err := s.api.Store(apiServicesResource).Get(ctx, "", name)
	if err != nil {
		return nil, err
	}
	a := obj.(*apiregistration.APIService)
	e := &Explanation{Name: a.Name, Group: a.Spec.Group, Version: a.Spec.Version, Service: "Local",
		InsecureSkipTLSVerify: a.Spec.InsecureSkipTLSVerify}
	if c := a.GetCondition(apiregistration.Available); c != nil {
		cc := *c
		e.Condition = &cc
	}
	v := s.prober.check(ctx, a, 1)
	e.Verdict, e.Checks, e.ProbeURL = v.condition, v.checks, v.url
	if a.Spec.Service == nil {
		e.Advice = "none: aggsim serves this group/version itself"
		if _, ok := s.api.APIResourceList(a.Spec.Group, a.Spec.Version); !ok {
			e.Advice = "none for availability, but aggsim does not serve " + a.Spec.Group + "/" + a.Spec.Version + " itself: requests answer 404; add spec.service to proxy it to a backend"
		}
		if crds := s.crdsServing(a.Spec.Group, a.Spec.Version); a.Labels[automanagedLabel] == automanagedValueForCRDs && len(crds) > 0 {
			// controller_crd_serving.go: the automanaged APIService of a CRD group/version
			e.Advice = "none: a Local APIService managed for CustomResourceDefinition " + strings.Join(crds, ", ") +
				" (label " + automanagedLabel + "=true); it goes away with the CRD"
		}
		return e, nil
	}
	ref := a.Spec.Service
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	e.Service = fmt.Sprintf("%s/%s:%d", ref.Namespace, ref.Name, port)
	e.ServerName = ref.Name + "." + ref.Namespace + ".svc"

	roots, caBundle, caErr := parseCABundle(a.Spec.CABundle)
	e.CABundle = caBundle

	var verr error
	if loc, rerr := s.resolver.ResolveEndpoint(ref.Namespace, ref.Name, port); rerr == nil {
		e.Address = loc.Host
		dctx, cancel := context.WithTimeout(ctx, explainDialTimeout)
		chain, herr := s.transports.CaptureChain(dctx, loc.Host, e.ServerName)
		cancel()
		for _, c := range chain {
			e.PresentedCertificates = append(e.PresentedCertificates, certs.Describe(c))
		}
		switch {
		case herr != nil && len(chain) == 0:
			e.HandshakeError = herr.Error()
		case a.Spec.InsecureSkipTLSVerify:
			e.Verification = "skipped (insecureSkipTLSVerify)"
		case caErr != nil:
			e.Verification = caErr.Error()
		default:
			if verr = certs.VerifyFor(chain, roots, e.ServerName); verr != nil {
				e.Verification = verr.Error()
			} else {
				e.Verification = "ok"
			}
		}
	}

	switch {
	case v.condition.Status != apiregistration.ConditionTrue:
		e.ProxyWillFail = true
		e.ProxyProblem = "the APIService is not Available: every request answers 503 \"service unavailable\""
		e.Advice = s.adviceFor(a, v, port)
	case caErr != nil:
		e.ProxyWillFail = true
		e.ProxyProblem = "the condition is Passed (the probe does not verify certificates), but spec.caBundle is not PEM: every request answers 500 \"" + caErr.Error() + "\""
		e.Advice = "put the PEM of the CA that signed the backend's serving certificate in spec.caBundle (base64 in YAML)"
	case e.Verification != "" && e.Verification != "ok" && !a.Spec.InsecureSkipTLSVerify:
		e.ProxyWillFail = true
		e.ProxyProblem = "the condition is Passed (the probe does not verify certificates), but the proxy verifies them: every request answers 503 \"error trying to reach service: tls: failed to verify certificate: ...\""
		e.Advice = e.Verification + "; " + verifyFix(verr, ref)
	case a.Spec.InsecureSkipTLSVerify:
		e.Advice = "none, but insecureSkipTLSVerify trusts any serving certificate; prefer spec.caBundle"
	default:
		e.Advice = "none: the backend answers discovery and its serving certificate verifies"
	}
	return e, nil
}

// verifyFix is the second half of the advice for a serving certificate
// the proxy cannot verify.
func verifyFix(err error, ref *apiregistration.ServiceReference) string {
	var ve *certs.VerifyError
	if !errors.As(err, &ve) {
		return "fix the serving certificate or spec.caBundle"
	}
	reissue := fmt.Sprintf("reissue it for %s.%s.svc (aggsim certs backend --service %s --namespace %s --dir DIR)", ref.Name, ref.Namespace, ref.Name, ref.Namespace)
	switch ve.Reason {
	case certs.VerifyUnknownAuthority:
		return "put the PEM of the CA that signed it in spec.caBundle"
	case certs.VerifyNameMismatch, certs.VerifyNoSANs, certs.VerifyExpired, certs.VerifyNotYetValid, certs.VerifyWrongUsage:
		return reissue
	}
	return "fix the serving certificate or spec.caBundle"
}

// parseCABundle reads a caBundle as the proxy and the webhook client do:
// the pool of its certificates and their summaries; nil and no error for
// an empty bundle (the system roots); upstream's error `unable to load
// root certificates: unable to parse bytes as PEM block` when it holds no
// certificate.
func parseCABundle(b []byte) (*x509.CertPool, []certs.CertSummary, error) {
	if len(b) == 0 {
		return nil, nil, nil
	}
	roots := x509.NewCertPool()
	var described []certs.CertSummary
	for c, rest := nextPEMCert(b); c != nil; c, rest = nextPEMCert(rest) {
		roots.AddCert(c)
		described = append(described, certs.Describe(c))
	}
	if len(described) == 0 {
		return roots, nil, errors.New("unable to load root certificates: unable to parse bytes as PEM block")
	}
	return roots, described, nil
}

// nextPEMCert returns the first certificate in b and what follows it, or
// nil when b holds no more certificates.
func nextPEMCert(b []byte) (*x509.Certificate, []byte) {
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			return nil, nil
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		if c, err := x509.ParseCertificate(blk.Bytes); err == nil {
			return c, b
		}
	}
}

// adviceFor is one line on how to fix the failing check of v.
func (s *Server) adviceFor(a *apiregistration.APIService, v verdict, port int32) string {
	ref := a.Spec.Service
	svc := ref.Namespace + "/" + ref.Name
	switch v.condition.Reason {
	case apiregistration.ReasonServiceNotFound:
		return fmt.Sprintf("create Service %s (with a port %d), or point spec.service at an existing Service", svc, port)
	case apiregistration.ReasonServicePortError:
		var ports []string
		if v.service != nil {
			for _, p := range v.service.Spec.Ports {
				if p.Name != "" {
					ports = append(ports, fmt.Sprintf("%d (%s)", p.Port, p.Name))
				} else {
					ports = append(ports, fmt.Sprint(p.Port))
				}
			}
		}
		return fmt.Sprintf("Service %s exposes ports [%s]; set spec.service.port to one of them, or add port %d to the Service", svc, strings.Join(ports, ", "), port)
	case apiregistration.ReasonEndpointsNotFound:
		return fmt.Sprintf("create Endpoints %s listing the backend's address and a port named %q (aggsim runs no endpoints controller)", svc, v.portName)
	case apiregistration.ReasonMissingEndpoints:
		return fmt.Sprintf("add the backend's address to Endpoints %s, in a subset whose port is named %q like the Service port", svc, v.portName)
	}
	var bad *badStatusError
	var guard *guardTimeoutError
	msg := ""
	if v.err != nil {
		msg = v.err.Error()
	}
	switch {
	case errors.As(v.err, &bad):
		path := discoveryPath(a)
		if bad.code == http.StatusNotFound {
			return fmt.Sprintf("the backend answers GET %s with 404: it does not serve %s/%s; check spec.group/spec.version and the backend's installed API groups", path, a.Spec.Group, a.Spec.Version)
		}
		if bad.code == http.StatusUnauthorized || bad.code == http.StatusForbidden {
			return fmt.Sprintf("the backend refuses GET %s with %d: it must trust the front-proxy CA (--requestheader-client-ca-file) and allow system:kube-aggregator (group system:masters)", path, bad.code)
		}
		return fmt.Sprintf("the backend answers GET %s with %d; it must answer 2xx with its APIResourceList (see the backend's logs)", path, bad.code)
	case errors.As(v.err, &guard), strings.Contains(msg, "deadline exceeded"), strings.Contains(msg, "Client.Timeout"):
		return fmt.Sprintf("the backend did not answer GET %s within %s; is it overloaded or stuck?", discoveryPath(a), probeTimeout)
	case strings.Contains(msg, "connection refused"):
		addr := strings.TrimPrefix(strings.TrimPrefix(v.url, "https://"), "http://")
		if i := strings.IndexByte(addr, '/'); i >= 0 {
			addr = addr[:i]
		}
		return fmt.Sprintf("nothing listens on %s: start the backend there, or fix the Endpoints (or externalName) and port", addr)
	case strings.Contains(msg, "remote error: tls"):
		return "the backend rejected aggsim's client certificate: its --requestheader-client-ca-file must hold the front-proxy CA that signed aggsim's proxy client certificate"
	case strings.Contains(msg, "no such host"):
		return "the Service's host name does not resolve on this machine; use an IP address or localhost"
	}
	if msg == "" {
		return "see the condition message"
	}
	return "fix: " + msg
}

// WriteText writes e for a human, one item per line.
func (e *Explanation) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("APIService:   %s\n", e.Name)
	gv := e.Group + "/" + e.Version
	if e.Group == "" {
		gv = e.Version + " (legacy core group)"
	}
	p("Group:        %s\n", gv)
	p("Service:      %s\n", e.Service)
	if c := e.Condition; c != nil {
		p("Available:    %s\n", conditionSummary(c))
		if !c.LastTransitionTime.IsZero() {
			p("              since %s\n", c.LastTransitionTime.UTC().Format(time.RFC3339))
		}
		p("              %s\n", c.Message)
	} else {
		p("Available:    (no condition yet)\n")
	}
	if e.Condition == nil || e.Condition.Status != e.Verdict.Status || e.Condition.Reason != e.Verdict.Reason || e.Condition.Message != e.Verdict.Message {
		p("Checked now:  %s\n", conditionSummary(&e.Verdict))
		p("              %s\n", e.Verdict.Message)
	}
	p("Checks:\n")
	for i, c := range e.Checks {
		p("  %d. %-10s %-8s %s\n", i+1, c.Name, c.Result, c.Detail)
	}
	if e.ProbeURL != "" {
		p("Probe:        GET %s (as %s, group %s; serving certificate not verified, as upstream)\n", e.ProbeURL, probeUser, probeGroup)
	}
	if e.Address != "" {
		p("Resolved:     %s\n", e.Address)
	}
	if e.ServerName != "" {
		p("Proxy TLS:    ServerName %s, ", e.ServerName)
		switch {
		case e.InsecureSkipTLSVerify:
			p("insecureSkipTLSVerify (no verification)\n")
		case len(e.CABundle) == 0:
			p("no caBundle (system roots)\n")
		default:
			var subj []string
			for _, c := range e.CABundle {
				subj = append(subj, c.Subject)
			}
			p("caBundle [%s]\n", strings.Join(subj, "; "))
		}
	}
	if e.HandshakeError != "" {
		p("Handshake:    %s\n", e.HandshakeError)
	}
	if len(e.PresentedCertificates) > 0 {
		p("Presented certificate chain:\n")
		for i, c := range e.PresentedCertificates {
			p("  [%d] subject:  %s\n", i, c.Subject)
			p("      SANs:     [%s]\n", strings.Join(c.SANs(), ", "))
			p("      issuer:   %s\n", c.Issuer)
			p("      validity: %s to %s\n", c.NotBefore.Format(time.RFC3339), c.NotAfter.Format(time.RFC3339))
		}
	}
	if e.Verification != "" {
		p("Verification: %s\n", e.Verification)
	}
	if e.ProxyWillFail {
		p("Proxying:     will fail: %s\n", e.ProxyProblem)
	} else {
		p("Proxying:     will work\n")
	}
	p("Advice:       %s\n", e.Advice)
	_, err := io.WriteString(w, b.String())
	return err
}

// conditionSummary is "True (Passed)" / "False (ServiceNotFound)".
func conditionSummary(c *apiregistration.APIServiceCondition) string {
	return fmt.Sprintf("%s (%s)", c.Status, c.Reason)
}

// serveDebugAPIServices answers DebugAPIServicesPath (a table of every
// APIService's stored condition) and DebugAPIServicesPath/<name> (its
// Explanation): text/plain, or JSON when the Accept header names
// application/json. An unknown name answers a 404 Status.
func (s *Server) serveDebugAPIServices(w http.ResponseWriter, r *http.Request) {
	if !debugReadOnly(w, r) {
		return
	}
	name := strings.Trim(strings.TrimPrefix(r.URL.Path, DebugAPIServicesPath), "/")
	if name == "" {
		s.serveDebugList(w, r)
		return
	}
	e, err := s.ExplainAPIService(r.Context(), name)
	if err != nil {
		negotiation.WriteStatus(w, r, err)
		return
	}
	writeExplanation(w, r, e, e.WriteText)
}

// debugListItem is one APIService in the JSON form of the list.
type debugListItem struct {
	Name      string `json:"name"`
	Service   string `json:"service"`
	Available string `json:"available"`
	Reason    string `json:"reason,omitempty"`
	Message   string `json:"message,omitempty"`
}

func (s *Server) serveDebugList(w http.ResponseWriter, r *http.Request) {
	objs, _, _, err := s.api.Store(apiServicesResource).List(r.Context(), "", registry.ListOptions{})
	if err != nil {
		negotiation.WriteStatus(w, r, err)
		return
	}
	items := make([]debugListItem, 0, len(objs))
	for _, o := range objs {
		a := o.(*apiregistration.APIService)
		it := debugListItem{Name: a.Name, Service: "Local", Available: "Unknown"}
		if ref := a.Spec.Service; ref != nil {
			it.Service = ref.Namespace + "/" + ref.Name
		}
		if c := a.GetCondition(apiregistration.Available); c != nil {
			it.Available, it.Reason, it.Message = string(c.Status), c.Reason, c.Message
		}
		items = append(items, it)
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	if wantsJSON(r) {
		writeDebugJSON(w, items)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSERVICE\tAVAILABLE\tREASON\tMESSAGE")
	for _, it := range items {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", it.Name, it.Service, it.Available, it.Reason, it.Message)
	}
	_ = tw.Flush()
}

// crdsServing returns the names of the CRDs that serve group/version.
func (s *Server) crdsServing(group, version string) []string {
	var out []string
	for _, o := range s.crds.List() {
		crd, ok := o.(*apiextensions.CustomResourceDefinition)
		if !ok || crd.Spec.Group != group {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name == version && v.Served {
				out = append(out, crd.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}
