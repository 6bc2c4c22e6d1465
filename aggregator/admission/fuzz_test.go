package admission

import (
	"strings"
	"testing"
)

// FuzzParseResponse feeds arbitrary webhook answers to the response
// decoder: it must answer a response or an error with one of upstream's
// prefixes, never panic.
func FuzzParseResponse(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true}}`), true)
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","patchType":"JSONPatch","patch":"W10="}}`), true)
	f.Add([]byte("not json"), false)
	f.Add([]byte("response:\n  uid: u\n"), false)
	f.Add([]byte(`[1,2]`), true)
	f.Fuzz(func(t *testing.T, body []byte, mutating bool) {
		if len(body) > 1<<16 {
			return
		}
		for _, v := range []string{reviewV1, reviewV1beta1} {
			resp, err := parseResponse(200, "application/json", body, v, "u", mutating)
			if err == nil && (resp == nil || (v == reviewV1 && resp.UID != "u")) {
				t.Fatalf("accepted %q as %+v", body, resp)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "failed to call webhook: ") && !strings.HasPrefix(err.Error(), "received invalid webhook response: ") {
				t.Fatalf("error %q", err)
			}
		}
	})
}
