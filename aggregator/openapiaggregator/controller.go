package openapiaggregator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// OpenAPI aggregation, as kube-aggregator's OpenAPI controllers do it
// (pkg/controllers/openapi for v2, pkg/controllers/openapiv3 for v3): for
// every remote APIService that is Available, the backend's /openapi/v2
// (Accept: application/json, If-None-Match of the backend's last ETag) and
// its /openapi/v3 index plus the document of apis/<group>/<version> are
// fetched through the APIService's proxy handler as user system:aggregator
// (no groups). They are fetched again when the APIService changes (its
// service, caBundle, or becoming Available) and on every tick of
// openAPIRefreshInterval. A failed fetch keeps the last good document; a
// 404 drops it (the backend serves none).
//
// Served:
//   - /openapi/v2: aggsim's own swagger merged with each backend's paths
//     under /apis/<group>/<version>/, the shared parameters they use
//     (#/parameters/<name>-<hash>) and the definitions they reach, top-level
//     keys in kube-openapi's order, <, > and & unescaped; remote
//     specs in order of group priority (highest groupPriorityMinimum of the
//     group first), then APIService name. On a path or definition name
//     conflict the first wins (upstream renames conflicting definitions).
//     JSON, or gnostic protobuf when asked for (Content-Type
//     application/com.github.proto-openapi.spec.v2.v1.0+protobuf, as
//     kube-apiserver 1.33 answers), both encoded once
//     per change, with an ETag.
//   - /openapi/v3: aggsim's own index plus one entry per fetched remote
//     group-version, serverRelativeURL /openapi/v3/apis/<g>/<v>?hash=<upper
//     hex SHA-512 of the document>.
//   - /openapi/v3/<key>: the document, byte for byte as fetched (remote) or
//     aggsim's own; ETag is the hash; with ?hash= of the current document
//     Cache-Control "public, immutable" and Expires one year ahead, with a
//     stale ?hash= a 301 to the current URL (kube-openapi handler3).
//
// Every served byte slice lives in an immutable openAPISnapshot swapped
// through an atomic pointer; requests never lock and never encode.

// openAPIRefreshInterval is how often available remote APIServices'
// OpenAPI documents are fetched again (upstream: 1 minute on success).
const openAPIRefreshInterval = 60 * time.Second

// openAPIFetchTimeout bounds one APIService's fetches (upstream: 1 minute).
const openAPIFetchTimeout = 60 * time.Second

// openAPIWorkers is how many APIServices are fetched at once.
const openAPIWorkers = 4

// openAPIMaxBytes caps one fetched document.
const openAPIMaxBytes = 64 << 20

// openAPIV2ProtobufType is the Content-Type kube-apiserver 1.33 answers
// the gnostic protobuf form of /openapi/v2 with, whichever of its two
// names (see openAPIV2Formats) was asked for; kubectl up to 1.30 asks
// for it.
const openAPIV2ProtobufType = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"

// errOpenAPINotServed marks a 404: the backend serves no such document.
var errOpenAPINotServed = errors.New("not served by the backend")

// Fetcher sends req to the backend of the APIService name, as the
// aggregator's own user; Server.fetchOpenAPI in production.
type Fetcher func(ctx context.Context, name string, req *http.Request) (*http.Response, error)

// Controller keeps the aggregated OpenAPI documents. Update and
// Remove are called by the registration controller; Run fetches and
// rebuilds. It must not be copied.
type Controller struct {
	fetch    Fetcher
	logger   *slog.Logger
	now      func() time.Time
	interval time.Duration
	// newTicker returns a tick channel and its stop function; tests
	// replace it to drive the periodic refetch by hand.
	newTicker func(d time.Duration) (<-chan time.Time, func())
	workers   int

	// kick has room for one pending wake-up of Run (an entry became dirty
	// or the served set changed).
	kick chan struct{}

	mu sync.Mutex // guards entries, rebuild and every entry's fields
	// entries are the remote APIServices by name.
	entries map[string]*openAPIEntry
	// rebuild is set when the served set changed without a fetch.
	rebuild bool

	// own is aggsim's own swagger split into parts, decoded on first need
	// (ownParts).
	own          openAPIV2Parts
	ownPartsOnce sync.Once
	// ownOnce builds the first snapshot, on first use (see snapshot):
	// aggsim's own documents take about 10 ms to build, which start-up
	// need not wait for.
	ownOnce sync.Once
	// snap holds what is served; nil until ownOnce ran.
	snap atomic.Pointer[openAPISnapshot]
	// localV3 are the alpha group-versions aggsim serves itself
	// (SetLocalAlphaV3, local_alpha.go); set before the first snapshot.
	localV3 []string
	// rebuilds counts snapshot builds (tests wait on it).
	rebuilds atomic.Int64
}

// openAPIEntry is what is known of one remote APIService. Its documents
// are immutable once stored; a fetch replaces them whole.
type openAPIEntry struct {
	name, group, version string
	groupPriorityMinimum int32
	fingerprint          string // service and TLS fields; a change refetches
	available            bool
	dirty                bool // fetch at the next pass
	// local marks documents aggsim builds itself (a CRD group/version's,
	// SetLocalParts): never fetched; v2 and v3 are as given.
	local bool

	// v2 holds the backend's paths under /apis/<g>/<v>/ and the
	// definitions they reach (nil: none); v2etag is the backend's ETag.
	v2     *openAPIV2Parts
	v2etag string
	// v3 is the backend's document of apis/<g>/<v> (nil: none), v3url the
	// serverRelativeURL it was fetched from, v3hash its hash.
	v3     []byte
	v3url  string
	v3hash string
}

// openAPIV2Parts is a swagger document split into its top-level fields,
// paths, definitions and shared parameters (raw JSON each).
type openAPIV2Parts struct {
	top         map[string]json.RawMessage
	paths       map[string]json.RawMessage
	definitions map[string]json.RawMessage
	parameters  map[string]json.RawMessage
}

// openAPISnapshot is everything served, encoded once per change; the
// merged v2 document on the first request that asks for it (v2doc).
type openAPISnapshot struct {
	// v2Once runs v2build (then dropped) into v2 and v2etag: merging and
	// hashing the v2 document of every group/version is the costly part
	// of a rebuild, and a CRD's group/version is served in /openapi/v3
	// without waiting for it (kube-openapi's handler also merges on
	// request, k8s.io/kube-openapi/pkg/handler).
	v2Once  sync.Once
	v2build func() (doc []byte, hash string)
	v2      []byte
	v2etag  string // quoted
	// v2pbOnce encodes v2 as protobuf (v2pb, nil when that failed) on the
	// first request that asks for it: the encoding costs about 30 ms of CPU
	// (gnostic parses the JSON through a YAML parser), and only kubectl
	// 1.27 and older ask for it.
	v2pbOnce sync.Once
	v2pb     []byte
	index    []byte
	// indexEtag is quoted.
	indexEtag string
	// remote holds the fetched v3 documents by key ("apis/<g>/<v>").
	remote map[string]openAPIV3Doc
}

type openAPIV3Doc struct {
	body []byte
	hash string
}

// NewController returns a Controller that fetches through fetch, logs to
// logger and stamps documents with now; it serves aggsim's own documents
// until Run has fetched the backends'.
func NewController(fetch Fetcher, logger *slog.Logger, now func() time.Time) *Controller {
	c := &Controller{
		fetch:    fetch,
		logger:   logger,
		now:      now,
		interval: openAPIRefreshInterval,
		newTicker: func(d time.Duration) (<-chan time.Time, func()) {
			t := time.NewTicker(d)
			return t.C, t.Stop
		},
		workers: openAPIWorkers,
		kick:    make(chan struct{}, 1),
		entries: map[string]*openAPIEntry{},
	}
	return c
}

// initOwn builds the first snapshot, once.
func (c *Controller) initOwn() {
	c.ownOnce.Do(func() {
		c.snap.CompareAndSwap(nil, c.build(nil))
	})
}

// ownParts returns aggsim's own swagger split into its parts, decoding it
// on the first call: only merging a backend's v2 document needs them, and
// decoding the whole document was most of the CPU the controller cost a
// server without backends at start-up.
func (c *Controller) ownParts() openAPIV2Parts {
	c.ownPartsOnce.Do(func() {
		own, err := splitOpenAPIV2(registry.OpenAPIV2())
		if err != nil {
			c.logger.Error("decode aggsim's OpenAPI v2 document", "err", err)
		}
		c.own = own
	})
	return c.own
}

// snapshot returns what is served, building aggsim's own documents on the
// first call.
func (c *Controller) snapshot() *openAPISnapshot {
	if s := c.snap.Load(); s != nil {
		return s
	}
	c.initOwn()
	return c.snap.Load()
}

// Update records the current state of the APIService a. Local APIServices
// (no spec.service) have no remote documents. A new APIService, a change
// of its service or TLS fields, or becoming Available schedules a fetch;
// becoming unavailable drops its documents from what is served (they are
// kept and served again once it is Available).
func (c *Controller) Update(a *apiregistration.APIService) {
	if a.Spec.Service == nil || a.Spec.Group == "" {
		c.Remove(a.Name)
		return
	}
	svc := a.Spec.Service
	port := int32(443)
	if svc.Port != nil {
		port = *svc.Port
	}
	fp := fmt.Sprintf("%s/%s:%d|%x|%t", svc.Namespace, svc.Name, port, a.Spec.CABundle, a.Spec.InsecureSkipTLSVerify)
	avail := a.IsAvailable()

	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[a.Name]
	if e == nil || e.group != a.Spec.Group || e.version != a.Spec.Version {
		e = &openAPIEntry{name: a.Name, group: a.Spec.Group, version: a.Spec.Version}
		c.entries[a.Name] = e
		e.dirty = avail
		c.rebuild = true
	}
	if e.groupPriorityMinimum != a.Spec.GroupPriorityMinimum {
		e.groupPriorityMinimum = a.Spec.GroupPriorityMinimum
		c.rebuild = true
	}
	if e.fingerprint != fp {
		e.fingerprint = fp
		e.dirty = avail
	}
	if avail != e.available {
		e.available = avail
		e.dirty = avail
		c.rebuild = true
	}
	if e.dirty || c.rebuild {
		c.poke()
	}
}

// Remove forgets the APIService name and drops its documents.
func (c *Controller) Remove(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[name]; !ok {
		return
	}
	delete(c.entries, name)
	c.rebuild = true
	c.poke()
}

// poke wakes Run without blocking.
func (c *Controller) poke() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// Run fetches dirty entries and rebuilds the snapshot on every wake-up,
// marks every available entry dirty on each tick, and returns when ctx
// ends.
func (c *Controller) Run(ctx context.Context) {
	go c.initOwn() // warm aggsim's own documents off the start-up path
	tick, stop := c.newTicker(c.interval)
	defer stop()
	for {
		c.pass(ctx)
		select {
		case <-ctx.Done():
			return
		case <-c.kick:
		case <-tick:
			c.markAllDirty()
		}
	}
}

// markAllDirty schedules a fetch of every available entry (the periodic
// refresh).
func (c *Controller) markAllDirty() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		if e.available && !e.local {
			e.dirty = true
		}
	}
}

// SetLocal serves documents aggsim builds itself for group/version (the
// custom resources of CRDs): v2, a swagger document whose paths and
// definitions are merged into /openapi/v2, and v3, the document of
// apis/<group>/<version>, listed in the /openapi/v3 index. Both nil stops
// serving them. groupPriorityMinimum orders the merge as an APIService's.
// v2 is split into its parts here; one that is not swagger JSON is logged
// and left out. The error is always nil today.
func (c *Controller) SetLocal(group, version string, groupPriorityMinimum int32, v2, v3 []byte) error {
	var local *openAPIV2Parts
	if v2 != nil {
		parts, err := splitOpenAPIV2(v2)
		if err != nil {
			c.logger.Error("split a local OpenAPI v2 document; left out of /openapi/v2", "err", err)
		} else {
			local = &parts
		}
	}
	c.setLocal(group, version, groupPriorityMinimum, local, v3)
	return nil
}

// SetLocalParts is SetLocal with the v2 document given as its paths,
// definitions and shared parameters (compact JSON values, not changed
// afterwards), so that nothing is split: what
// registry.CustomResourceOpenAPIBuilder.BuildParts returns. All nil stops
// serving them.
func (c *Controller) SetLocalParts(group, version string, groupPriorityMinimum int32, v2Paths, v2Definitions, v2Parameters map[string]json.RawMessage, v3 []byte) {
	var local *openAPIV2Parts
	if v2Paths != nil || v2Definitions != nil || v2Parameters != nil {
		local = &openAPIV2Parts{paths: v2Paths, definitions: v2Definitions, parameters: v2Parameters}
	}
	c.setLocal(group, version, groupPriorityMinimum, local, v3)
}

// setLocal serves (or, both nil, stops serving) the local documents of
// group/version.
func (c *Controller) setLocal(group, version string, groupPriorityMinimum int32, v2 *openAPIV2Parts, v3 []byte) {
	name := "local:" + version + "." + group
	c.mu.Lock()
	defer c.mu.Unlock()
	if v2 == nil && v3 == nil {
		if _, ok := c.entries[name]; ok {
			delete(c.entries, name)
			c.rebuild = true
			c.poke()
		}
		return
	}
	e := &openAPIEntry{name: name, group: group, version: version, groupPriorityMinimum: groupPriorityMinimum, available: true, local: true, v2: v2}
	if v3 != nil {
		e.v3, e.v3hash = v3, registry.OpenAPIHash(v3)
	}
	c.entries[name] = e
	c.rebuild = true
	c.poke()
}

// openAPIJob is one entry's fetch: the inputs copied out of the entry
// under the lock, and the outputs applied back under it.
type openAPIJob struct {
	e                    *openAPIEntry
	name, group, version string
	v2etag, v3url        string
	hadV3                bool

	v2       *openAPIV2Parts
	v2tag    string
	v2err    error
	v2same   bool // 304
	v3       []byte
	v3newURL string
	v3err    error
	v3same   bool
}

// pass fetches every dirty available entry (at most c.workers at once)
// and rebuilds the snapshot when anything changed.
func (c *Controller) pass(ctx context.Context) {
	c.mu.Lock()
	var jobs []*openAPIJob
	for _, e := range c.entries {
		if e.dirty && e.available && !e.local {
			e.dirty = false
			jobs = append(jobs, &openAPIJob{e: e, name: e.name, group: e.group, version: e.version,
				v2etag: e.v2etag, v3url: e.v3url, hadV3: e.v3 != nil})
		}
	}
	rebuild := c.rebuild
	c.rebuild = false
	c.mu.Unlock()

	if len(jobs) > 0 {
		sem := make(chan struct{}, c.workers)
		var wg sync.WaitGroup
		for _, j := range jobs {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				fctx, cancel := context.WithTimeout(ctx, openAPIFetchTimeout)
				defer cancel()
				c.fetchV2(fctx, j)
				c.fetchV3(fctx, j)
			}()
		}
		wg.Wait()
		c.mu.Lock()
		for _, j := range jobs {
			if c.entries[j.name] != j.e {
				continue // removed or replaced meanwhile
			}
			if c.apply(j) {
				rebuild = true
			}
		}
		c.mu.Unlock()
	}
	if !rebuild {
		return
	}
	c.mu.Lock()
	var served []*openAPIEntry
	for _, e := range c.entries {
		if e.available && (e.v2 != nil || e.v3 != nil) {
			cp := *e
			served = append(served, &cp)
		}
	}
	c.mu.Unlock()
	c.initOwn()
	c.snap.Store(c.build(served))
	c.rebuilds.Add(1)
}

// apply stores a job's results in its entry and reports whether what is
// served changed. Called with c.mu held.
func (c *Controller) apply(j *openAPIJob) bool {
	e := j.e
	changed := false
	switch {
	case j.v2same:
	case errors.Is(j.v2err, errOpenAPINotServed):
		changed = e.v2 != nil
		e.v2, e.v2etag = nil, ""
	case j.v2err != nil:
		c.logger.Info("fetch OpenAPI v2; keeping the last good document", "apiservice", j.name, "err", j.v2err)
	default:
		e.v2, e.v2etag, changed = j.v2, j.v2tag, true
	}
	switch {
	case j.v3same:
	case errors.Is(j.v3err, errOpenAPINotServed):
		changed = changed || e.v3 != nil
		e.v3, e.v3url, e.v3hash = nil, "", ""
	case j.v3err != nil:
		c.logger.Info("fetch OpenAPI v3; keeping the last good document", "apiservice", j.name, "err", j.v3err)
	default:
		h := registry.OpenAPIHash(j.v3)
		changed = changed || h != e.v3hash
		e.v3, e.v3url, e.v3hash = j.v3, j.v3newURL, h
	}
	return changed
}

// get sends GET path (with query) to the job's backend and returns the
// response; the caller closes its body.
func (c *Controller) get(ctx context.Context, name, pathQuery string, hdr http.Header) (*http.Response, error) {
	u, err := url.Parse(pathQuery)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header = hdr
	return c.fetch(ctx, name, req)
}

func readBody(resp *http.Response) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, openAPIMaxBytes+1))
	if err == nil && len(b) > openAPIMaxBytes {
		err = fmt.Errorf("document larger than %d bytes", openAPIMaxBytes)
	}
	return b, err
}

// fetchV2 downloads the backend's swagger and keeps the paths of the
// job's group-version and the definitions they reach.
func (c *Controller) fetchV2(ctx context.Context, j *openAPIJob) {
	hdr := http.Header{"Accept": {"application/json"}}
	if j.v2etag != "" {
		hdr.Set("If-None-Match", j.v2etag)
	}
	resp, err := c.get(ctx, j.name, "/openapi/v2", hdr)
	if err != nil {
		j.v2err = err
		return
	}
	defer resp.Body.Close()
	body, err := readBody(resp)
	switch {
	case err != nil:
		j.v2err = err
	case resp.StatusCode == http.StatusNotModified:
		j.v2same = true
	case resp.StatusCode == http.StatusNotFound:
		j.v2err = errOpenAPINotServed
	case resp.StatusCode != http.StatusOK:
		j.v2err = fmt.Errorf("GET /openapi/v2: status %d", resp.StatusCode)
	default:
		parts, err := splitOpenAPIV2(body)
		if err != nil {
			j.v2err = err
			return
		}
		f := parts.filter("/apis/" + j.group + "/" + j.version)
		j.v2, j.v2tag = &f, resp.Header.Get("Etag")
	}
}

// fetchV3 downloads the backend's /openapi/v3 index and, when its
// serverRelativeURL for apis/<g>/<v> changed, the document.
func (c *Controller) fetchV3(ctx context.Context, j *openAPIJob) {
	hdr := http.Header{"Accept": {"application/json"}}
	resp, err := c.get(ctx, j.name, "/openapi/v3", hdr)
	if err != nil {
		j.v3err = err
		return
	}
	body, err := readBody(resp)
	resp.Body.Close()
	switch {
	case err != nil:
		j.v3err = err
		return
	case resp.StatusCode == http.StatusNotFound:
		j.v3err = errOpenAPINotServed
		return
	case resp.StatusCode != http.StatusOK:
		j.v3err = fmt.Errorf("GET /openapi/v3: status %d", resp.StatusCode)
		return
	}
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(body, &index); err != nil {
		j.v3err = fmt.Errorf("decode /openapi/v3: %w", err)
		return
	}
	key := "apis/" + j.group + "/" + j.version
	ent, ok := index.Paths[key]
	if !ok {
		j.v3err = errOpenAPINotServed
		return
	}
	u := ent.ServerRelativeURL
	if u == "" {
		u = "/openapi/v3/" + key
	}
	if u == j.v3url && j.hadV3 {
		j.v3same = true
		return
	}
	resp, err = c.get(ctx, j.name, u, hdr)
	if err != nil {
		j.v3err = err
		return
	}
	defer resp.Body.Close()
	doc, err := readBody(resp)
	switch {
	case err != nil:
		j.v3err = err
	case resp.StatusCode == http.StatusNotFound:
		j.v3err = errOpenAPINotServed
	case resp.StatusCode != http.StatusOK:
		j.v3err = fmt.Errorf("GET %s: status %d", u, resp.StatusCode)
	case !json.Valid(doc):
		j.v3err = fmt.Errorf("GET %s: not JSON", u)
	default:
		j.v3, j.v3newURL = doc, u
	}
}

// splitOpenAPIV2 decodes a swagger document into its parts.
func splitOpenAPIV2(doc []byte) (openAPIV2Parts, error) {
	var p openAPIV2Parts
	if err := json.Unmarshal(doc, &p.top); err != nil {
		return p, fmt.Errorf("decode swagger: %w", err)
	}
	if raw, ok := p.top["paths"]; ok {
		if err := json.Unmarshal(raw, &p.paths); err != nil {
			return p, fmt.Errorf("decode swagger paths: %w", err)
		}
	}
	if raw, ok := p.top["definitions"]; ok {
		if err := json.Unmarshal(raw, &p.definitions); err != nil {
			return p, fmt.Errorf("decode swagger definitions: %w", err)
		}
	}
	if raw, ok := p.top["parameters"]; ok {
		if err := json.Unmarshal(raw, &p.parameters); err != nil {
			return p, fmt.Errorf("decode swagger parameters: %w", err)
		}
	}
	for _, m := range []map[string]json.RawMessage{p.paths, p.definitions, p.parameters} {
		if err := compactValues(m); err != nil {
			return p, fmt.Errorf("decode swagger: %w", err)
		}
	}
	return p, nil
}

// compactValues compacts every value of m that may hold whitespace (as
// encoding/json writes a json.RawMessage without HTML escaping), once per
// split, so that encodeOpenAPIV2 can copy the values as they are.
func compactValues(m map[string]json.RawMessage) error {
	for k, v := range m {
		if isCompactJSON(v) {
			continue
		}
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			return err
		}
		m[k] = b.Bytes()
	}
	return nil
}

// filter keeps the paths equal to gvPath or under gvPath/, the shared
// parameters (#/parameters/) they use and the definitions both reach, as
// upstream's FilterSpecByPathsWithoutSideEffects.
func (p openAPIV2Parts) filter(gvPath string) openAPIV2Parts {
	out := openAPIV2Parts{paths: map[string]json.RawMessage{}, definitions: map[string]json.RawMessage{}, parameters: map[string]json.RawMessage{}}
	var queue []string
	for path, item := range p.paths {
		if path == gvPath || strings.HasPrefix(path, gvPath+"/") {
			out.paths[path] = item
			queue = appendRefs(queue, item, "#/definitions/")
			for _, name := range appendRefs(nil, item, "#/parameters/") {
				if param, ok := p.parameters[name]; ok {
					out.parameters[name] = param
					queue = appendRefs(queue, param, "#/definitions/")
				}
			}
		}
	}
	for len(queue) > 0 {
		name := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if _, done := out.definitions[name]; done {
			continue
		}
		def, ok := p.definitions[name]
		if !ok {
			continue
		}
		out.definitions[name] = def
		queue = appendRefs(queue, def, "#/definitions/")
	}
	return out
}

// appendRefs appends the names every $ref in raw gives after prefix
// ("#/definitions/", "#/parameters/").
func appendRefs(out []string, raw json.RawMessage, prefix string) []string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return out
	}
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				if s, ok := x.(string); ok && k == "$ref" {
					if name, ok := strings.CutPrefix(s, prefix); ok {
						out = append(out, name)
					}
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(v)
	return out
}

// openAPIV2TopLevel is the order of a swagger document's top-level keys
// as kube-openapi encodes them (spec.Swagger's fields).
var openAPIV2TopLevel = []string{"id", "consumes", "produces", "schemes", "swagger", "info", "host", "basePath", "paths", "definitions", "parameters", "responses", "securityDefinitions", "security", "tags", "externalDocs"}

// encodeOpenAPIV2 encodes the top-level fields of top with paths,
// definitions and parameters replaced, keys in kube-openapi's order
// (top-level) and sorted (paths, definitions, parameters, as upstream's
// maps encode).
func encodeOpenAPIV2(top, paths, defs, params map[string]json.RawMessage) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	first := true
	for _, k := range openAPIV2TopLevel {
		var v []byte
		switch k {
		case "paths", "definitions", "parameters":
			m := map[string]map[string]json.RawMessage{"paths": paths, "definitions": defs, "parameters": params}[k]
			if len(m) == 0 && k != "paths" {
				continue
			}
			var err error
			if v, err = encodeRawObject(m); err != nil {
				return nil, err
			}
		default:
			raw, ok := top[k]
			if !ok {
				continue
			}
			v = raw
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// isCompactJSON reports whether the JSON value v has no whitespace
// outside its strings (json.Compact would leave it as it is; the value is
// valid, json.Unmarshal checked it).
func isCompactJSON(v []byte) bool {
	inString := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case inString && c == '\\':
			i++ // the escaped character
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			return false
		}
	}
	return true
}

// encodeRawObject encodes m as encoding/json encodes it without HTML
// escaping (kube-apiserver's v2 document does not escape <, > and &): keys
// sorted, values copied as they are (splitOpenAPIV2 compacted them; an
// Encoder compacted and validated megabytes on every merge).
func encodeRawObject(m map[string]json.RawMessage) ([]byte, error) {
	keys := make([]string, 0, len(m))
	size := 2
	for k, v := range m {
		keys = append(keys, k)
		size += len(k) + len(v) + 4
	}
	sort.Strings(keys)
	buf := bytes.NewBuffer(make([]byte, 0, size))
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		if plainKey(k) {
			buf.WriteByte('"')
			buf.WriteString(k)
			buf.WriteByte('"')
		} else {
			if err := enc.Encode(k); err != nil {
				return nil, err
			}
			buf.Truncate(buf.Len() - 1) // the Encoder's newline
		}
		buf.WriteByte(':')
		v := m[k]
		if len(v) == 0 {
			v = []byte("null") // as encoding/json writes a nil json.RawMessage
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// plainKey reports whether encoding/json writes k unchanged between
// quotes (printable ASCII without '"' and '\\').
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// build encodes a snapshot of aggsim's own documents and the served remote
// entries (copies, not shared with the controller).
func (c *Controller) build(served []*openAPIEntry) *openAPISnapshot {
	// Upstream's order: group priority (highest groupPriorityMinimum of
	// the group) descending, then APIService name.
	groupPrio := map[string]int32{}
	for _, e := range served {
		if p, ok := groupPrio[e.group]; !ok || e.groupPriorityMinimum > p {
			groupPrio[e.group] = e.groupPriorityMinimum
		}
	}
	sort.Slice(served, func(i, j int) bool {
		a, b := served[i], served[j]
		if pa, pb := groupPrio[a.group], groupPrio[b.group]; pa != pb {
			return pa > pb
		}
		return a.name < b.name
	})

	s := &openAPISnapshot{remote: map[string]openAPIV3Doc{}}
	var extra []registry.OpenAPIV3IndexEntry
	anyV2 := false
	for _, e := range served {
		if e.v2 != nil {
			anyV2 = true
		}
		if e.v3 == nil {
			continue
		}
		key := "apis/" + e.group + "/" + e.version
		s.remote[key] = openAPIV3Doc{body: e.v3, hash: e.v3hash}
		extra = append(extra, registry.OpenAPIV3IndexEntry{Path: key, ServerRelativeURL: "/openapi/v3/" + key + "?hash=" + e.v3hash})
	}
	extra = c.addLocalAlphaV3(s, extra) // local_alpha.go
	s.index = registry.OpenAPIV3Index(extra...)
	s.indexEtag = `"` + registry.OpenAPIHash(s.index) + `"`

	s.v2build = func() ([]byte, string) { return c.mergeV2(served, anyV2) }
	return s
}

// v2doc returns the snapshot's v2 document and its quoted ETag, merging
// it on the first call.
func (s *openAPISnapshot) v2doc() ([]byte, string) {
	s.v2Once.Do(func() {
		var hash string
		s.v2, hash = s.v2build()
		s.v2build = nil
		s.v2etag = `"` + hash + `"`
	})
	return s.v2, s.v2etag
}

// mergeV2 builds the v2 document and its hash: aggsim's own (hashed at
// build time), with the paths, definitions and shared parameters of
// served (in that order, the first one of a name wins) when anyV2.
func (c *Controller) mergeV2(served []*openAPIEntry, anyV2 bool) ([]byte, string) {
	v2, hash := registry.OpenAPIV2(), registry.OpenAPIV2Hash()
	var own openAPIV2Parts
	if anyV2 {
		own = c.ownParts()
	}
	if anyV2 && own.top != nil {
		paths := make(map[string]json.RawMessage, len(own.paths))
		for k, v := range own.paths {
			paths[k] = v
		}
		defs := make(map[string]json.RawMessage, len(own.definitions))
		for k, v := range own.definitions {
			defs[k] = v
		}
		params := make(map[string]json.RawMessage, len(own.parameters))
		for k, v := range own.parameters {
			params[k] = v
		}
		for _, e := range served {
			parts := e.v2
			if parts == nil {
				continue
			}
			for k, v := range parts.paths {
				if _, ok := paths[k]; !ok {
					paths[k] = v
				}
			}
			for k, v := range parts.definitions {
				if _, ok := defs[k]; !ok {
					defs[k] = v
				}
			}
			// Shared parameters are named by a hash of their content:
			// the same name is the same parameter.
			for k, v := range parts.parameters {
				if _, ok := params[k]; !ok {
					params[k] = v
				}
			}
		}
		b, err := encodeOpenAPIV2(own.top, paths, defs, params)
		if err == nil {
			v2, hash = b, registry.OpenAPIHash(b)
		} else {
			c.logger.Error("encode the aggregated OpenAPI v2 document; serving aggsim's own", "err", err)
		}
	}
	return v2, hash
}

// protobuf returns the snapshot's v2 document as gnostic protobuf, encoding
// it on the first call; nil when it cannot be encoded (logged once).
func (s *openAPISnapshot) protobuf(logger *slog.Logger) []byte {
	s.v2pbOnce.Do(func() {
		v2, _ := s.v2doc()
		doc, err := openapi_v2.ParseDocument(v2)
		if err != nil {
			logger.Error("parse the OpenAPI v2 document", "err", err)
			return
		}
		if s.v2pb, err = (proto.MarshalOptions{Deterministic: true}).Marshal(doc); err != nil {
			logger.Error("encode the OpenAPI v2 document as protobuf", "err", err)
			s.v2pb = nil
		}
	})
	return s.v2pb
}

// openAPIV2Format is one representation /openapi/v2 offers: the media
// range it answers (type and subtype) and the Content-Type it answers with.
type openAPIV2Format struct {
	typ, subtype, contentType string
	protobuf                  bool
}

// openAPIV2Formats are kube-openapi's offers, in its order
// (k8s.io/kube-openapi/pkg/handler/handler.go): JSON, then gnostic
// protobuf under its deprecated and its current name, both answered as
// application/com.github.proto-openapi.spec.v2.v1.0+protobuf (captured
// from kube-apiserver 1.33.13, scenario openapi-v2-protobuf).
var openAPIV2Formats = []openAPIV2Format{
	{"application", "json", "application/json", false},
	{"application", "com.github.proto-openapi.spec.v2@v1.0+protobuf", openAPIV2ProtobufType, true},
	{"application", "com.github.proto-openapi.spec.v2.v1.0+protobuf", openAPIV2ProtobufType, true},
}

// negotiateOpenAPIV2 picks the representation of /openapi/v2 for an
// Accept header as kube-openapi's handler does: the clauses in
// goautoneg's order (quality, then specificity, then header order; an
// absent header is "*/*"), and for each the first offer whose type and
// subtype it names or wildcards; parameters, q=0 included, are not
// consulted. false: none matches (kube-apiserver answers 406 with an
// empty body).
func negotiateOpenAPIV2(accept string) (openAPIV2Format, bool) {
	if accept == "" {
		accept = "*/*"
	}
	for _, c := range negotiation.ParseAccept(accept) {
		for _, f := range openAPIV2Formats {
			if (c.Type == f.typ || c.Type == "*") && (c.Subtype == f.subtype || c.Subtype == "*") {
				return f, true
			}
		}
	}
	return openAPIV2Format{}, false
}

// ServeV2 answers /openapi/v2 in the representation negotiateOpenAPIV2
// picks (JSON when the protobuf form cannot be encoded), or 406 with an
// empty body as kube-openapi answers.
func (c *Controller) ServeV2(w http.ResponseWriter, r *http.Request) {
	snap := c.snapshot()
	w.Header().Set("Vary", "Accept")
	f, ok := negotiateOpenAPIV2(r.Header.Get("Accept"))
	if !ok {
		w.WriteHeader(http.StatusNotAcceptable)
		return
	}
	body, etag := snap.v2doc()
	ct := "application/json"
	if f.protobuf {
		if pb := snap.protobuf(c.logger); pb != nil {
			body, ct = pb, f.contentType
		}
	}
	w.Header().Set("Etag", etag)
	w.Header().Set("Content-Type", ct)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(body)
}

// ServeV3Index answers /openapi/v3.
func (c *Controller) ServeV3Index(w http.ResponseWriter, r *http.Request) {
	snap := c.snapshot()
	w.Header().Set("Etag", snap.indexEtag)
	// kube-openapi's handler3 sets none and Go's sniffing answers this
	// (captured from kube-apiserver 1.33.13, scenario openapi-v3-index).
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if r.Header.Get("If-None-Match") == snap.indexEtag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(snap.index)
}

// ServeV3Document answers /openapi/v3/<key> from the fetched remote
// documents, then aggsim's own; an unknown key is a 404 without body (as
// kube-aggregator's v3 handler answers).
func (c *Controller) ServeV3Document(w http.ResponseWriter, r *http.Request) {
	key := strings.TrimPrefix(r.URL.Path, "/openapi/v3/")
	doc, ok := c.snapshot().remote[key]
	if !ok {
		body, found := registry.OpenAPIV3GroupVersion(key)
		if !found {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		hash, _ := registry.OpenAPIV3Hash(key)
		doc = openAPIV3Doc{body: body, hash: hash}
	}
	etag := `"` + doc.hash + `"`
	w.Header().Add("Vary", "Accept")
	w.Header().Set("Etag", etag)
	switch h := r.URL.Query().Get("hash"); {
	case h != "" && h != doc.hash:
		http.Redirect(w, r, "/openapi/v3/"+key+"?hash="+doc.hash, http.StatusMovedPermanently)
		return
	case h != "":
		w.Header().Set("Cache-Control", "public, immutable")
		w.Header().Set("Expires", c.now().UTC().AddDate(1, 0, 0).Format(time.RFC1123))
	default:
		w.Header().Set("Cache-Control", "no-cache, private")
	}
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(doc.body)
}
