package aggregator

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/aggsim/aggsim/aggregator/admission"
)

// mutatingPolicySummaries summarises the MutatingAdmissionPolicies for
// AdmissionOverview: failurePolicy, bindings ("<binding> (reinvocation
// <policy>)"), and how many of refusals they made. nil when none exist
// (or the group/version is not served).
func (s *Server) mutatingPolicySummaries(ctx context.Context, refusals []admission.Refusal) ([]AdmissionPolicySummary, error) {
	src := serverAdmissionSource{s}
	pols, err := src.MutatingAdmissionPolicies(ctx)
	if err != nil || len(pols) == 0 {
		return nil, err
	}
	binds, err := src.MutatingAdmissionPolicyBindings(ctx)
	if err != nil {
		return nil, err
	}
	var out []AdmissionPolicySummary
	for _, p := range pols {
		ps := AdmissionPolicySummary{Name: p.Name, FailurePolicy: "Fail", Bindings: []string{}}
		if p.Spec.FailurePolicy != nil {
			ps.FailurePolicy = *p.Spec.FailurePolicy
		}
		for _, b := range binds {
			if b.Spec.PolicyName == p.Name {
				ps.Bindings = append(ps.Bindings, b.Name)
			}
		}
		sort.Strings(ps.Bindings)
		for _, r := range refusals {
			if r.By == "policy" && r.Mutating && r.Policy == p.Name {
				ps.Refusals++
			}
		}
		out = append(out, ps)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// writeMutatingPolicies writes the MutatingAdmissionPolicies table of
// AdmissionOverview.WriteText (nothing when there are none).
func writeMutatingPolicies(w io.Writer, ps []AdmissionPolicySummary) {
	if len(ps) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "MUTATING POLICY\tFAILUREPOLICY\tBINDINGS\tREFUSALS")
	for _, p := range ps {
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\n", p.Name, p.FailurePolicy, joinOr(p.Bindings, "none (the policy does nothing)"), p.Refusals)
	}
}
