package aggregator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/aggsim/aggsim/registry/apis/version"

	"github.com/aggsim/aggsim/registry/storage"
)

// healthCheck is one named check of /healthz, /livez and /readyz, as
// k8s.io/apiserver/pkg/server/healthz registers them.
type healthCheck struct {
	name  string
	check func(r *http.Request) error
}

// errNotFinished is what a post-start hook reports until it is done
// (upstream: "not finished").
var errNotFinished = fmt.Errorf("not finished")

func closedCheck(ch <-chan struct{}) func(*http.Request) error {
	return func(*http.Request) error {
		select {
		case <-ch:
			return nil
		default:
			return errNotFinished
		}
	}
}

// healthChecks returns the checks of one endpoint: upstream's ping, log and
// etcd (here: the store answers a read), then the post-start hooks of the
// aggregator that have an equivalent in aggsim.
func (s *Server) healthChecks(endpoint string) []healthCheck {
	checks := []healthCheck{
		{"ping", func(*http.Request) error { return nil }},
		{"log", func(*http.Request) error { return nil }},
		{"etcd", func(r *http.Request) error {
			ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
			defer cancel()
			_, err := s.opts.Storage.Get(ctx, "/registry/healthz-probe")
			if err != nil && !errors.Is(err, storage.ErrKeyNotFound) {
				return err
			}
			return nil
		}},
	}
	if endpoint == "readyz" {
		checks = append(checks, healthCheck{"informer-sync", closedCheck(s.ready)})
	}
	checks = append(checks,
		healthCheck{"poststarthook/start-kube-aggregator-informers", closedCheck(s.apiServices.Synced())},
		healthCheck{"poststarthook/apiservice-registration-controller", closedCheck(s.apiServices.Synced())},
		healthCheck{"poststarthook/apiservice-discovery-controller", closedCheck(s.discovery.Synced())},
	)
	return checks
}

// installHealthRoutes registers /healthz, /livez and /readyz, each with
// ?verbose and ?exclude=<check> and one path per check
// (/healthz/<check>), answering as upstream's healthz handler does:
// "ok", or with ?verbose `[+]<check> ok` lines and `<endpoint> check
// passed`; a failure answers 500 with `[-]<check> failed: reason withheld`
// and `<endpoint> check failed`.
func (s *Server) installHealthRoutes() {
	for _, ep := range []string{"healthz", "livez", "readyz"} {
		checks := s.healthChecks(ep)
		h := healthHandler(ep, checks)
		s.mux.Handle("/"+ep, prompt(h))
		for _, c := range checks {
			c := c
			s.mux.Handle("/"+ep+"/"+c.name, prompt(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.Header().Set("X-Content-Type-Options", "nosniff")
				if err := c.check(r); err != nil {
					http.Error(w, fmt.Sprintf("internal server error: %v", err), http.StatusInternalServerError)
					return
				}
				fmt.Fprint(w, "ok")
			})))
		}
	}
}

func healthHandler(endpoint string, checks []healthCheck) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		excluded := map[string]bool{}
		for _, e := range q["exclude"] {
			excluded[strings.TrimSpace(e)] = true
		}
		var buf bytes.Buffer
		failed := false
		for _, c := range checks {
			if excluded[c.name] {
				fmt.Fprintf(&buf, "[+]%s excluded: ok\n", c.name)
				continue
			}
			if err := c.check(r); err != nil {
				failed = true
				fmt.Fprintf(&buf, "[-]%s failed: reason withheld\n", c.name)
				continue
			}
			fmt.Fprintf(&buf, "[+]%s ok\n", c.name)
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if failed {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "%s%s check failed\n", buf.String(), endpoint)
			return
		}
		if _, verbose := q["verbose"]; verbose {
			fmt.Fprintf(w, "%s%s check passed\n", buf.String(), endpoint)
			return
		}
		fmt.Fprint(w, "ok")
	})
}

func (s *Server) serveVersion(w http.ResponseWriter, r *http.Request) {
	v := version.Info{
		Major: "1", Minor: "33", EmulationMajor: "1", EmulationMinor: "33",
		MinCompatibilityMajor: "1", MinCompatibilityMinor: "32",
		GitVersion: s.GitVersion(), GitCommit: "", GitTreeState: "clean",
		BuildDate: "1970-01-01T00:00:00Z", GoVersion: runtime.Version(),
		Compiler: runtime.Compiler, Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// The OpenAPI routes (installOpenAPIRoutes) are in server.go.
