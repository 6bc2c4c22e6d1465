package aggregatortest

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aggsim/aggsim/aggregator"
)

// TestExplainCRDConversionWebhook pins `aggsim explain crd`'s text for a
// two-version CRD whose conversion webhook answers (a read in v2 of an
// object stored in v1), then refuses (a Failure result the client gets as
// upstream's 500), then presents a certificate the caBundle does not
// verify.
func TestExplainCRDConversionWebhook(t *testing.T) {
	s := Start(t, WithCRDObjects(widgetsCRD(t)))
	var fail atomic.Bool
	wh := s.RegisterConversionWebhook(t, ConversionWebhookOptions{CRD: "widgets.conv.example.com", Handler: func(o map[string]any, to string) (map[string]any, error) {
		if fail.Load() {
			return nil, errors.New("no ham in v2")
		}
		return convertToppings(o, to), nil
	}})
	const v1, v2 = "/apis/conv.example.com/v1/namespaces/default/widgets", "/apis/conv.example.com/v2/namespaces/default/widgets"
	if code, _, out := doJSON(t, s, http.MethodPost, v1, `{"apiVersion":"conv.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"toppings":["ham"]}}`); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, out)
	}
	if code, _, out := doJSON(t, s, http.MethodGet, v2+"/w1", ""); code != http.StatusOK {
		t.Fatalf("get v2: %d %s", code, out)
	}
	fail.Store(true)
	if code, _, out := doJSON(t, s, http.MethodGet, v2+"/w1", ""); code != http.StatusInternalServerError {
		t.Fatalf("get v2 failing: %d %s", code, out)
	}
	code, got := getText(t, s, aggregator.DebugCRDsPath+"/widgets.conv.example.com", "")
	want := `CustomResourceDefinition: widgets.conv.example.com
Kind:            Widget (Namespaced) in group conv.example.com
Versions:
  v1: served, storage; APIService v1.conv.example.com Available=True
  v2: served; APIService v2.conv.example.com Available=True
Conditions:
  NamesAccepted=True (NoConflicts): no conflicts found
  Established=True (InitialNamesAccepted): the initial names have been accepted
StoredVersions:  [v1]
Conversion:      Webhook (ConversionReview v1)
  Calls:         POST https://widgets-conv-example-com.webhooks.svc:443/convert?timeout=30s
  Service:       webhooks/widgets-conv-example-com:443
  Resolved:      127.0.0.1:PORT
  TLS:           ServerName widgets-conv-example-com.webhooks.svc, caBundle [CN=aggsim-backend-ca]
  Presented:     [0] CN=widgets-conv-example-com.webhooks.svc, SANs [widgets-conv-example-com.webhooks.svc, widgets-conv-example-com.webhooks.svc.cluster.local, localhost, 127.0.0.1, ::1], issued by CN=aggsim-backend-ca
  Verification:  ok
  Reachable:     yes
  Advice:        none: the webhook answers TLS and its serving certificate verifies against spec.conversion.webhook.clientConfig.caBundle for widgets-conv-example-com.webhooks.svc
Last conversions (newest first):
`
	// the read that failed is the newest; before it come the read that
	// worked and any list in v2 (the preferred version) the garbage
	// collector's informers made meanwhile
	calls := regexp.MustCompile(`\A  TIME  conv\.example\.com/v1 -> conv\.example\.com/v2, 1 object in N ms: failed
    conversion webhook for conv\.example\.com/v1, Kind=Widget failed: no ham in v2
(?:  TIME  conv\.example\.com/v1 -> conv\.example\.com/v2, 1 object in N ms: ok\n){1,4}Last failure:
  TIME  conv\.example\.com/v1 -> conv\.example\.com/v2, 1 object in N ms: failed
    conversion webhook for conv\.example\.com/v1, Kind=Widget failed: no ham in v2
\z`)
	head, tail, _ := strings.Cut(normaliseExplain(got), "Last conversions (newest first):\n")
	if code != http.StatusOK || head+"Last conversions (newest first):\n" != want || !calls.MatchString(tail) {
		t.Errorf("explain crd: %d\n%s\nwant:\n%s%s", code, normaliseExplain(got), want, calls)
	}

	wh.PresentWrongCertificate()
	_, got = getText(t, s, aggregator.DebugCRDsPath+"/widgets.conv.example.com", "application/json")
	var e aggregator.CRDExplanation
	if err := json.Unmarshal([]byte(got), &e); err != nil {
		t.Fatal(err)
	}
	if e.Webhook == nil || e.Webhook.Reachable || e.Webhook.Problem != "the serving certificate does not verify; every read, write or list in a version other than the stored one fails with 500 InternalError: conversion webhook for conv.example.com/<from version>, Kind=Widget failed: ..." || e.Webhook.Advice != "the serving certificate has SANs [not-widgets-conv-example-com.webhooks.svc], the aggregator expects widgets-conv-example-com.webhooks.svc; reissue it for widgets-conv-example-com.webhooks.svc (aggsim certs backend --service widgets-conv-example-com --namespace webhooks --dir DIR)" {
		t.Errorf("wrong certificate: %s", got)
	}
	if e.LastFailure == nil || e.LastFailure.Error != "conversion webhook for conv.example.com/v1, Kind=Widget failed: no ham in v2" || len(e.LastConversions) < 2 || e.LastConversions[0].Result != "failed" || e.LastConversions[1].Result != "ok" {
		t.Errorf("last failure: %s", got)
	}

	code, got = getText(t, s, aggregator.DebugCRDsPath+"/nope.conv.example.com", "")
	if want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"customresourcedefinitions.apiextensions.k8s.io \"nope.conv.example.com\" not found","reason":"NotFound","details":{"name":"nope.conv.example.com","group":"apiextensions.k8s.io","kind":"customresourcedefinitions"},"code":404}` + "\n"; code != http.StatusNotFound || got != want {
		t.Errorf("missing CRD: %d %q", code, got)
	}
}
