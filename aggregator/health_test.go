package aggregator_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// readyzVerbose is kube-apiserver 1.33.13's GET /readyz?verbose (scenario
// healthreadyz-verbose) without the 16 post-start hooks aggsim has no
// equivalent of (README, "How aggsim differs"; the differential suite drops
// exactly those lines): start-apiserver-admission-initializer,
// priority-and-fairness-config-consumer, priority-and-fairness-filter,
// storage-object-count-tracker-hook, start-apiextensions-informers,
// start-apiextensions-controllers, crd-informer-synced,
// start-kube-apiserver-identity-lease-controller,
// start-kube-apiserver-identity-lease-garbage-collector,
// start-legacy-token-tracking-controller, start-service-ip-repair-controllers,
// rbac/bootstrap-roles, scheduling/bootstrap-system-priority-classes,
// priority-and-fairness-config-producer, bootstrap-controller,
// start-kubernetes-service-cidr-controller.
const readyzVerbose = `[+]ping ok
[+]log ok
[+]etcd ok
[+]etcd-readiness ok
[+]informer-sync ok
[+]poststarthook/generic-apiserver-start-informers ok
[+]poststarthook/start-system-namespaces-controller ok
[+]poststarthook/start-cluster-authentication-info-controller ok
[+]poststarthook/aggregator-reload-proxy-client-cert ok
[+]poststarthook/start-kube-aggregator-informers ok
[+]poststarthook/apiservice-status-local-available-controller ok
[+]poststarthook/apiservice-status-remote-available-controller ok
[+]poststarthook/apiservice-registration-controller ok
[+]poststarthook/apiservice-discovery-controller ok
[+]poststarthook/kube-apiserver-autoregistration ok
[+]autoregister-completion ok
[+]poststarthook/apiservice-openapi-controller ok
[+]poststarthook/apiservice-openapiv3-controller ok
[+]shutdown ok
readyz check passed
`

// The health endpoints answer as kube-apiserver 1.33.13 (scenarios
// health*, and curl -i of /livez?verbose&exclude=ping&exclude=nope,
// /readyz/ping, /livez/autoregister-completion): the checks in upstream's
// order under upstream's names; ?verbose lists them whatever its value;
// an unknown exclude is warned about; X-Content-Type-Options: nosniff on
// the endpoint itself but not on a passing single check.
func TestHealthEndpointsAsUpstream(t *testing.T) {
	s := aggregatortest.Start(t)
	livez := `[+]ping excluded: ok
[+]log ok
[+]etcd ok
[+]poststarthook/generic-apiserver-start-informers ok
[+]poststarthook/start-system-namespaces-controller ok
[+]poststarthook/start-cluster-authentication-info-controller ok
[+]poststarthook/aggregator-reload-proxy-client-cert ok
[+]poststarthook/start-kube-aggregator-informers ok
[+]poststarthook/apiservice-status-local-available-controller ok
[+]poststarthook/apiservice-status-remote-available-controller ok
[+]poststarthook/apiservice-registration-controller ok
[+]poststarthook/apiservice-discovery-controller ok
[+]poststarthook/kube-apiserver-autoregistration ok
[+]autoregister-completion ok
[+]poststarthook/apiservice-openapi-controller ok
[+]poststarthook/apiservice-openapiv3-controller ok
warn: some health checks cannot be excluded: no matches for "nope"
livez check passed
`
	cases := []struct {
		path, body string
		nosniff    bool
	}{
		{"/readyz?verbose", readyzVerbose, true},
		{"/readyz?verbose=false", readyzVerbose, true},
		{"/livez?verbose&exclude=ping&exclude=nope", livez, true},
		{"/readyz?exclude=etcd&exclude=nope", "ok", true},
		{"/healthz", "ok", true},
		{"/readyz/ping", "ok", false},
		{"/livez/autoregister-completion", "ok", false},
		{"/healthz/poststarthook/apiservice-openapiv3-controller", "ok", false},
	}
	for _, c := range cases {
		code, h, body := get(t, s, c.path)
		if code != http.StatusOK || body != c.body || h.Get("Content-Type") != "text/plain; charset=utf-8" ||
			(h.Get("X-Content-Type-Options") == "nosniff") != c.nosniff {
			t.Errorf("GET %s: %d %v\n%s\nwant 200, nosniff %v\n%s", c.path, code, h, body, c.nosniff, c.body)
		}
	}

	// Once the server shuts down, readyz's shutdown check fails
	// (upstream: "process is shutting down").
	s.Aggregator().Shutdown()
	code, h, body := get(t, s, "/readyz/shutdown")
	if code != http.StatusInternalServerError || body != "internal server error: process is shutting down\n" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("/readyz/shutdown after Shutdown: %d %v %q", code, h, body)
	}
	if code, _, body := get(t, s, "/readyz"); code != http.StatusInternalServerError || !strings.Contains(body, "[-]shutdown failed: reason withheld\nreadyz check failed\n") {
		t.Errorf("/readyz after Shutdown: %d %q", code, body)
	}
	if code, _, _ := get(t, s, "/livez"); code != http.StatusOK {
		t.Errorf("/livez after Shutdown: %d", code)
	}
}
