package aggregator

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aggsim/aggsim/aggregator/admission"
)

// DebugAdmissionRefusalsPath lists the last requests admission refused
// (webhooks and ValidatingAdmissionPolicies), newest first: text/plain,
// or JSON ({"refusals":[...]}) when Accept names application/json.
const DebugAdmissionRefusalsPath = "/debug/aggsim/admission/refusals"

// installWebhookExplainRoutes registers admission.DebugWebhooksPath/<name>
// (explain_webhook.go) and DebugAdmissionRefusalsPath, behind the same
// authorization as the other /debug/aggsim paths.
func (s *Server) installWebhookExplainRoutes() {
	s.mux.UnlistedHandlePrefix(admission.DebugWebhooksPath+"/", http.HandlerFunc(s.serveDebugWebhook))
	s.mux.UnlistedHandle(DebugAdmissionRefusalsPath, http.HandlerFunc(s.serveDebugRefusals))
	s.mux.UnlistedHandle(DebugAdmissionPath, http.HandlerFunc(s.serveDebugAdmission)) // explain_webhook_overview.go
}

// WriteRefusals writes refusals for a human, newest first, or a line
// saying there are none.
func WriteRefusals(w io.Writer, refusals []admission.Refusal) error {
	var b strings.Builder
	if len(refusals) == 0 {
		b.WriteString("No request was refused by an admission webhook or a ValidatingAdmissionPolicy since aggsim started.\n")
	}
	for i, r := range refusals {
		if i > 0 {
			b.WriteString("\n")
		}
		obj := r.Name
		if r.Namespace != "" {
			obj = r.Namespace + "/" + r.Name
		}
		switch r.By {
		case "policy":
			kind := "ValidatingAdmissionPolicy"
			if r.Mutating {
				kind = "MutatingAdmissionPolicy"
			}
			fmt.Fprintf(&b, "%s  refused by %s %s (binding %s)\n", r.Time.Format(time.RFC3339), kind, r.Policy, r.Binding)
		default:
			kind := "ValidatingWebhookConfiguration"
			if r.Mutating {
				kind = "MutatingWebhookConfiguration"
			}
			how := "denied"
			if r.FailurePolicy != "" {
				how = "call failed, failurePolicy " + r.FailurePolicy
			}
			fmt.Fprintf(&b, "%s  refused by webhook %s (%s %s; %s)\n", r.Time.Format(time.RFC3339), r.Webhook, kind, r.Configuration, how)
		}
		fmt.Fprintf(&b, "  Request:  %s %s %s by %s\n", r.Operation, r.Resource, obj, r.User)
		fmt.Fprintf(&b, "  Answer:   %d %s\n", r.Code, r.Message)
		if r.By == "webhook" {
			fmt.Fprintf(&b, "  Explain:  aggsim explain webhook %s/%s\n", r.Configuration, r.Webhook)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// serveDebugRefusals answers DebugAdmissionRefusalsPath.
func (s *Server) serveDebugRefusals(w http.ResponseWriter, r *http.Request) {
	if !debugReadOnly(w, r) {
		return
	}
	refusals := s.admission.Refusals()
	writeExplanation(w, r, struct {
		Refusals []admission.Refusal `json:"refusals"`
	}{refusals}, func(w io.Writer) error { return WriteRefusals(w, refusals) })
}
