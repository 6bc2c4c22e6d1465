package aggregatortest

import "testing"

// TestPolicyCELMatchesReference replays vapcel-steps.txt, captured from a
// freshly started kube-apiserver 1.33.13 with
// testdata/admission/webhooks/vapcel-capture.sh (see its header):
//   - namespaceObject: the request's Namespace with upstream's fields
//     (labels, annotations, resourceVersion, phase, spec.finalizers; no
//     generation; `UID` is never set), a policy denying configmaps without
//     data in an env=prod namespace, and null (with its `no such key:
//     metadata` error) when a Namespace itself is created or patched;
//   - runtime cost limits: one expression beyond the per-call limit
//     (`operation cancelled: actual cost limit exceeded`), forty that
//     exhaust the 10,000,000 budget (`validation failed due to running
//     out of cost budget, ...`) under Deny, Warn and failurePolicy Ignore,
//     and nine that stay within it.
func TestPolicyCELMatchesReference(t *testing.T) {
	replayAdmissionSteps(t, "vapcel-steps.txt", 27, nil)
}
