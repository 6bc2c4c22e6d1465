package aggregatortest

import (
	"net/http"
	"testing"
)

// celGoldenDir holds what kube-apiserver 1.33.13 answered to the steps of
// steps.txt: CRDs whose x-kubernetes-validations the server refuses
// (reason, fieldPath, messageExpression, oldSelf where nothing
// correlates, optionalOldSelf), and creates and merge patches of custom
// resources failing rules with each reason, fieldPath and
// messageExpression (runtime errors of a rule and of a messageExpression,
// a messageExpression result over 5000 characters), and transition rules on list-map items, map values,
// set items and the whole object. Captured from ../shared/reference/up.sh
// (NO_BACKEND=1, API_PORT=7643) by this test's own replay loop:
//
//	CONV_CAPTURE=https://127.0.0.1:7643 CONV_PKI=/tmp/ref-ref16/pki \
//	  go test ./aggregator/aggregatortest -run TestCRDValidationRulesMatchReference
const celGoldenDir = "../../testdata/crd-cel"

// noWebhook is an armedWebhook that no step calls.
type noWebhook struct{ webhookCallLog }

func (n *noWebhook) arm(string) {}

func (n *noWebhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.record(r)
	http.Error(w, "not expected", http.StatusInternalServerError)
}

// TestCRDValidationRulesMatchReference replays crd-cel/steps.txt and
// compares status codes, Warning headers and Status bodies with
// kube-apiserver 1.33.13's.
func TestCRDValidationRulesMatchReference(t *testing.T) {
	replayArmedSteps(t, celGoldenDir, "steps.txt", "ref", "nowh", &noWebhook{}, true, 30, nil)
}
