package aggregator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"

	"github.com/aggsim/aggsim/registry"
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
			if err != nil && !strings.Contains(err.Error(), "not found") {
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
		s.mux.Handle("/"+ep, h)
		for _, c := range checks {
			c := c
			s.mux.Handle("/"+ep+"/"+c.name, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.Header().Set("X-Content-Type-Options", "nosniff")
				if err := c.check(r); err != nil {
					http.Error(w, fmt.Sprintf("internal server error: %v", err), http.StatusInternalServerError)
					return
				}
				fmt.Fprint(w, "ok")
			}))
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

// versionInfo mirrors k8s.io/apimachinery/pkg/version.Info as
// kube-apiserver 1.33 serves it at /version.
type versionInfo struct {
	Major                 string `json:"major"`
	Minor                 string `json:"minor"`
	EmulationMajor        string `json:"emulationMajor,omitempty"`
	EmulationMinor        string `json:"emulationMinor,omitempty"`
	MinCompatibilityMajor string `json:"minCompatibilityMajor,omitempty"`
	MinCompatibilityMinor string `json:"minCompatibilityMinor,omitempty"`
	GitVersion            string `json:"gitVersion"`
	GitCommit             string `json:"gitCommit"`
	GitTreeState          string `json:"gitTreeState"`
	BuildDate             string `json:"buildDate"`
	GoVersion             string `json:"goVersion"`
	Compiler              string `json:"compiler"`
	Platform              string `json:"platform"`
}

func (s *Server) serveVersion(w http.ResponseWriter, r *http.Request) {
	v := versionInfo{
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

// openAPIV2ProtobufTypes are the media types kube-apiserver serves the
// OpenAPI v2 document as protobuf under (kube-openapi handler.go); kubectl
// up to 1.30 asks only for these.
var openAPIV2ProtobufTypes = []string{
	"application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
	"application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
}

// installOpenAPIRoutes serves aggsim's own OpenAPI documents: /openapi/v2
// as JSON or, when asked for, as gnostic protobuf (what kubectl 1.27
// downloads for client-side validation and apply), and /openapi/v3 with
// one document per group-version at /openapi/v3/<gv>, with ETag and the
// immutable cache header when the request carries the document's hash.
// Documents are encoded once, here.
func (s *Server) installOpenAPIRoutes() {
	v2 := registry.OpenAPIV2()
	v2etag := `"` + registry.OpenAPIHash(v2) + `"`
	var v2pb []byte
	if doc, err := openapi_v2.ParseDocument(v2); err != nil {
		s.logger.Error("parse OpenAPI v2 document", "err", err)
	} else if v2pb, err = proto.Marshal(doc); err != nil {
		s.logger.Error("encode OpenAPI v2 document as protobuf", "err", err)
	}
	s.mux.Handle("/openapi/v2", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accept := r.Header.Get("Accept")
		body, ct := v2, "application/json"
		switch {
		case v2pb != nil && acceptsAny(accept, openAPIV2ProtobufTypes...):
			body, ct = v2pb, "application/octet-stream" // as kube-openapi answers
		case !acceptsJSON(accept):
			writeStatusError(w, registry.NewStatusError(http.StatusNotAcceptable, "NotAcceptable",
				"only the following media types are accepted: application/json, "+strings.Join(openAPIV2ProtobufTypes, ", ")))
			return
		}
		w.Header().Set("Etag", v2etag)
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Vary", "Accept")
		if r.Header.Get("If-None-Match") == v2etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write(body)
	}))
	index := registry.OpenAPIV3Index()
	s.mux.Handle("/openapi/v3", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(index)
	}))
	s.mux.HandlePrefix("/openapi/v3/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gv := strings.TrimPrefix(r.URL.Path, "/openapi/v3/")
		doc, ok := registry.OpenAPIV3GroupVersion(gv)
		if !ok {
			http.NotFound(w, r)
			return
		}
		hash, _ := registry.OpenAPIV3Hash(gv)
		etag := `"` + hash + `"`
		w.Header().Set("Etag", etag)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("hash") == hash {
			w.Header().Set("Cache-Control", "public, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache, private")
		}
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write(doc)
	}))
}

// acceptsAny reports whether an Accept header names one of types.
func acceptsAny(accept string, types ...string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt := strings.TrimSpace(strings.SplitN(part, ";", 2)[0])
		for _, t := range types {
			if mt == t {
				return true
			}
		}
	}
	return false
}

// acceptsJSON reports whether an Accept header admits application/json.
func acceptsJSON(accept string) bool {
	if accept == "" {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		mt := strings.TrimSpace(strings.SplitN(part, ";", 2)[0])
		if mt == "application/json" || mt == "*/*" || mt == "application/*" {
			return true
		}
	}
	return false
}

// writeStatusError writes a Status error as JSON with its code.
func writeStatusError(w http.ResponseWriter, se *registry.StatusError) {
	b, _ := json.Marshal(se.Status)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(se.Status.Code))
	_, _ = w.Write(b)
}
