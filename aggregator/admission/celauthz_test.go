package admission

import (
	"context"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Webhook matchConditions see namespaceObject as null and may use the
// authorizer: kube-apiserver 1.33.13 calls (and here fails to reach) the
// webhook when `namespaceObject == null` and
// `authorizer.requestResource.check('create').allowed()` hold, and skips it
// when a condition is false (checked with kubectl against both, a webhook
// at https://127.0.0.1:1/x with failurePolicy Fail).
func TestWebhookMatchConditionsNamespaceObjectAndAuthorizer(t *testing.T) {
	src := benchPolicySource()
	src.policies, src.bindings = nil, nil
	src.validating = []*admissionregistration.ValidatingWebhookConfiguration{{ObjectMeta: meta.ObjectMeta{Name: "vc-mc"},
		Webhooks: []admissionregistration.ValidatingWebhook{{Name: "mc.example.com",
			ClientConfig: admissionregistration.WebhookClientConfig{URL: ptr("https://127.0.0.1:1/x")},
			Rules:        []admissionregistration.RuleWithOperations{rule([]string{"CREATE"}, "configmaps")},
			SideEffects:  ptr("None"), AdmissionReviewVersions: []string{"v1"}, FailurePolicy: ptr("Fail"),
			MatchConditions: []admissionregistration.MatchCondition{
				{Name: "ns", Expression: "namespaceObject == null"},
				{Name: "authz", Expression: "authorizer.requestResource.check('create').allowed() && object.metadata.name != 'skip'"}}}}}}
	d := New(Options{Source: src})
	err := d.Validate(context.Background(), createAttrs(&core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "a", Namespace: "prod"}}))
	const want = `failed calling webhook "mc.example.com": failed to call webhook: Post "https://127.0.0.1:1/x?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want the call to fail with %s", err, want)
	}
	if src.checks != 1 {
		t.Fatalf("authorizer called %d times, want 1", src.checks)
	}
	if err := d.Validate(context.Background(), createAttrs(&core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "skip", Namespace: "prod"}})); err != nil {
		t.Fatalf("skipped webhook called: %v", err)
	}
}
