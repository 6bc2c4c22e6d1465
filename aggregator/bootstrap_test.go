package aggregator_test

import (
	"io"
	"net/http"
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
