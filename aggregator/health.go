package aggregator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aggsim/aggsim/registry/apis/apiregistration"
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

// startHooks are closed as Server.Run gets through its start-up; the
// health checks named after kube-apiserver's post-start hooks report them.
type startHooks struct {
	systemNamespaces chan struct{} // the system namespaces exist
	autoregistration chan struct{} // the automanaged local APIServices exist
	informers        chan struct{} // the Service, Endpoints and APIService informers run
	controllers      chan struct{} // discovery, availability, OpenAPI and the authentication-info writer run
	shuttingDown     chan struct{} // closed by shutdown
	shutdownOnce     *sync.Once
}

func newStartHooks() startHooks {
	return startHooks{
		systemNamespaces: make(chan struct{}), autoregistration: make(chan struct{}),
		informers: make(chan struct{}), controllers: make(chan struct{}),
		shuttingDown: make(chan struct{}), shutdownOnce: new(sync.Once),
	}
}

func (h startHooks) shutdown() { h.shutdownOnce.Do(func() { close(h.shuttingDown) }) }

// healthChecks returns the checks of one endpoint, in kube-apiserver 1.33's
// order, limited to those aggsim has an equivalent of (README, "How aggsim
// differs", lists the others):
//
//   - ping, log; etcd (and, for readyz, etcd-readiness): the store answers
//     a read; informer-sync (readyz): the informers and discovery synced;
//   - poststarthook/generic-apiserver-start-informers: the Service and
//     Endpoints informers (upstream's shared informers the aggregator
//     resolves Services with) run; start-kube-aggregator-informers: the
//     APIService informer synced;
//   - start-system-namespaces-controller: default, kube-system,
//     kube-public and kube-node-lease exist;
//   - start-cluster-authentication-info-controller: the
//     extension-apiserver-authentication writer runs;
//   - aggregator-reload-proxy-client-cert, apiservice-status-local- and
//     -remote-available-controller, apiservice-openapi-controller and
//     apiservice-openapiv3-controller: the controllers run (the proxy
//     client certificate is reloaded by its file watcher);
//   - apiservice-registration-controller, apiservice-discovery-controller;
//   - kube-apiserver-autoregistration: the automanaged local APIServices
//     exist; autoregister-completion: each was seen Available;
//   - shutdown (readyz): fails once the server is shutting down.
func (s *Server) healthChecks(endpoint string) []healthCheck {
	store := func(r *http.Request) error {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		_, err := s.opts.Storage.Get(ctx, "/registry/healthz-probe")
		if err != nil && !errors.Is(err, storage.ErrKeyNotFound) {
			return err
		}
		return nil
	}
	checks := []healthCheck{
		{"ping", func(*http.Request) error { return nil }},
		{"log", func(*http.Request) error { return nil }},
		{"etcd", store},
	}
	if endpoint == "readyz" {
		checks = append(checks, healthCheck{"etcd-readiness", store}, healthCheck{"informer-sync", closedCheck(s.ready)})
	}
	hook := func(name string, ch <-chan struct{}) healthCheck {
		return healthCheck{"poststarthook/" + name, closedCheck(ch)}
	}
	h := s.hooks
	checks = append(checks,
		hook("generic-apiserver-start-informers", h.informers),
		hook("start-system-namespaces-controller", h.systemNamespaces),
		hook("start-cluster-authentication-info-controller", h.controllers),
		hook("aggregator-reload-proxy-client-cert", h.controllers),
		hook("start-kube-aggregator-informers", s.apiServices.Synced()),
		hook("apiservice-status-local-available-controller", h.controllers),
		hook("apiservice-status-remote-available-controller", h.controllers),
		hook("apiservice-registration-controller", s.apiServices.Synced()),
		hook("apiservice-discovery-controller", s.discovery.Synced()),
		hook("kube-apiserver-autoregistration", h.autoregistration),
		healthCheck{"autoregister-completion", s.autoregisterCompletion()},
		hook("apiservice-openapi-controller", h.controllers),
		hook("apiservice-openapiv3-controller", h.controllers),
	)
	if endpoint == "readyz" {
		checks = append(checks, healthCheck{"shutdown", func(*http.Request) error {
			select {
			case <-h.shuttingDown:
				return errors.New("process is shutting down")
			default:
				return nil
			}
		}})
	}
	return checks
}

// autoregisterCompletion is upstream's autoregister-completion check: it
// fails with `missing APIService: [<names>]` until each automanaged local
// APIService has been seen Available, and passes from then on.
func (s *Server) autoregisterCompletion() func(*http.Request) error {
	var done atomic.Bool
	var names []string // the local APIServices' names, sorted once
	for _, a := range s.localAPIServices() {
		names = append(names, a.Name)
	}
	sort.Strings(names)
	return func(*http.Request) error {
		if done.Load() {
			return nil
		}
		var missing []string
		for _, name := range names {
			obj, ok := s.apiServices.Get("", name)
			if !ok || !obj.(*apiregistration.APIService).IsAvailable() {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("missing APIService: %v", missing)
		}
		done.Store(true)
		return nil
	}
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
				// As upstream's adaptCheckToHandler: http.Error on failure
				// (with X-Content-Type-Options: nosniff), a bare "ok"
				// otherwise (Content-Type as Go sniffs it, no nosniff).
				if err := c.check(r); err != nil {
					http.Error(w, fmt.Sprintf("internal server error: %v", err), http.StatusInternalServerError)
					return
				}
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
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
				delete(excluded, c.name)
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
		if len(excluded) > 0 {
			names := make([]string, 0, len(excluded))
			for n := range excluded {
				names = append(names, strconv.Quote(n))
			}
			sort.Strings(names)
			fmt.Fprintf(&buf, "warn: some health checks cannot be excluded: no matches for %s\n", strings.Join(names, ","))
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
