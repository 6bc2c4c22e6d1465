package aggregator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/flowcontrol"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/rest"
)

// The field managers of kube-apiserver's API Priority and Fairness
// configuration producer (creates and keeps the bootstrap objects) and
// consumer (writes the FlowSchema Dangling condition), as they show in
// managedFields.
const (
	apfProducerManager = "api-priority-and-fairness-config-producer-v1"
	apfConsumerManager = "api-priority-and-fairness-config-consumer-v1"
	// apfEnsureInterval is how often the producer puts the bootstrap
	// objects back (measured on kube-apiserver 1.33.13: a deleted
	// mandatory FlowSchema came back at the next whole minute after
	// start-up).
	apfEnsureInterval = time.Minute
	// apfRetryDelay is how long the consumer waits before retrying a
	// failed status write.
	apfRetryDelay = time.Second
)

var (
	flowSchemasResource    = meta.GroupResource{Group: registry.GroupFlowControl, Resource: "flowschemas"}
	priorityLevelsResource = meta.GroupResource{Group: registry.GroupFlowControl, Resource: "prioritylevelconfigurations"}
)

const apfPathPrefix = "/apis/" + registry.GroupFlowControl + "/v1/"

// loopback sends requests to the server's own handlers in-process, as
// kube-apiserver's own controllers (and kube-controller-manager's) write
// through a loopback client: the writes get the API's defaulting,
// validation and managedFields. api is the REST API itself (the APF
// producer and consumer, ClusterRole aggregation), or the full handler
// chain with user as the caller (the namespace controller).
type loopback struct {
	api       http.Handler
	user      *authentication.UserInfo // nil: no user (api is not the chain)
	userAgent string                   // "": none
}

// send sends one request and returns the status code and body. A handler
// aborted with http.ErrAbortHandler (the chain's request timeout does so,
// as upstream's; an http.Server would recover it) is an error.
func (l loopback) send(ctx context.Context, method, path, query, contentType, accept string, body []byte) (code int, out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler {
				panic(p)
			}
			code, out, err = 0, nil, fmt.Errorf("%s %s: the handler was aborted (request timeout)", method, path)
		}
	}()
	if l.user != nil {
		ctx = withInProcessUser(ctx, l.user)
	}
	r, err := http.NewRequestWithContext(ctx, method, path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	r.URL.RawQuery = query
	r.RemoteAddr = "127.0.0.1:0"
	r.RequestURI = r.URL.RequestURI()
	r.Header.Set("Accept", accept)
	if l.userAgent != "" {
		r.Header.Set("User-Agent", l.userAgent)
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	w := &bufferWriter{header: http.Header{}}
	l.api.ServeHTTP(w, r)
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.code, w.body.Bytes(), nil
}

// do sends one request asking for JSON; a non-2xx answer is returned as
// statusErrorOf's error (the API's *meta.StatusError).
func (l loopback) do(ctx context.Context, method, path, query, contentType string, body []byte) error {
	code, b, err := l.send(ctx, method, path, query, contentType, "application/json", body)
	if err != nil || (code >= 200 && code < 300) {
		return err
	}
	return statusErrorOf(code, b)
}

// bufferWriter is the http.ResponseWriter of a loopback request.
type bufferWriter struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (w *bufferWriter) Header() http.Header { return w.header }
func (w *bufferWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.body.Write(b)
}
func (w *bufferWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

// apfKind is one of the two kinds the producer keeps.
type apfKind struct {
	kind, resource string
	names          []string
	// want returns the bootstrap spec of name given the current stored
	// spec (nil when absent), and whether the current one equals it.
	want func(name string, current json.RawMessage) (spec any, equal bool)
}

// apfKinds are the kinds in the order upstream ensures them.
var apfKinds = []apfKind{
	{kind: "PriorityLevelConfiguration", resource: "prioritylevelconfigurations", names: flowcontrol.BootstrapPriorityLevelNames,
		want: func(name string, current json.RawMessage) (any, bool) {
			want, _ := flowcontrol.BootstrapPriorityLevel(name)
			if current == nil {
				return want, false
			}
			var have flowcontrol.PriorityLevelConfigurationSpec
			if json.Unmarshal(current, &have) != nil {
				return want, false
			}
			if name == flowcontrol.NameExempt {
				// upstream keeps an administrator's spec.exempt of the
				// exempt level (measured: nominalConcurrencyShares 7 kept)
				want.Exempt = have.Exempt
			}
			return want, flowcontrol.SemanticEqual(want, have)
		}},
	{kind: "FlowSchema", resource: "flowschemas", names: flowcontrol.BootstrapFlowSchemaNames,
		want: func(name string, current json.RawMessage) (any, bool) {
			want, _ := flowcontrol.BootstrapFlowSchema(name)
			if current == nil {
				return want, false
			}
			var have flowcontrol.FlowSchemaSpec
			if json.Unmarshal(current, &have) != nil {
				return want, false
			}
			return want, flowcontrol.SemanticEqual(want, have)
		}},
}

// apfProducer creates the bootstrap FlowSchemas and
// PriorityLevelConfigurations and keeps them, as kube-apiserver's APF
// configuration producer (pkg/registry/flowcontrol/ensurer and the
// priority-and-fairness-config-producer post-start hook): a missing
// bootstrap object is created again; one whose spec is auto-updated
// (always for exempt and catch-all; for the others while the
// apf.kubernetes.io/autoupdate-spec annotation says true, or, without a
// boolean annotation, while generation is 1) gets its bootstrap spec
// back; an object that is not a bootstrap one but carries the annotation
// "true" is deleted.
type apfProducer struct {
	api      *rest.API
	client   loopback
	logger   *slog.Logger
	now      func() time.Time
	interval time.Duration
	// created is set by createMissing when it created every bootstrap
	// object (a fresh store): Run's first pass would find each as just
	// written, so it waits for the interval (upstream's first pass is
	// the one that creates them).
	created bool
}

func (p *apfProducer) store(resource string) *registry.Store {
	return p.api.Store(meta.GroupResource{Group: registry.GroupFlowControl, Resource: resource})
}

// writer writes k's objects as the producer (its managedFields manager);
// a bootstrap object's create takes its fields from the generated table
// (rbac_bootstrap_fields.go).
func (p *apfProducer) writer(k apfKind) rest.ObjectWriter {
	return rest.ObjectWriter{Store: p.store(k.resource), Manager: apfProducerManager, CreateFields: bootstrapCreateFields(k.resource)}
}

// createMissing creates every bootstrap object that does not exist, all
// at once so the store commits them in one transaction with the bootstrap
// namespaces and APIServices (ensureObjects).
func (p *apfProducer) createMissing(ctx context.Context) error {
	ctx = registry.WithStatusOnCreate(ctx)
	errs := make([]error, len(apfKinds))
	fresh := make([]bool, len(apfKinds)) // every object of the kind was missing
	var wg sync.WaitGroup
	for i, k := range apfKinds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			objs := make([]meta.Object, 0, len(k.names))
			for _, name := range k.names {
				o, err := p.bootstrapObject(ctx, k, name)
				if err != nil {
					errs[i] = err
					return
				}
				objs = append(objs, o)
			}
			w := p.writer(k)
			missing, err := missingObjects(ctx, w, objs)
			if err != nil {
				errs[i] = fmt.Errorf("list %ss: %w", k.kind, err)
				return
			}
			fresh[i] = len(missing) == len(objs)
			errs[i] = ensureObjects(ctx, w, k.kind, missing, nil)
		}()
	}
	wg.Wait()
	err := errors.Join(errs...)
	p.created = err == nil && !slices.Contains(fresh, false)
	return err
}

var producerQuery = "fieldManager=" + url.QueryEscape(apfProducerManager)

// create creates the bootstrap object name of kind k as the producer.
func (p *apfProducer) create(ctx context.Context, k apfKind, name string) error {
	o, err := p.bootstrapObject(ctx, k, name)
	if err == nil {
		_, err = p.writer(k).Create(registry.WithStatusOnCreate(ctx), o)
	}
	if err != nil {
		return fmt.Errorf("create %s %q: %w", k.kind, name, err)
	}
	return nil
}

// bootstrapObject is the object the producer creates name of kind k as:
// its bootstrap spec, annotated auto-updated. A FlowSchema comes with the
// Dangling condition the consumer would apply at once (and the
// consumer's Apply entry in managedFields), so that a fresh server does
// not follow its bootstrap with thirteen status applies; the consumer
// still corrects it when the level is not there. The writer adds the
// producer's Update entry.
func (p *apfProducer) bootstrapObject(ctx context.Context, k apfKind, name string) (*registry.GenericObject, error) {
	want, _ := k.want(name, nil)
	spec, err := json.Marshal(want)
	if err != nil {
		return nil, err
	}
	o := &registry.GenericObject{
		TypeMeta: meta.TypeMeta{Kind: k.kind, APIVersion: registry.GroupFlowControl + "/v1"},
		ObjectMeta: meta.ObjectMeta{Name: name,
			Annotations: map[string]string{flowcontrol.AutoUpdateAnnotation: "true"}},
		Spec: spec,
	}
	fs, ok := want.(flowcontrol.FlowSchemaSpec)
	if !ok {
		return o, nil
	}
	level := fs.PriorityLevelConfiguration.Name
	_, exists := flowcontrol.BootstrapPriorityLevel(level)
	if !exists {
		_, err := p.store(priorityLevelsResource.Resource).Get(ctx, "", level)
		exists = err == nil
	}
	now := meta.NewTime(p.now().Truncate(time.Second))
	cond := danglingCondition(level, exists)
	cond.LastTransitionTime = now
	if o.Status, err = json.Marshal(flowcontrol.FlowSchemaStatus{Conditions: []flowcontrol.FlowSchemaCondition{cond}}); err != nil {
		return nil, err
	}
	o.ManagedFields = []meta.ManagedFieldsEntry{{Manager: apfConsumerManager, Operation: "Apply",
		APIVersion: registry.GroupFlowControl + "/v1", Time: &now, FieldsType: "FieldsV1", FieldsV1: danglingFields, Subresource: "status"}}
	return o, nil
}

// autoUpdate says whether the producer keeps obj's spec
// (upstream shouldUpdateSpec): a boolean annotation decides, else only an
// object never changed (generation 1) is kept.
func autoUpdate(o *registry.GenericObject) bool {
	if v, err := strconv.ParseBool(o.Annotations[flowcontrol.AutoUpdateAnnotation]); err == nil {
		return v
	}
	return o.Generation == 1
}

// ensure makes one pass over every bootstrap object (upstream
// EnsureConfiguration, suggested and mandatory) and removes the stale
// auto-updated ones.
func (p *apfProducer) ensure(ctx context.Context) error {
	var errs []error
	for _, k := range apfKinds {
		st := p.store(k.resource)
		// one list per kind: each object is decoded once per pass
		items, _, _, err := st.List(ctx, "", registry.ListOptions{})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		stored := make(map[string]*registry.GenericObject, len(items))
		for _, it := range items {
			stored[it.GetObjectMeta().Name] = it.(*registry.GenericObject)
		}
		for _, name := range k.names {
			obj, ok := stored[name]
			delete(stored, name) // what is left is not a bootstrap object
			if !ok {
				if err := p.create(ctx, k, name); err != nil && !errors.Is(err, meta.ErrAlreadyExists) {
					errs = append(errs, err)
				}
				continue
			}
			if err := p.revise(ctx, k, obj); err != nil {
				errs = append(errs, fmt.Errorf("update %s %q: %w", k.kind, name, err))
			}
		}
		for _, it := range items {
			m := it.GetObjectMeta()
			if stored[m.Name] == nil {
				continue // a bootstrap object
			}
			if v, err := strconv.ParseBool(m.Annotations[flowcontrol.AutoUpdateAnnotation]); err != nil || !v {
				continue // a user's object
			}
			rv := m.ResourceVersion
			if _, err := st.Delete(ctx, "", m.Name, &meta.Preconditions{ResourceVersion: &rv}); err != nil && !errors.Is(err, meta.ErrNotFound) {
				errs = append(errs, fmt.Errorf("delete %s %q: %w", k.kind, m.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// revise updates o when its spec or annotation is not what the producer
// wants (upstream ReviseIfNeeded): an auto-updated object gets its
// bootstrap spec, and the annotation always says whether the spec is
// auto-updated.
func (p *apfProducer) revise(ctx context.Context, k apfKind, o *registry.GenericObject) error {
	auto := flowcontrol.IsMandatory(o.Name) || autoUpdate(o)
	annotationOK := false
	if v, err := strconv.ParseBool(o.Annotations[flowcontrol.AutoUpdateAnnotation]); err == nil && v == auto {
		annotationOK = true
	}
	var spec any
	specChanged := false
	if auto {
		var equal bool
		spec, equal = k.want(o.Name, o.Spec)
		specChanged = !equal
	}
	if annotationOK && !specChanged {
		return nil
	}
	next := *o
	next.Annotations = map[string]string{}
	for key, v := range o.Annotations {
		next.Annotations[key] = v
	}
	next.Annotations[flowcontrol.AutoUpdateAnnotation] = strconv.FormatBool(auto)
	if specChanged {
		b, err := json.Marshal(spec)
		if err != nil {
			return err
		}
		next.Spec = b
	}
	next.Kind, next.APIVersion = k.kind, registry.GroupFlowControl+"/v1"
	body, err := json.Marshal(&next)
	if err != nil {
		return err
	}
	return p.client.do(ctx, http.MethodPut, apfPathPrefix+k.resource+"/"+o.Name, producerQuery, "application/json", body)
}

// Run ensures the bootstrap objects at once (the server starts it once
// ready; start-up created the missing ones already) and then every
// interval until ctx ends.
func (p *apfProducer) Run(ctx context.Context) {
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for first := true; ; first = false {
		// skipped first when createMissing wrote every object just now
		if skip := first && p.created; !skip {
			if err := p.ensure(ctx); err != nil && ctx.Err() == nil {
				p.logger.Error("ensure APF bootstrap configuration", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// apfConsumer maintains the Dangling condition of every FlowSchema as
// kube-apiserver's APF configuration consumer does
// (k8s.io/apiserver/pkg/util/flowcontrol/apf_controller.go,
// presyncFlowSchemaStatus): False/Found when the referenced
// PriorityLevelConfiguration exists, True/NotFound when not, written by
// server-side apply of the condition to /status (manager
// api-priority-and-fairness-config-consumer-v1, force) whenever status,
// reason or message differ, with lastTransitionTime now.
type apfConsumer struct {
	flowSchemas, priorityLevels *Informer
	client                      loopback
	logger                      *slog.Logger
	now                         func() time.Time
	// kick has room for one pending resync.
	kick chan struct{}

	mu sync.Mutex
	// schemas holds what sync reads of each FlowSchema, by name, decoded
	// once per change of the FlowSchema (not on every pass).
	schemas map[string]flowSchemaView
}

// flowSchemaView is what the consumer reads of a FlowSchema: the level it
// references and its Dangling condition (zero when it has none).
type flowSchemaView struct {
	level    string
	dangling flowcontrol.FlowSchemaCondition
}

func newAPFConsumer(flowSchemas, priorityLevels *Informer, client loopback, logger *slog.Logger, now func() time.Time) *apfConsumer {
	c := &apfConsumer{flowSchemas: flowSchemas, priorityLevels: priorityLevels, client: client, logger: logger, now: now,
		kick: make(chan struct{}, 1), schemas: map[string]flowSchemaView{}}
	flowSchemas.AddHandler(c.onFlowSchema)
	priorityLevels.AddHandler(func(_, _ meta.Object) { c.trigger() })
	return c
}

// onFlowSchema records the view of a changed FlowSchema and triggers a
// resync.
func (c *apfConsumer) onFlowSchema(old, cur meta.Object) {
	c.mu.Lock()
	if cur == nil {
		delete(c.schemas, old.GetObjectMeta().Name)
	} else {
		fs := cur.(*registry.GenericObject)
		var spec struct {
			PriorityLevelConfiguration struct {
				Name string `json:"name"`
			} `json:"priorityLevelConfiguration"`
		}
		var status flowcontrol.FlowSchemaStatus
		_ = json.Unmarshal(fs.Spec, &spec)
		if len(fs.Status) > 0 {
			_ = json.Unmarshal(fs.Status, &status)
		}
		v := flowSchemaView{level: spec.PriorityLevelConfiguration.Name}
		for _, cond := range status.Conditions {
			if cond.Type == "Dangling" {
				v.dangling = cond
			}
		}
		c.schemas[fs.Name] = v
	}
	c.mu.Unlock()
	c.trigger()
}

func (c *apfConsumer) trigger() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// Run waits for both informers and resyncs on every change until ctx
// ends; a failed write is retried after apfRetryDelay.
func (c *apfConsumer) Run(ctx context.Context) {
	for _, ch := range []<-chan struct{}{c.flowSchemas.Synced(), c.priorityLevels.Synced()} {
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
	c.trigger()
	var retry <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.kick:
		case <-retry:
		}
		retry = nil
		if err := c.sync(ctx); err != nil && ctx.Err() == nil {
			c.logger.Debug("write FlowSchema Dangling condition", "err", err)
			retry = time.After(apfRetryDelay)
		}
	}
}

// danglingFields is the fieldsV1 of the consumer's Apply of the Dangling
// condition (as kube-apiserver 1.33.13 records it).
var danglingFields = []byte(`{"f:status":{"f:conditions":{"k:{\"type\":\"Dangling\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`)

// danglingCondition is the Dangling condition a FlowSchema referencing
// level should have, lastTransitionTime aside.
func danglingCondition(level string, exists bool) flowcontrol.FlowSchemaCondition {
	if exists {
		return flowcontrol.FlowSchemaCondition{Type: "Dangling", Status: "False", Reason: "Found",
			Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q and it exists", level)}
	}
	return flowcontrol.FlowSchemaCondition{Type: "Dangling", Status: "True", Reason: "NotFound",
		Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q but there is no such object", level)}
}

// sync writes the Dangling condition of every FlowSchema whose condition
// is not the one it should have.
func (c *apfConsumer) sync(ctx context.Context) error {
	c.mu.Lock()
	schemas := maps.Clone(c.schemas)
	c.mu.Unlock()
	var errs []error
	for name, v := range schemas {
		_, exists := c.priorityLevels.Get("", v.level)
		want := danglingCondition(v.level, exists)
		have := v.dangling
		if have.Status == want.Status && have.Reason == want.Reason && have.Message == want.Message {
			continue
		}
		want.LastTransitionTime = meta.NewTime(c.now())
		if err := c.apply(ctx, name, want); err != nil && !errors.Is(err, meta.ErrNotFound) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

var consumerQuery = "fieldManager=" + url.QueryEscape(apfConsumerManager) + "&force=true"

// apply server-side-applies cond to the status of the FlowSchema name, as
// upstream's ApplyStatus of a FlowSchema apply configuration carrying only
// the name and the condition.
func (c *apfConsumer) apply(ctx context.Context, name string, cond flowcontrol.FlowSchemaCondition) error {
	body, err := json.Marshal(map[string]any{
		"kind": "FlowSchema", "apiVersion": registry.GroupFlowControl + "/v1",
		"metadata": map[string]string{"name": name},
		"status":   flowcontrol.FlowSchemaStatus{Conditions: []flowcontrol.FlowSchemaCondition{cond}},
	})
	if err != nil {
		return err
	}
	// body is encoding/json's: the apply takes it as its JSON form
	return c.client.do(rest.WithJSONApplyBody(ctx), http.MethodPatch, apfPathPrefix+"flowschemas/"+name+"/status", consumerQuery, "application/apply-patch+yaml", body)
}
