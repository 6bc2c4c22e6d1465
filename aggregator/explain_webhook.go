package aggregator

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aggsim/aggsim/aggregator/admission"
	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/proxy"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// webhookLastCalls is how many recent calls an explanation lists per
// webhook.
const webhookLastCalls = 5

// WebhookConfigurationExplanation is aggsim's account of one
// Mutating or ValidatingWebhookConfiguration: for each webhook what it
// matches, whether it can be reached now (its Service resolved as the
// dispatcher resolves it, a TLS handshake verified against caBundle for
// <svc>.<ns>.svc) and its last calls. Upstream has no such view.
type WebhookConfigurationExplanation struct {
	// Kind is MutatingWebhookConfiguration or
	// ValidatingWebhookConfiguration.
	Kind     string               `json:"kind"`
	Name     string               `json:"name"`
	Webhooks []WebhookExplanation `json:"webhooks"`
}

// WebhookExplanation explains one webhook of a configuration.
type WebhookExplanation struct {
	Name string `json:"name"`
	// Rules spell out each rule: operations, resources, groups, versions
	// and scope.
	Rules []string `json:"rules"`
	// NamespaceSelector and ObjectSelector are the selectors as label
	// selector strings ("" matches everything).
	NamespaceSelector string `json:"namespaceSelector"`
	ObjectSelector    string `json:"objectSelector"`
	// MatchConditions are "<name>: <expression>".
	MatchConditions []string `json:"matchConditions,omitempty"`
	// MatchPolicy, FailurePolicy and SideEffects are the fields with
	// upstream's defaults filled in (Equivalent, Fail).
	MatchPolicy        string `json:"matchPolicy"`
	FailurePolicy      string `json:"failurePolicy"`
	SideEffects        string `json:"sideEffects"`
	TimeoutSeconds     int32  `json:"timeoutSeconds"`
	ReinvocationPolicy string `json:"reinvocationPolicy,omitempty"`
	// AdmissionReviewVersion is the version sent ("" if none is known).
	AdmissionReviewVersions []string `json:"admissionReviewVersions"`
	// URL is what the dispatcher POSTs to (without ?timeout=).
	URL string `json:"url"`
	// Service is "<namespace>/<name>:<port>" for a service webhook.
	Service string `json:"service,omitempty"`
	// Address is the host:port dialled; empty if it does not resolve.
	Address string `json:"address,omitempty"`
	// ServerName is the name the serving certificate must carry.
	ServerName string `json:"serverName"`
	// CABundle summarises clientConfig.caBundle.
	CABundle              []certs.CertSummary `json:"caBundle,omitempty"`
	PresentedCertificates []certs.CertSummary `json:"presentedCertificates,omitempty"`
	// Verification is "ok" or why the serving certificate does not verify.
	Verification string `json:"verification,omitempty"`
	// Reachable is true when the address resolves, the handshake works and
	// the certificate verifies.
	Reachable bool `json:"reachable"`
	// Problem says why it is not reachable and what calls will answer.
	Problem string `json:"problem,omitempty"`
	// Advice is one line on what to do next.
	Advice string `json:"advice"`
	// LastCalls are the webhook's most recent calls, newest first (request
	// and response bodies left out: /debug/aggsim/webhooks has them).
	LastCalls []admission.Call `json:"lastCalls"`
}

// ExplainWebhookConfiguration explains the Mutating and/or
// ValidatingWebhookConfiguration called name (both when both exist),
// limited to the webhook named webhook when it is not empty. It dials each
// webhook (up to explainDialTimeout). Errors: a 404 *meta.StatusError when
// no configuration (or webhook) has that name, or a store error.
func (s *Server) ExplainWebhookConfiguration(ctx context.Context, name, webhook string) ([]WebhookConfigurationExplanation, error) {
	src := serverAdmissionSource{s}
	var out []WebhookConfigurationExplanation
	muts, err := src.MutatingWebhookConfigurations(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range muts {
		if c.Name != name {
			continue
		}
		e := WebhookConfigurationExplanation{Kind: "MutatingWebhookConfiguration", Name: c.Name, Webhooks: []WebhookExplanation{}}
		for i := range c.Webhooks {
			w := c.Webhooks[i]
			if webhook != "" && w.Name != webhook {
				continue
			}
			x := s.explainWebhook(ctx, c.Name, true, w.Validating())
			if w.ReinvocationPolicy != nil {
				x.ReinvocationPolicy = *w.ReinvocationPolicy
			} else {
				x.ReinvocationPolicy = "Never"
			}
			e.Webhooks = append(e.Webhooks, x)
		}
		out = append(out, e)
	}
	vals, err := src.ValidatingWebhookConfigurations(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range vals {
		if c.Name != name {
			continue
		}
		e := WebhookConfigurationExplanation{Kind: "ValidatingWebhookConfiguration", Name: c.Name, Webhooks: []WebhookExplanation{}}
		for _, w := range c.Webhooks {
			if webhook != "" && w.Name != webhook {
				continue
			}
			e.Webhooks = append(e.Webhooks, s.explainWebhook(ctx, c.Name, false, w))
		}
		out = append(out, e)
	}
	gr := meta.GroupResource{Group: registry.GroupAdmissionRegistration, Resource: "validatingwebhookconfigurations"}
	if len(out) == 0 {
		return nil, meta.NewNotFound(gr, name)
	}
	n := 0
	for _, e := range out {
		n += len(e.Webhooks)
	}
	if n == 0 {
		return nil, meta.NewStatusError(http.StatusNotFound, meta.StatusReasonNotFound, fmt.Sprintf("webhook configuration %q has no webhook named %q", name, webhook))
	}
	return out, nil
}

// explainWebhook explains webhook w of configuration config.
func (s *Server) explainWebhook(ctx context.Context, config string, mutating bool, w admissionregistration.ValidatingWebhook) WebhookExplanation {
	x := WebhookExplanation{Name: w.Name, MatchPolicy: "Equivalent", FailurePolicy: "Fail", SideEffects: "(unset)",
		TimeoutSeconds: int32(admission.DefaultTimeout / time.Second), AdmissionReviewVersions: w.AdmissionReviewVersions,
		NamespaceSelector: selectorString(w.NamespaceSelector), ObjectSelector: selectorString(w.ObjectSelector),
		LastCalls: []admission.Call{}}
	for _, r := range w.Rules {
		x.Rules = append(x.Rules, ruleString(r))
	}
	for _, c := range w.MatchConditions {
		x.MatchConditions = append(x.MatchConditions, c.Name+": "+c.Expression)
	}
	if w.MatchPolicy != nil {
		x.MatchPolicy = *w.MatchPolicy
	}
	if w.FailurePolicy != nil {
		x.FailurePolicy = *w.FailurePolicy
	}
	if w.SideEffects != nil {
		x.SideEffects = *w.SideEffects
	}
	if w.TimeoutSeconds != nil && *w.TimeoutSeconds > 0 {
		x.TimeoutSeconds = *w.TimeoutSeconds
	}
	s.webhookReachability(ctx, &x, w.ClientConfig)
	calls := s.admission.Ring().Calls()
	for i := len(calls) - 1; i >= 0 && len(x.LastCalls) < webhookLastCalls; i-- {
		c := calls[i]
		if c.Configuration == config && c.Webhook == w.Name && c.Mutating == mutating {
			c.Request, c.Response = nil, nil
			x.LastCalls = append(x.LastCalls, c)
		}
	}
	return x
}

// webhookReachability fills x's target, resolution, TLS and advice: the
// Service resolves as the dispatcher resolves it (Endpoints,
// ExternalName), then a TLS handshake captures the serving certificate
// chain and verifies it against caBundle for the server name.
func (s *Server) webhookReachability(ctx context.Context, x *WebhookExplanation, cc admissionregistration.WebhookClientConfig) {
	onFail := "every call fails and failurePolicy Fail refuses the request with 500 InternalError"
	if x.FailurePolicy == "Ignore" {
		onFail = "every call fails and failurePolicy Ignore lets the request through unchecked"
	}
	roots, caBundle, caErr := parseCABundle(cc.CABundle)
	x.CABundle = caBundle
	http1 := false
	switch {
	case cc.URL != nil:
		u, err := url.Parse(*cc.URL)
		if err != nil {
			x.URL = *cc.URL
			x.Problem = "clientConfig.url does not parse: " + err.Error() + "; " + onFail
			x.Advice = "set clientConfig.url to https://<host>:<port>/<path>"
			return
		}
		x.URL, x.ServerName = u.String(), u.Hostname()
		port := u.Port()
		if port == "" {
			port = "443"
		}
		x.Address = net.JoinHostPort(u.Hostname(), port)
	case cc.Service != nil:
		ref := cc.Service
		port := int32(443)
		if ref.Port != nil {
			port = *ref.Port
		}
		http1 = true
		x.ServerName = ref.Name + "." + ref.Namespace + ".svc"
		u := url.URL{Scheme: "https", Host: net.JoinHostPort(x.ServerName, strconv.Itoa(int(port)))}
		if ref.Path != nil {
			u.Path = *ref.Path
		}
		x.URL = u.String()
		x.Service = fmt.Sprintf("%s/%s:%d", ref.Namespace, ref.Name, port)
		loc, err := s.resolver.ResolveEndpoint(ref.Namespace, ref.Name, port)
		if err != nil {
			var nf *proxy.ServiceNotFoundError
			if errors.As(err, &nf) {
				x.Problem = fmt.Sprintf("service %q not found in namespace %q; %s: failed calling webhook %q: failed to call webhook: Post \"%s?timeout=%ds\": service %q not found",
					ref.Name, ref.Namespace, onFail, x.Name, x.URL, x.TimeoutSeconds, ref.Name)
				x.Advice = fmt.Sprintf("create Service %s/%s with port %d and its Endpoints (aggsim runs no endpoints controller), or point clientConfig.service at an existing Service", ref.Namespace, ref.Name, port)
				return
			}
			x.Problem = "the Service does not resolve: " + err.Error() + "; " + onFail
			x.Advice = fmt.Sprintf("give Service %s/%s a port %d and Endpoints with a ready address for it", ref.Namespace, ref.Name, port)
			return
		}
		x.Address = loc.Host
	default:
		x.Problem = "neither clientConfig.url nor clientConfig.service is set; " + onFail
		x.Advice = "set clientConfig.service (or url)"
		return
	}
	chain, herr := captureWebhookChain(ctx, x.Address, x.ServerName, http1)
	for _, c := range chain {
		x.PresentedCertificates = append(x.PresentedCertificates, certs.Describe(c))
	}
	switch {
	case herr != nil && len(chain) == 0:
		x.Problem = "the TLS handshake with " + x.Address + " failed: " + herr.Error() + "; " + onFail
		switch msg := herr.Error(); {
		case strings.Contains(msg, "connection refused"):
			x.Advice = "nothing listens on " + x.Address + ": start the webhook server there, or fix the Endpoints (or url) and port"
		case strings.Contains(msg, "no such host"):
			x.Advice = "the host name does not resolve on this machine; use an IP address or localhost"
		case strings.Contains(msg, "timeout"), strings.Contains(msg, "deadline"):
			x.Advice = "the webhook server did not complete a TLS handshake within " + explainDialTimeout.String() + "; is it overloaded or not speaking TLS?"
		default:
			x.Advice = "the webhook server must serve HTTPS at " + x.Address
		}
		return
	case caErr != nil:
		x.Verification = caErr.Error()
		x.Problem = "clientConfig.caBundle holds no PEM certificate; " + onFail
		x.Advice = "put the PEM of the CA that signed the webhook's serving certificate in clientConfig.caBundle (base64 in YAML)"
		return
	}
	if verr := certs.VerifyFor(chain, roots, x.ServerName); verr != nil {
		x.Verification = verr.Error()
		x.Problem = "the serving certificate does not verify; " + onFail + ": failed calling webhook " + strconv.Quote(x.Name) + ": failed to call webhook: Post \"" + x.URL + "?timeout=" + strconv.Itoa(int(x.TimeoutSeconds)) + "s\": tls: failed to verify certificate: ..."
		x.Advice = x.Verification + "; " + webhookVerifyFix(verr, cc)
		return
	}
	x.Verification = "ok"
	x.Reachable = true
	if len(cc.CABundle) == 0 {
		x.Advice = "none: the webhook answers TLS and its certificate verifies against the system roots for " + x.ServerName
		return
	}
	x.Advice = "none: the webhook answers TLS and its serving certificate verifies against clientConfig.caBundle for " + x.ServerName
}

// webhookVerifyFix is the second half of the advice for a serving
// certificate the dispatcher cannot verify (verifyFix's, in the
// webhook's field names).
func webhookVerifyFix(err error, cc admissionregistration.WebhookClientConfig) string {
	var ve *certs.VerifyError
	if !errors.As(err, &ve) {
		return "fix the serving certificate or clientConfig.caBundle"
	}
	switch ve.Reason {
	case certs.VerifyUnknownAuthority:
		return "put the PEM of the CA that signed it in clientConfig.caBundle"
	case certs.VerifyNameMismatch, certs.VerifyNoSANs, certs.VerifyExpired, certs.VerifyNotYetValid, certs.VerifyWrongUsage:
		if ref := cc.Service; ref != nil {
			return fmt.Sprintf("reissue it for %s.%s.svc (aggsim certs backend --service %s --namespace %s --dir DIR)", ref.Name, ref.Namespace, ref.Name, ref.Namespace)
		}
		return "reissue it for the host of clientConfig.url"
	}
	return "fix the serving certificate or clientConfig.caBundle"
}

// captureWebhookChain dials addr, handshakes with SNI serverName (HTTP/1.1
// for a service webhook, as the dispatcher calls it) without verifying,
// and returns the chain presented.
func captureWebhookChain(ctx context.Context, addr, serverName string, http1 bool) ([]*x509.Certificate, error) {
	var chain []*x509.Certificate
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName, InsecureSkipVerify: true, //nolint:gosec // captured, then verified by certs.VerifyFor
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			for _, der := range raw {
				if c, err := x509.ParseCertificate(der); err == nil {
					chain = append(chain, c)
				}
			}
			return nil
		}}
	if http1 {
		cfg.NextProtos = []string{"http/1.1"}
	} else {
		cfg.NextProtos = []string{"h2", "http/1.1"}
	}
	dctx, cancel := context.WithTimeout(ctx, explainDialTimeout)
	defer cancel()
	d := tls.Dialer{Config: cfg}
	conn, err := d.DialContext(dctx, "tcp", addr)
	if err != nil {
		return chain, err
	}
	_ = conn.Close()
	return chain, nil
}

// ruleString spells out one rule: "CREATE, UPDATE of configmaps in
// group "" (core), versions [v1], scope *".
func ruleString(r admissionregistration.RuleWithOperations) string {
	groups := make([]string, 0, len(r.APIGroups))
	for _, g := range r.APIGroups {
		if g == "" {
			g = `"" (core)`
		}
		groups = append(groups, g)
	}
	scope := "*"
	if r.Scope != nil {
		scope = *r.Scope
	}
	return fmt.Sprintf("%s of %s in groups [%s], versions [%s], scope %s",
		strings.Join(r.Operations, ", "), strings.Join(r.Resources, ", "), strings.Join(groups, ", "), strings.Join(r.APIVersions, ", "), scope)
}

// selectorString writes a label selector as kubectl's selector syntax
// ("" for nil or empty: everything).
func selectorString(sel *meta.LabelSelector) string {
	if sel == nil {
		return ""
	}
	var parts []string
	keys := make([]string, 0, len(sel.MatchLabels))
	for k := range sel.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+"="+sel.MatchLabels[k])
	}
	for _, e := range sel.MatchExpressions {
		switch e.Operator {
		case "In":
			parts = append(parts, e.Key+" in ("+strings.Join(e.Values, ",")+")")
		case "NotIn":
			parts = append(parts, e.Key+" notin ("+strings.Join(e.Values, ",")+")")
		case "Exists":
			parts = append(parts, e.Key)
		case "DoesNotExist":
			parts = append(parts, "!"+e.Key)
		default:
			parts = append(parts, e.Key+" "+e.Operator+" ("+strings.Join(e.Values, ",")+")")
		}
	}
	return strings.Join(parts, ",")
}

// WriteText writes e for a human.
func (e *WebhookConfigurationExplanation) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("%s: %s\n", e.Kind, e.Name)
	for _, x := range e.Webhooks {
		p("Webhook: %s\n", x.Name)
		p("  Matches:      ")
		if len(x.Rules) == 0 {
			p("nothing (no rules)\n")
		}
		for i, r := range x.Rules {
			if i > 0 {
				p("                ")
			}
			p("%s\n", r)
		}
		orAll := func(s, all string) string {
			if s == "" {
				return all
			}
			return s
		}
		p("  Namespaces:   %s\n", orAll(x.NamespaceSelector, "all (no namespaceSelector)"))
		p("  Objects:      %s\n", orAll(x.ObjectSelector, "all (no objectSelector)"))
		if len(x.MatchConditions) == 0 {
			p("  Conditions:   none\n")
		}
		for i, c := range x.MatchConditions {
			if i == 0 {
				p("  Conditions:   %s\n", c)
			} else {
				p("                %s\n", c)
			}
		}
		p("  Policies:     matchPolicy %s, failurePolicy %s, sideEffects %s, timeout %ds", x.MatchPolicy, x.FailurePolicy, x.SideEffects, x.TimeoutSeconds)
		if x.ReinvocationPolicy != "" {
			p(", reinvocationPolicy %s", x.ReinvocationPolicy)
		}
		p("\n")
		p("  Calls:        POST %s (AdmissionReview %s)\n", x.URL, strings.Join(x.AdmissionReviewVersions, ", "))
		webhookEndpoint{Service: x.Service, Address: x.Address, ServerName: x.ServerName, CABundle: x.CABundle,
			PresentedCertificates: x.PresentedCertificates, Verification: x.Verification, Reachable: x.Reachable,
			Problem: x.Problem, Advice: x.Advice}.writeText(p, 14)
		if len(x.LastCalls) == 0 {
			p("  Last calls:   none recorded\n")
			continue
		}
		p("  Last calls (newest first):\n")
		for _, c := range x.LastCalls {
			writeCallLine(p, c)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCallLine writes one recorded webhook call on two lines.
func writeCallLine(p func(string, ...any), c admission.Call) {
	obj := c.Name
	if c.Namespace != "" {
		obj = c.Namespace + "/" + c.Name
	}
	user := c.User
	if user == "" {
		user = "aggsim itself"
	}
	p("    %s  %s %s %s by %s: %s in %.1f ms\n", c.Time.Format(time.RFC3339), c.Operation, c.Resource, obj, user, c.Verdict, c.LatencyMillis)
	switch {
	case c.Verdict == "denied":
		p("      %s\n", c.Message)
	case c.Verdict == "error":
		p("      %s: %s\n", c.Outcome, c.Error)
	}
}

// serveDebugWebhook answers admission.DebugWebhooksPath/<configuration>
// [/<webhook>] with the configuration's explanation: text/plain, or JSON
// ({"configurations":[...]}) when Accept names application/json.
func (s *Server) serveDebugWebhook(w http.ResponseWriter, r *http.Request) {
	if !debugReadOnly(w, r) {
		return
	}
	name := strings.Trim(strings.TrimPrefix(r.URL.Path, admission.DebugWebhooksPath), "/")
	cfg, hook, _ := strings.Cut(name, "/")
	if cfg == "" {
		negotiation.WriteStatus(w, r, meta.NewBadRequest("a webhook configuration name is required: "+admission.DebugWebhooksPath+"/<configuration>[/<webhook>]"))
		return
	}
	es, err := s.ExplainWebhookConfiguration(r.Context(), cfg, hook)
	if err != nil {
		negotiation.WriteStatus(w, r, err)
		return
	}
	if wantsJSON(r) {
		writeDebugJSON(w, struct {
			Configurations []WebhookConfigurationExplanation `json:"configurations"`
		}{es})
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	for i := range es {
		if i > 0 {
			_, _ = io.WriteString(w, "\n")
		}
		_ = es[i].WriteText(w)
	}
}

// webhookEndpoint is where an admission or conversion webhook is called
// and whether it answers, as both explanations' text shows it.
type webhookEndpoint struct {
	Service, Address, ServerName    string
	CABundle, PresentedCertificates []certs.CertSummary
	Verification                    string
	Reachable                       bool
	Problem, Advice                 string
}

// writeText writes x's lines with p, each label ("Service:", ...)
// indented by two spaces and padded to width.
func (x webhookEndpoint) writeText(p func(string, ...any), width int) {
	line := func(label, format string, args ...any) {
		p("  %-*s"+format+"\n", append([]any{width, label}, args...)...)
	}
	if x.Service != "" {
		line("Service:", "%s", x.Service)
	}
	if x.Address != "" {
		line("Resolved:", "%s", x.Address)
	}
	if x.ServerName != "" {
		bundle := "no caBundle (system roots)"
		if len(x.CABundle) > 0 {
			subj := make([]string, len(x.CABundle))
			for i, c := range x.CABundle {
				subj[i] = c.Subject
			}
			bundle = "caBundle [" + strings.Join(subj, "; ") + "]"
		}
		line("TLS:", "ServerName %s, %s", x.ServerName, bundle)
	}
	for i, c := range x.PresentedCertificates {
		line("Presented:", "[%d] %s, SANs [%s], issued by %s", i, c.Subject, strings.Join(c.SANs(), ", "), c.Issuer)
	}
	if x.Verification != "" {
		line("Verification:", "%s", x.Verification)
	}
	if x.Reachable {
		line("Reachable:", "yes")
	} else {
		line("Reachable:", "no: %s", x.Problem)
	}
	line("Advice:", "%s", x.Advice)
}
