package aggregator

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aggsim/aggsim/aggregator/admission"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// DebugAdmissionPath answers AdmissionOverview (JSON, or text): every webhook
// configuration and ValidatingAdmissionPolicy with their recent calls and
// refusals (the inspector's admission panel reads it).
const DebugAdmissionPath = "/debug/aggsim/admission"

// AdmissionOverview lists the webhook configurations (by kind, then name)
// and policies (by name) with, per webhook, its last recorded call and
// the number of calls kept, and the last refusals (newest first).
type AdmissionOverview struct {
	Configurations []AdmissionConfigurationSummary `json:"configurations"`
	Policies       []AdmissionPolicySummary        `json:"policies"`
	// MutatingPolicies are the MutatingAdmissionPolicies (their bindings
	// without actions), when admissionregistration.k8s.io/v1alpha1 is
	// served (explain_mutating_policies.go).
	MutatingPolicies []AdmissionPolicySummary `json:"mutatingPolicies,omitempty"`
	Refusals         []admission.Refusal      `json:"refusals"`
}

// AdmissionConfigurationSummary is one webhook configuration.
type AdmissionConfigurationSummary struct {
	Kind     string                    `json:"kind"`
	Name     string                    `json:"name"`
	Webhooks []AdmissionWebhookSummary `json:"webhooks"`
}

// AdmissionWebhookSummary is one webhook: its failurePolicy, how many
// calls the ring keeps for it and the latest one (bodies left out).
type AdmissionWebhookSummary struct {
	Name          string          `json:"name"`
	FailurePolicy string          `json:"failurePolicy"`
	Calls         int             `json:"calls"`
	LastCall      *admission.Call `json:"lastCall,omitempty"`
}

// AdmissionPolicySummary is one ValidatingAdmissionPolicy: its bindings
// ("<binding> (<actions>)"), failurePolicy, and how many of the kept
// refusals it made.
type AdmissionPolicySummary struct {
	Name          string   `json:"name"`
	FailurePolicy string   `json:"failurePolicy"`
	Bindings      []string `json:"bindings"`
	Refusals      int      `json:"refusals"`
}

// AdmissionOverview reads the configurations and policies now. Errors
// are store errors.
func (s *Server) AdmissionOverview(ctx context.Context) (*AdmissionOverview, error) {
	src := serverAdmissionSource{s}
	o := &AdmissionOverview{Configurations: []AdmissionConfigurationSummary{}, Policies: []AdmissionPolicySummary{}, Refusals: s.admission.Refusals()}
	calls := s.admission.Ring().Calls()
	summarise := func(kind, config string, mutating bool, name string, fp *string) AdmissionWebhookSummary {
		w := AdmissionWebhookSummary{Name: name, FailurePolicy: "Fail"}
		if fp != nil {
			w.FailurePolicy = *fp
		}
		for i := len(calls) - 1; i >= 0; i-- {
			c := calls[i]
			if c.Configuration != config || c.Webhook != name || c.Mutating != mutating {
				continue
			}
			if w.LastCall == nil {
				c.Request, c.Response = nil, nil
				w.LastCall = &c
			}
			w.Calls++
		}
		return w
	}
	muts, err := src.MutatingWebhookConfigurations(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range muts {
		cs := AdmissionConfigurationSummary{Kind: "MutatingWebhookConfiguration", Name: c.Name, Webhooks: []AdmissionWebhookSummary{}}
		for _, w := range c.Webhooks {
			cs.Webhooks = append(cs.Webhooks, summarise(cs.Kind, c.Name, true, w.Name, w.FailurePolicy))
		}
		o.Configurations = append(o.Configurations, cs)
	}
	vals, err := src.ValidatingWebhookConfigurations(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range vals {
		cs := AdmissionConfigurationSummary{Kind: "ValidatingWebhookConfiguration", Name: c.Name, Webhooks: []AdmissionWebhookSummary{}}
		for _, w := range c.Webhooks {
			cs.Webhooks = append(cs.Webhooks, summarise(cs.Kind, c.Name, false, w.Name, w.FailurePolicy))
		}
		o.Configurations = append(o.Configurations, cs)
	}
	sort.SliceStable(o.Configurations, func(i, j int) bool {
		a, b := o.Configurations[i], o.Configurations[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Name < b.Name
	})
	pols, err := src.ValidatingAdmissionPolicies(ctx)
	if err != nil {
		return nil, err
	}
	binds, err := src.ValidatingAdmissionPolicyBindings(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range pols {
		ps := AdmissionPolicySummary{Name: p.Name, FailurePolicy: "Fail", Bindings: []string{}}
		if p.Spec.FailurePolicy != nil {
			ps.FailurePolicy = *p.Spec.FailurePolicy
		}
		for _, b := range binds {
			if b.Spec.PolicyName == p.Name {
				ps.Bindings = append(ps.Bindings, b.Name+" ("+joinOr(b.Spec.ValidationActions, "no actions")+")")
			}
		}
		sort.Strings(ps.Bindings)
		for _, r := range o.Refusals {
			if r.By == "policy" && !r.Mutating && r.Policy == p.Name {
				ps.Refusals++
			}
		}
		o.Policies = append(o.Policies, ps)
	}
	sort.Slice(o.Policies, func(i, j int) bool { return o.Policies[i].Name < o.Policies[j].Name })
	if o.MutatingPolicies, err = s.mutatingPolicySummaries(ctx, o.Refusals); err != nil {
		return nil, err
	}
	return o, nil
}

// joinOr joins xs with ", ", or returns none when xs is empty.
func joinOr(xs []string, none string) string {
	if len(xs) == 0 {
		return none
	}
	out := xs[0]
	for _, x := range xs[1:] {
		out += ", " + x
	}
	return out
}

// serveDebugAdmission answers DebugAdmissionPath: JSON when Accept names
// application/json, else AdmissionOverview.WriteText.
func (s *Server) serveDebugAdmission(w http.ResponseWriter, r *http.Request) {
	if !debugReadOnly(w, r) {
		return
	}
	o, err := s.AdmissionOverview(r.Context())
	if err != nil {
		negotiation.WriteStatus(w, r, err)
		return
	}
	writeExplanation(w, r, o, o.WriteText)
}

// WriteText writes o for a human: one line per webhook, one per policy,
// and how many refusals are kept.
func (o *AdmissionOverview) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	if len(o.Configurations) == 0 {
		fmt.Fprintln(tw, "No Mutating or ValidatingWebhookConfiguration.")
	} else {
		fmt.Fprintln(tw, "KIND\tCONFIGURATION\tWEBHOOK\tFAILUREPOLICY\tCALLS\tLAST CALL")
		for _, c := range o.Configurations {
			kind := strings.TrimSuffix(c.Kind, "WebhookConfiguration")
			for _, wh := range c.Webhooks {
				last := "none"
				if lc := wh.LastCall; lc != nil {
					last = fmt.Sprintf("%s %s %s at %s", lc.Verdict, lc.Operation, lc.Resource, lc.Time.Format(time.RFC3339))
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", kind, c.Name, wh.Name, wh.FailurePolicy, wh.Calls, last)
			}
		}
	}
	fmt.Fprintln(tw)
	if len(o.Policies) == 0 {
		fmt.Fprintln(tw, "No ValidatingAdmissionPolicy.")
	} else {
		fmt.Fprintln(tw, "POLICY\tFAILUREPOLICY\tBINDINGS\tREFUSALS")
		for _, p := range o.Policies {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", p.Name, p.FailurePolicy, joinOr(p.Bindings, "none (the policy does nothing)"), p.Refusals)
		}
	}
	writeMutatingPolicies(tw, o.MutatingPolicies) // explain_mutating_policies.go
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "Refusals kept: %d (aggsim explain webhook --last-denied); one webhook: aggsim explain webhook CONFIGURATION[/WEBHOOK]\n", len(o.Refusals))
	return tw.Flush()
}
