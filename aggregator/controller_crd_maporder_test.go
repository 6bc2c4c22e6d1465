package aggregator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// mapOrderCaptures are the captured invalid objects whose causes
// kube-apiserver 1.33.13 reports in Go map order: the object has schema
// errors under sibling properties, and upstream's validator walks an
// object's properties by ranging over a map. Twelve identical dry-run
// POSTs of each gave several orders, e.g. for the Certificate
//
//	for i in $(seq 12); do y2j fixtures/objects/certificates.cert-manager.io/bad-02-enums.yaml |
//	  acurl -X POST -H 'Content-Type: application/json' --data-binary @- \
//	  'https://127.0.0.1:18400/apis/cert-manager.io/v1/namespaces/default/certificates?fieldValidation=Strict&dryRun=All' |
//	  jq -r '[.details.causes[].field]|join(" ")'; done | sort | uniq -c
//
// answered 3 orders (usages[1] first 10 times, privateKey.* first twice,
// privateKey's three fields in 3 orders) and the HTTPRoute 5 orders. For
// these, the test compares the Status with the causes sorted and the
// message rebuilt from them, after checking that each side's message
// lists its own causes in its own order.
var mapOrderCaptures = map[string]bool{
	"certificates.cert-manager.io/bad-02-enums.status.client.txt":                  true,
	"httproutes.gateway.networking.k8s.io/bad-09-enum-and-range.status.client.txt": true,
}

// invalidStatus is a 422 Status in upstream's field order.
type invalidStatus struct {
	Kind       string          `json:"kind"`
	APIVersion string          `json:"apiVersion"`
	Metadata   json.RawMessage `json:"metadata"`
	Status     string          `json:"status"`
	Message    string          `json:"message"`
	Reason     string          `json:"reason"`
	Details    struct {
		Name   string `json:"name"`
		Group  string `json:"group"`
		Kind   string `json:"kind"`
		Causes []struct {
			Reason  string `json:"reason"`
			Message string `json:"message"`
			Field   string `json:"field"`
		} `json:"causes"`
	} `json:"details"`
	Code int `json:"code"`
}

// sortedCauses returns the Status answer (body, a newline and
// "[HTTP code]") with its causes sorted by field and message and its
// message rebuilt in that order. It fails when the message does not list
// the causes in their given order, the way upstream's aggregate
// ("<Kind>.<group> \"name\" is invalid: [f1: m1, f2: m2]") does.
func sortedCauses(t *testing.T, answer string) string {
	t.Helper()
	body, code, ok := strings.Cut(answer, "\n[HTTP ")
	if !ok {
		t.Fatalf("no [HTTP code] in %q", answer)
	}
	var st invalidStatus
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("not a Status: %v\n%s", err, body)
	}
	list := func() string {
		var parts []string
		for _, c := range st.Details.Causes {
			parts = append(parts, c.Field+": "+c.Message)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	prefix, ok := strings.CutSuffix(st.Message, list())
	if !ok || len(st.Details.Causes) < 2 {
		t.Fatalf("message does not list the causes in order:\n%s", body)
	}
	c := st.Details.Causes
	sort.SliceStable(c, func(i, j int) bool {
		if c[i].Field != c[j].Field {
			return c[i].Field < c[j].Field
		}
		return c[i].Message < c[j].Message
	})
	st.Message = prefix + list()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(st); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s\n[HTTP %s", strings.TrimSuffix(b.String(), "\n"), code)
}

// TestSortedCausesKeepsBytes checks that sortedCauses re-encodes a
// captured Status byte for byte when its causes are already in order, so
// the map-order comparison is as strict as the plain one otherwise.
func TestSortedCausesKeepsBytes(t *testing.T) {
	want := string(readCaptured(t, "testdata/crd/objects/certificates.cert-manager.io/bad-01-missing-required.status.client.txt"))
	if got := sortedCauses(t, want); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
