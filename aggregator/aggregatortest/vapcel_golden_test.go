package aggregatortest

import (
	"testing"

	"github.com/aggsim/aggsim/aggregator"
)

// TestPolicyCELMatchesReference replays vapcel-steps.txt, captured from a
// freshly started kube-apiserver 1.33.13 with
// testdata/admission/webhooks/vapcel-capture.sh (see its header):
//   - namespaceObject: the request's Namespace with upstream's fields
//     (labels, annotations, resourceVersion, phase, spec.finalizers; no
//     generation; `UID` is never set), a policy denying configmaps without
//     data in an env=prod namespace, a typed timestamp read as a string
//     (`no such overload: string(string)`), and null (with its `no such key:
//     metadata` error) when a Namespace itself is created or patched;
//   - runtime cost limits: one expression beyond the per-call limit
//     (`operation cancelled: actual cost limit exceeded`), forty that
//     exhaust the 10,000,000 budget (`validation failed due to running
//     out of cost budget, ...`) under Deny, Warn and failurePolicy Ignore,
//     and nine that stay within it.
func TestPolicyCELMatchesReference(t *testing.T) {
	replayAdmissionSteps(t, "vapcel-steps.txt", 27, nil)
}

// TestPolicyAuthorizerMatchesReference replays vapcel-authz-steps.txt
// (captured as vapcel-steps.txt): a policy whose variables hold
// authorizer decisions (for the request's user, a system:masters admin;
// for authorizer.serviceAccount with and without a RoleBinding, on
// resources, subresources, names, selectors and paths; and
// authorizer.requestResource), each shown through the error of a map
// lookup by its allowed, reason (RBAC's `allowed by RoleBinding ...`),
// errored and error; two checks fit in one expression's cost limit,
// three do not.
func TestPolicyAuthorizerMatchesReference(t *testing.T) {
	replayAdmissionSteps(t, "vapcel-authz-steps.txt", 6, map[string]string{
		"vc-authz-policy": "managedFields: upstream's Variable is atomic, aggsim tracks its fields",
	}, WithAggregatorOptions(func(o *aggregator.Options) { o.AuthorizationMode = "RBAC" }))
}

// TestPolicyVariableErrorsMatchReference replays vapcel-vars-steps.txt
// (captured as vapcel-steps.txt): reading a variable whose expression
// failed fails with `composited variable "x" fails to evaluate: <err>`,
// nested for a variable built from it; a typed variable in a
// messageExpression; thirty messageExpressions that exhaust what the
// validations left of the budget make every failed validation's message
// `failed messageExpression: validation failed due to running out of cost
// budget, ...` (one Warning), an evaluation error keeps its own.
func TestPolicyVariableErrorsMatchReference(t *testing.T) {
	replayAdmissionSteps(t, "vapcel-vars-steps.txt", 7, map[string]string{
		"vc-varerr-policy": "managedFields: upstream's Variable is atomic, aggsim tracks its fields",
	})
}
