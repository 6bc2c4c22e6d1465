package aggregator_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// get sends GET path to s as the admin and returns the status and body.
func get(t *testing.T, s *aggregatortest.Server, path string, hdr ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest("GET", s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// A fresh server's watches begin after its first write (the service IP
// range record), as a fresh kube-apiserver 1.33.13's watch caches begin at
// revision 2: a watch from resourceVersion 1 answered exactly this event
// (scenario watch-too-old; curl
// '/api/v1/namespaces/hw1/configmaps?watch=1&timeoutSeconds=1&resourceVersion=1').
func TestFreshServerWatchFromRevisionOneIsTooOld(t *testing.T) {
	s := aggregatortest.Start(t)
	code, _, body := get(t, s, "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1&resourceVersion=1")
	const want = `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (2)","reason":"Expired","code":410}}`
	if code != http.StatusOK || strings.TrimSpace(body) != want {
		t.Errorf("watch from 1: %d %s\nwant %s", code, body, want)
	}
	code, _, body = get(t, s, "/api/v1/namespaces?watch=1&timeoutSeconds=1&resourceVersion=2")
	if code != http.StatusOK || !strings.Contains(body, `"type":"ADDED"`) || strings.Contains(body, `"ERROR"`) {
		t.Errorf("watch from 2 (the bootstrap namespaces are replayed): %d %s", code, body)
	}
}

var reTime = regexp.MustCompile(`"time":"[^"]+"`)

// The built-in namespaces and the automanaged local APIServices carry the
// managedFields kube-apiserver 1.33.13's own controllers write: one Update
// entry of manager "kube-apiserver" owning the fields they set (scenarios
// ns-builtin, apisvc-builtin, apisvc-list-selector; curl of
// /api/v1/namespaces/kube-system and the APIServices below, times
// replaced by T). The Local Available condition adds no entry.
func TestBootstrapObjectsManagedFields(t *testing.T) {
	s := aggregatortest.Start(t)
	nsFields := `[{"manager":"kube-apiserver","operation":"Update","apiVersion":"v1","time":"T","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:kubernetes.io/metadata.name":{}}}}}]`
	cases := []struct{ path, want string }{
		{"/api/v1/namespaces/default", nsFields},
		{"/api/v1/namespaces/kube-system", nsFields},
		{"/api/v1/namespaces/kube-public", nsFields},
		{"/api/v1/namespaces/kube-node-lease", nsFields},
		{"/apis/apiregistration.k8s.io/v1/apiservices/v1.", `[{"manager":"kube-apiserver","operation":"Update","apiVersion":"apiregistration.k8s.io/v1","time":"T","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:kube-aggregator.kubernetes.io/automanaged":{}}},"f:spec":{"f:groupPriorityMinimum":{},"f:version":{},"f:versionPriority":{}}}}]`},
		{"/apis/apiregistration.k8s.io/v1/apiservices/v1.authorization.k8s.io", `[{"manager":"kube-apiserver","operation":"Update","apiVersion":"apiregistration.k8s.io/v1","time":"T","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:kube-aggregator.kubernetes.io/automanaged":{}}},"f:spec":{"f:group":{},"f:groupPriorityMinimum":{},"f:version":{},"f:versionPriority":{}}}}]`},
	}
	for _, c := range cases {
		code, _, body := get(t, s, c.path)
		var obj struct {
			Metadata struct {
				ManagedFields json.RawMessage `json:"managedFields"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(body), &obj); err != nil || code != http.StatusOK {
			t.Fatalf("GET %s: %d %v %s", c.path, code, err, body)
		}
		var buf bytes.Buffer
		_ = json.Compact(&buf, obj.Metadata.ManagedFields)
		if got := reTime.ReplaceAllString(buf.String(), `"time":"T"`); got != c.want {
			t.Errorf("%s managedFields\n%s\nwant\n%s", c.path, got, c.want)
		}
	}
}

// The APF bootstrap objects carry the producer's Update entry (and a
// FlowSchema the consumer's Dangling Apply entry first), now recorded by
// rest.ObjectWriter's field manager: these are the bytes the producer's
// former hand-built entries gave (aggsim before the review branch
// reviewctl, fresh data dir, curl of the objects below, times replaced by
// T); README lists the manager names as kube-apiserver 1.33.13's.
func TestAPFBootstrapManagedFields(t *testing.T) {
	s := aggregatortest.Start(t)
	const fc = "/apis/flowcontrol.apiserver.k8s.io/v1/"
	producerMeta := `"f:metadata":{"f:annotations":{".":{},"f:apf.kubernetes.io/autoupdate-spec":{}}}`
	cases := []struct{ path, want string }{
		{fc + "flowschemas/global-default", `[{"manager":"api-priority-and-fairness-config-consumer-v1","operation":"Apply","apiVersion":"flowcontrol.apiserver.k8s.io/v1","time":"T","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{"k:{\"type\":\"Dangling\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}}}},"subresource":"status"},` +
			`{"manager":"api-priority-and-fairness-config-producer-v1","operation":"Update","apiVersion":"flowcontrol.apiserver.k8s.io/v1","time":"T","fieldsType":"FieldsV1","fieldsV1":{` + producerMeta + `,"f:spec":{"f:distinguisherMethod":{".":{},"f:type":{}},"f:matchingPrecedence":{},"f:priorityLevelConfiguration":{"f:name":{}},"f:rules":{}}}}]`},
		{fc + "prioritylevelconfigurations/exempt", `[{"manager":"api-priority-and-fairness-config-producer-v1","operation":"Update","apiVersion":"flowcontrol.apiserver.k8s.io/v1","time":"T","fieldsType":"FieldsV1","fieldsV1":{` + producerMeta + `,"f:spec":{"f:exempt":{".":{},"f:lendablePercent":{},"f:nominalConcurrencyShares":{}},"f:type":{}}}}]`},
		{fc + "prioritylevelconfigurations/global-default", `[{"manager":"api-priority-and-fairness-config-producer-v1","operation":"Update","apiVersion":"flowcontrol.apiserver.k8s.io/v1","time":"T","fieldsType":"FieldsV1","fieldsV1":{` + producerMeta + `,"f:spec":{"f:limited":{".":{},"f:lendablePercent":{},"f:limitResponse":{".":{},"f:queuing":{".":{},"f:handSize":{},"f:queueLengthLimit":{},"f:queues":{}},"f:type":{}},"f:nominalConcurrencyShares":{}},"f:type":{}}}}]`},
	}
	for _, c := range cases {
		code, _, body := get(t, s, c.path)
		var obj struct {
			Metadata struct {
				ManagedFields json.RawMessage `json:"managedFields"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(body), &obj); err != nil || code != http.StatusOK {
			t.Fatalf("GET %s: %d %v %s", c.path, code, err, body)
		}
		var buf bytes.Buffer
		_ = json.Compact(&buf, obj.Metadata.ManagedFields)
		if got := reTime.ReplaceAllString(buf.String(), `"time":"T"`); got != c.want {
			t.Errorf("%s managedFields\n%s\nwant\n%s", c.path, got, c.want)
		}
	}
}
