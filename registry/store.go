package registry

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aggsim/aggsim/internal/uuid4"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// StoreOptions configures a Store. A zero field means the documented
// default.
type StoreOptions struct {
	// Clock returns the current time for creationTimestamp and
	// managedFields; nil means time.Now.
	Clock func() time.Time
	// NamespaceExists reports whether a namespace exists; creates of
	// namespaced objects into a missing namespace fail with 404
	// `namespaces "<ns>" not found` (upstream's NamespaceLifecycle
	// admission). nil means every namespace exists.
	NamespaceExists func(ctx context.Context, ns string) (bool, error)
	// NamespaceTerminating, when set, is used instead of NamespaceExists:
	// it reports whether the namespace exists and whether it is being
	// deleted (status.phase Terminating); creates into it fail with 403
	// `<resource> "<name>" is forbidden: unable to create new content in
	// namespace <ns> because it is being terminated` and the cause
	// NamespaceTerminating (upstream's NamespaceLifecycle admission,
	// plugin/pkg/admission/namespace/lifecycle). nil means never.
	NamespaceTerminating func(ctx context.Context, ns string) (exists, terminating bool, err error)
	// Logger receives debug logs; nil means slog.Default().
	Logger *slog.Logger
	// BookmarkInterval is how often a watch with allowWatchBookmarks sends
	// a BOOKMARK event; zero means one minute (as upstream's watch cache).
	BookmarkInterval time.Duration
	// Admit, when set, is asked about every create (old nil) and every
	// update of the main resource, after the strategy prepared the object
	// and before it is validated, as upstream's policy-based RBAC storage
	// wraps Create and Update (escalation checks); an error refuses the
	// write as it is.
	Admit func(ctx context.Context, info ResourceInfo, obj, old meta.Object) error
	// Admission, when set, is the admission chain (webhooks and policies)
	// every create, update (also of subresources) and delete passes
	// through: see Admission for where its steps run. nil admits all.
	Admission Admission
}

// MergeKeysOf derives the strategic-merge-patch keys of a wire type from
// its struct tags, as upstream's strategicpatch reads them
// (patchStrategy:"merge" with patchMergeKey:"<key>"): the dotted JSON path
// of each merged list (without indices; embedded ObjectMeta as
// "metadata") mapped to its key, "" for a list of scalars merged as a set.
// Types are walked once per path; recursion stops at a type already on the
// path. The walk is done once per type (mergeKeysByType); each call
// returns a map of its own.
func MergeKeysOf(t reflect.Type) map[string]string {
	if m, ok := mergeKeysByType.Load(t); ok {
		return maps.Clone(m.(map[string]string))
	}
	out := mergeKeysWalk(t)
	mergeKeysByType.Store(t, out)
	return maps.Clone(out)
}

// mergeKeysByType holds MergeKeysOf's walks by type (never changed once
// stored): every server a process starts (aggregatortest) builds its 40
// stores from the same types.
var mergeKeysByType sync.Map

// mergeKeysWalk is MergeKeysOf's walk of t.
func mergeKeysWalk(t reflect.Type) map[string]string {
	out := map[string]string{}
	walkWireFields(t, func(f reflect.StructField, p string) bool {
		if f.Tag.Get("patchStrategy") == "merge" && f.Type.Kind() == reflect.Slice {
			out[p] = f.Tag.Get("patchMergeKey")
		}
		return true
	})
	return out
}

// Store is the generic registry store: create, get, list, update, delete
// and watch of one resource over a storage.Storage, with the per-resource
// behaviour supplied by a Strategy. It mirrors
// k8s.io/apiserver/pkg/registry/generic/registry/store.go. Objects are kept
// as JSON under "/registry/<group>/<resource>/[<namespace>/]<name>" (group
// "core" for the legacy core group), without metadata.resourceVersion: the
// store injects the key's ModRevision (decimal) on every read.
//
// A Store is safe for concurrent use.
type Store struct {
	st       storage.Storage
	strategy Strategy
	info     ResourceInfo
	prefix   string // "/registry/<group>/<resource>/"
	clock    func() time.Time
	nsExists func(ctx context.Context, ns string) (bool, error)
	nsTerm   func(ctx context.Context, ns string) (exists, terminating bool, err error)
	admit    func(ctx context.Context, info ResourceInfo, obj, old meta.Object) error
	// admission is StoreOptions.Admission (admission.go).
	admission Admission
	log       *slog.Logger
	bookmark  time.Duration
	// mergeKeys are the strategic-merge-patch keys of the resource
	// (including those of ObjectMeta), see PatchMetaProvider.
	mergeKeys map[string]string
	// allocLock serialises the writes of an Allocator strategy that
	// allocate (allocate.go).
	allocLock
	// started is the storage revision when the Store was made: as
	// kube-apiserver's watch cache begins with a list at the revision of
	// its start, a watch from an older revision is 410 Expired `too old
	// resource version: N (started)`.
	started int64
	// emptyAt is the storage revision at which the resource was last
	// found empty (Empty, store_empty.go); 0 when it was not.
	emptyAt atomic.Int64
}

// CreateOnUpdater is an optional Strategy extension: when
// AllowCreateOnUpdate returns true, an update (PUT or apply) of a missing
// object creates it (upstream: RESTUpdateStrategy.AllowCreateOnUpdate).
// Without it, updating a missing object is 404 NotFound.
type CreateOnUpdater interface {
	AllowCreateOnUpdate() bool
}

// UnconditionalUpdater is an optional Strategy extension: when
// AllowUnconditionalUpdate returns false, an update without
// metadata.resourceVersion is rejected with 422
// `metadata.resourceVersion: Invalid value: 0: must be specified for an
// update` (upstream: RESTUpdateStrategy.AllowUnconditionalUpdate; the
// APIService strategy says false). Without it, unconditional updates are
// allowed.
type UnconditionalUpdater interface {
	AllowUnconditionalUpdate() bool
}

// StatusValidator is an optional Strategy extension: a write to /status
// is checked by ValidateStatusUpdate instead of ValidateUpdate (upstream:
// the status strategy's own ValidateUpdate, e.g. services' checks the
// load-balancer status).
type StatusValidator interface {
	ValidateStatusUpdate(obj, old meta.Object) meta.FieldErrors
}

// DeletedObjectReturner is an optional Strategy extension: when
// ReturnDeletedObject returns true, DELETE answers with the deleted object;
// otherwise with a Success Status naming it (upstream:
// Store.ReturnDeletedObject, set e.g. for namespaces and services).
type DeletedObjectReturner interface {
	ReturnDeletedObject() bool
}

// NewStore returns a Store for the strategy's resource over st.
func NewStore(st storage.Storage, s Strategy, opts StoreOptions) *Store {
	info := s.Info()
	group := info.Group
	if group == "" {
		group = "core"
	}
	store := &Store{
		st:        st,
		strategy:  s,
		info:      info,
		prefix:    "/registry/" + group + "/" + info.Resource + "/",
		clock:     opts.Clock,
		nsExists:  opts.NamespaceExists,
		nsTerm:    opts.NamespaceTerminating,
		admit:     opts.Admit,
		admission: opts.Admission,
		log:       opts.Logger,
		bookmark:  opts.BookmarkInterval,
		started:   st.Revision(),
	}
	if store.clock == nil {
		store.clock = time.Now
	}
	if store.log == nil {
		store.log = slog.Default()
	}
	if store.bookmark <= 0 {
		store.bookmark = time.Minute
	}
	store.mergeKeys = MergeKeysOf(reflect.TypeOf(s.New()))
	if _, ok := store.mergeKeys["metadata.finalizers"]; !ok {
		// Kinds without a Go schema (GenericObject) still merge ObjectMeta's
		// lists as every kind does.
		maps.Copy(store.mergeKeys, MergeKeysOf(reflect.TypeOf(meta.ObjectMeta{})))
	}
	if pm, ok := s.(PatchMetaProvider); ok {
		for k, v := range pm.MergeKeys() {
			store.mergeKeys[k] = v
		}
	}
	return store
}

// Info describes the store's resource.
func (s *Store) Info() ResourceInfo { return s.info }

// Strategy returns the strategy the store was built with.
func (s *Store) Strategy() Strategy { return s.strategy }

// MergeKeys returns the strategic-merge-patch keys of the resource, those
// of ObjectMeta included (see PatchMetaProvider): list field path → key.
func (s *Store) MergeKeys() map[string]string { return s.mergeKeys }

// Now returns the store clock's current time (StoreOptions.Clock).
func (s *Store) Now() time.Time { return s.clock() }

// Revision returns the storage's current revision, the resourceVersion of
// a list that reads the current state.
func (s *Store) Revision() int64 { return s.st.Revision() }

type dryRunKey struct{}

// WithDryRun returns a copy of ctx under which the store's writes (Create,
// Update, UpdateStatus, Delete) validate and return their result without
// persisting it (?dryRun=All).
func WithDryRun(ctx context.Context) context.Context {
	return context.WithValue(ctx, dryRunKey{}, true)
}

func isDryRun(ctx context.Context) bool {
	v, _ := ctx.Value(dryRunKey{}).(bool)
	return v
}

func (s *Store) key(ns, name string) string {
	if s.info.Namespaced {
		return s.prefix + ns + "/" + name
	}
	return s.prefix + name
}

// listPrefix is the key prefix of a list in ns ("" = all namespaces).
func (s *Store) listPrefix(ns string) string {
	if s.info.Namespaced && ns != "" {
		return s.prefix + ns + "/"
	}
	return s.prefix
}

// Names returns the names of the stored objects of a cluster-scoped
// resource (or of namespace ns of a namespaced one) in key order, without
// decoding them: an existence check for start-up that costs one read
// transaction. Errors are the storage's.
func (s *Store) Names(ctx context.Context, ns string) ([]string, error) {
	p := s.listPrefix(ns)
	kvs, _, err := s.st.List(ctx, p)
	if err != nil {
		return nil, s.storageErr(err, "")
	}
	out := make([]string, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, strings.TrimPrefix(kv.Key, p))
	}
	return out, nil
}

// decode turns stored bytes into an object with resourceVersion rev.
func (s *Store) decode(value []byte, rev int64) (meta.Object, error) {
	var obj meta.Object
	if c, ok := s.strategy.(StorageCodec); ok {
		o, err := c.FromStorage(value)
		if err != nil {
			return nil, decodeErr(s.info.Resource, err)
		}
		obj = o
	} else {
		obj = s.strategy.New()
		if err := json.Unmarshal(value, obj); err != nil {
			return nil, fmt.Errorf("decode %s: %w", s.info.Resource, err)
		}
		if d, ok := s.strategy.(ReadDefaulter); ok {
			d.DefaultOnRead(obj)
		}
	}
	tm := obj.GetTypeMeta()
	tm.Kind, tm.APIVersion = s.info.Kind, s.info.APIVersion()
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(rev, 10)
	return obj, nil
}

// encode serialises obj for storage (without resourceVersion).
func (s *Store) encode(obj meta.Object) ([]byte, error) {
	m := obj.GetObjectMeta()
	rv, sl := m.ResourceVersion, m.SelfLink
	m.ResourceVersion, m.SelfLink = "", ""
	tm := obj.GetTypeMeta()
	tm.Kind, tm.APIVersion = s.info.Kind, s.info.APIVersion()
	var b []byte
	var err error
	if c, ok := s.strategy.(StorageCodec); ok {
		b, err = c.ToStorage(obj)
	} else {
		b, err = json.Marshal(obj)
	}
	m.ResourceVersion, m.SelfLink = rv, sl
	return b, err
}

// deepCopy copies obj by a JSON round trip.
func (s *Store) deepCopy(obj meta.Object) meta.Object {
	b, err := json.Marshal(obj)
	if err != nil {
		panic(fmt.Sprintf("registry: deep copy of %T: %v", obj, err))
	}
	out := s.strategy.New()
	if err := json.Unmarshal(b, out); err != nil {
		panic(fmt.Sprintf("registry: deep copy of %T: %v", obj, err))
	}
	return out
}

func (s *Store) notFound(name string) error { return meta.NewNotFound(s.info.GroupResource(), name) }

// storageErr maps a storage error for name onto the upstream Status error.
func (s *Store) storageErr(err error, name string) error {
	switch {
	case errors.Is(err, storage.ErrKeyNotFound):
		return s.notFound(name)
	case errors.Is(err, storage.ErrKeyExists):
		return meta.NewAlreadyExists(s.info.GroupResource(), name)
	case errors.Is(err, storage.ErrRevisionMismatch):
		return meta.NewConflict(s.info.GroupResource(), name, conflictMessage)
	}
	var se *meta.StatusError
	if errors.As(err, &se) {
		return err
	}
	return meta.NewInternalError(err)
}

// conflictMessage is upstream's OptimisticLockErrorMsg.
const conflictMessage = "the object has been modified; please apply your changes to the latest version and try again"

// Get returns the object ns/name (ns ignored for cluster-scoped resources),
// or 404 NotFound.
func (s *Store) Get(ctx context.Context, namespace, name string) (meta.Object, error) {
	obj, _, err := s.get(ctx, namespace, name)
	return obj, err
}

func (s *Store) get(ctx context.Context, namespace, name string) (meta.Object, int64, error) {
	if name == "" {
		return nil, 0, s.notFound(name)
	}
	kv, err := s.st.Get(ctx, s.key(namespace, name))
	if err != nil {
		return nil, 0, s.storageErr(err, name)
	}
	obj, err := s.decode(kv.Value, kv.ModRevision)
	if err != nil {
		return nil, 0, internalErr(err)
	}
	return obj, kv.ModRevision, nil
}

// ListOptions are the query parameters of list and watch requests
// (metav1.ListOptions).
type ListOptions struct {
	LabelSelector, FieldSelector string
	// Limit is the page size; 0 means all.
	Limit int64
	// Continue is the opaque token of the previous page.
	Continue string
	// ResourceVersion and ResourceVersionMatch select the state to list
	// or the revision to watch from (see Watch).
	ResourceVersion, ResourceVersionMatch string
	// AllowWatchBookmarks asks a watch for periodic BOOKMARK events.
	AllowWatchBookmarks bool
	// SendInitialEvents (watch with resourceVersionMatch=NotOlderThan):
	// true sends the current state as ADDED events then a BOOKMARK
	// annotated k8s.io/initial-events-end.
	SendInitialEvents *bool
	// TimeoutSeconds ends a watch after this many seconds.
	TimeoutSeconds *int64
}

// ListResult is one page of a list: the objects, the list's
// resourceVersion, the continue token of the next page ("" on the last)
// and, when the list was cut short, how many objects remain
// (metadata.remainingItemCount).
type ListResult struct {
	Items              []meta.Object
	ResourceVersion    string
	Continue           string
	RemainingItemCount *int64
}

// continueToken is the decoded continue parameter, shaped like upstream's
// (k8s.io/apiserver/pkg/storage/continue.go): the list RV and the key
// (relative to the list prefix) to start after.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

func encodeContinue(rv int64, start string) string {
	b, _ := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: rv, StartKey: start})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeContinue(s string) (continueToken, error) {
	var t continueToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return t, meta.NewBadRequest(fmt.Sprintf("invalid continue token: continue key is not valid: %v", err))
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return t, meta.NewBadRequest(fmt.Sprintf("invalid continue token: continue key is not valid: %v", err))
	}
	if t.APIVersion != "meta.k8s.io/v1" {
		return t, meta.NewBadRequest("invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	}
	if t.StartKey == "" || strings.Contains(t.StartKey, "..") || strings.HasPrefix(t.StartKey, "/") {
		return t, meta.NewBadRequest("invalid continue token: continue key is not valid: invalid start key")
	}
	return t, nil
}

// compileSelector parses the label and field selectors of opts.
func (s *Store) compileSelector(opts ListOptions) (selector, error) {
	ls, err := meta.ParseLabelSelector(opts.LabelSelector)
	if err != nil {
		return selector{}, err
	}
	fs, err := meta.ParseFieldSelector(opts.FieldSelector)
	if err != nil {
		return selector{}, err
	}
	fp, custom := s.strategy.(meta.FieldsProvider)
	var extra map[string]string
	if custom {
		extra = fp.SelectableFields(s.strategy.New())
	}
	for _, r := range fs {
		if r.Field == "metadata.name" || r.Field == "metadata.namespace" {
			continue
		}
		if _, ok := extra[r.Field]; ok {
			continue
		}
		// A kind with its own field label conversion (upstream's
		// AddFieldLabelConversionFunc) refuses others one way, a kind
		// without one the default converter's way.
		if custom {
			return selector{}, meta.NewBadRequest(fmt.Sprintf("field label not supported: %s", r.Field))
		}
		return selector{}, meta.NewBadRequest(fmt.Sprintf(`%q is not a known field selector: only "metadata.name", "metadata.namespace"`, r.Field))
	}
	return selector{labels: ls, fields: fs}, nil
}

// matches applies sel to obj.
func (s *Store) matches(sel selector, obj meta.Object) bool {
	if sel.empty() {
		return true
	}
	m := obj.GetObjectMeta()
	if !sel.labels.Matches(m.Labels) {
		return false
	}
	if len(sel.fields) == 0 {
		return true
	}
	f := map[string]string{"metadata.name": m.Name}
	if s.info.Namespaced {
		f["metadata.namespace"] = m.Namespace
	}
	if fp, ok := s.strategy.(meta.FieldsProvider); ok {
		for k, v := range fp.SelectableFields(obj) {
			f[k] = v
		}
	}
	return sel.fields.Matches(f)
}

func parseRV(rv string) (int64, error) {
	n, err := parseResourceVersion(rv)
	if err != nil {
		return 0, meta.NewBadRequest("invalid resource version: " + err.Error())
	}
	return n, nil
}

// parseResourceVersion parses a resourceVersion as upstream's etcd3
// versioner (ParseResourceVersion): "" is 0; otherwise an unsigned decimal,
// the error reading `resourceVersion: Invalid value: "abc":
// strconv.ParseUint: parsing "abc": invalid syntax`. Values above the
// largest int64 are taken as that (a revision no store reaches).
func parseResourceVersion(rv string) (int64, error) {
	if rv == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return 0, meta.Invalid("resourceVersion", rv, err.Error())
	}
	return int64(min(n, math.MaxInt64)), nil
}

// List returns the objects in namespace ("" = all namespaces, ignored for
// cluster-scoped resources) that match the selectors of opts, in key
// order, with the list's resourceVersion and, when opts.Limit cut the list
// short, the continue token of the next page. On a storage that keeps
// history (storage.SnapshotLister, etcd) later pages and
// resourceVersionMatch=Exact read the snapshot of their revision; on the
// others they read the current state but report the first page's
// resourceVersion.
func (s *Store) List(ctx context.Context, namespace string, opts ListOptions) (items []meta.Object, resourceVersion string, continueToken string, err error) {
	r, err := s.ListPage(ctx, namespace, opts)
	if err != nil {
		return nil, "", "", err
	}
	return r.Items, r.ResourceVersion, r.Continue, nil
}

// ListPage is List with the whole page description, remainingItemCount
// included, as the REST layer needs it.
func (s *Store) ListPage(ctx context.Context, namespace string, opts ListOptions) (ListResult, error) {
	sel, err := s.compileSelector(opts)
	if err != nil {
		return ListResult{}, err
	}
	rv, err := parseRV(opts.ResourceVersion)
	if err != nil {
		return ListResult{}, err
	}
	if opts.Limit < 0 {
		opts.Limit = 0
	}
	prefix := s.listPrefix(namespace)
	var tok *continueToken
	if opts.Continue != "" {
		t, err := decodeContinue(opts.Continue)
		if err != nil {
			return ListResult{}, err
		}
		tok = &t
	}
	kvs, rev, err := s.listKVs(ctx, prefix, opts, rv, tok) // store_snapshot.go
	if err != nil {
		return ListResult{}, err
	}
	var start string
	if tok != nil {
		rev = tok.ResourceVersion
		start = prefix + tok.StartKey
	}
	res := ListResult{ResourceVersion: strconv.FormatInt(rev, 10), Items: []meta.Object{}}
	var remaining int64
	for i, kv := range kvs {
		if start != "" && kv.Key < start {
			continue
		}
		if opts.Limit > 0 && int64(len(res.Items)) >= opts.Limit {
			// Is there anything left? Upstream answers a continue token
			// whenever more keys follow, even if none of them match.
			res.Continue = encodeContinue(rev, strings.TrimPrefix(kvs[i-1].Key, prefix)+"\x00")
			remaining = int64(len(kvs) - i)
			break
		}
		obj, err := s.decode(kv.Value, kv.ModRevision)
		if err != nil {
			return ListResult{}, internalErr(err)
		}
		if !s.matches(sel, obj) {
			continue
		}
		res.Items = append(res.Items, obj)
	}
	if res.Continue != "" && sel.empty() {
		res.RemainingItemCount = &remaining
	}
	return res, nil
}

// NewUID returns a random RFC 4122 version 4 UUID in its text form, as
// upstream's uuid.NewUUID for object uids (and for admission requests'
// uids: every webhook call gets its own).
func NewUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return uuid4.Format(b)
}

// nameAlphabet is upstream's utilrand alphabet (no vowels, no confusable
// characters), used for generateName suffixes.
const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// generateName appends 5 random characters to prefix, truncating prefix to
// 58 characters first (names.SimpleNameGenerator).
func generateName(prefix string) string {
	if len(prefix) > 58 {
		prefix = prefix[:58]
	}
	var b [5]byte
	_, _ = rand.Read(b[:])
	suffix := make([]byte, 5)
	for i := range b {
		suffix[i] = nameAlphabet[int(b[i])%len(nameAlphabet)]
	}
	return prefix + string(suffix)
}

func (s *Store) invalid(name string, errs meta.FieldErrors) error {
	return meta.NewInvalid(s.info.Group, s.info.Kind, name, errs)
}

type namespaceCreatedKey struct{}

type statusOnCreateKey struct{}

// WithStatusOnCreate returns a copy of ctx under which a create of a
// GenericObject keeps the status it was given (PrepareForCreate clears it,
// as upstream's strategies do for a client's create). It is for the
// server's own controllers, which create an object together with the
// status they would write at once (the APF producer's FlowSchemas with
// the consumer's Dangling condition): one write instead of two.
func WithStatusOnCreate(ctx context.Context) context.Context {
	return context.WithValue(ctx, statusOnCreateKey{}, true)
}

// WithNamespaceCreatedTogether returns a copy of ctx under which a create
// into one of the namespaces ns skips the check that it exists: the
// caller creates them in the same batch of writes (the bootstrap objects
// of the "default" namespace, written in one transaction with it; a fresh
// store's bootstrap Roles of kube-system and kube-public).
func WithNamespaceCreatedTogether(ctx context.Context, ns ...string) context.Context {
	return context.WithValue(ctx, namespaceCreatedKey{}, ns)
}

// checkNamespace returns 404 `namespaces "<ns>" not found` when the
// namespace of a namespaced object does not exist, and 403 Forbidden with
// the cause NamespaceTerminating when it is being deleted (name is the
// created object's name, as upstream's admission.NewForbidden names it).
func (s *Store) checkNamespace(ctx context.Context, ns, name string) error {
	if !s.info.Namespaced || (s.nsExists == nil && s.nsTerm == nil) {
		return nil
	}
	if v, _ := ctx.Value(namespaceCreatedKey{}).([]string); ns != "" && slices.Contains(v, ns) {
		return nil
	}
	var ok, term bool
	var err error
	if s.nsTerm != nil {
		ok, term, err = s.nsTerm(ctx, ns)
	} else {
		ok, err = s.nsExists(ctx, ns)
	}
	if err != nil {
		return err
	}
	if !ok {
		return meta.NewNotFound(meta.GroupResource{Resource: "namespaces"}, ns)
	}
	if !term {
		return nil
	}
	gr := s.info.GroupResource()
	e := meta.NewStatusError(http.StatusForbidden, meta.StatusReasonForbidden,
		fmt.Sprintf("%s %q is forbidden: unable to create new content in namespace %s because it is being terminated", gr, name, ns))
	e.Status.Details = &meta.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource, Causes: []meta.StatusCause{
		{Reason: "NamespaceTerminating", Message: fmt.Sprintf("namespace %s is being terminated", ns), Field: "metadata.namespace"}}}
	return e
}

// Create persists a new object. The store sets uid, creationTimestamp,
// generation 1 and resourceVersion, generates the name from
// metadata.generateName when name is empty (retrying on collision), and
// runs the strategy's PrepareForCreate, Validate and Canonicalize. Errors:
// 404 for a missing namespace, 422 Invalid, 409 AlreadyExists.
func (s *Store) Create(ctx context.Context, obj meta.Object) (meta.Object, error) {
	if ca, ok := s.strategy.(CreateAdmitter); ok {
		if err := ca.AdmitCreate(); err != nil {
			return nil, err
		}
	}
	m := obj.GetObjectMeta()
	if !s.info.Namespaced {
		m.Namespace = ""
	}
	if s.info.Namespaced && m.Namespace == "" {
		return nil, s.invalid(m.Name, meta.FieldErrors{meta.Required("metadata.namespace", "")})
	}
	// Upstream's admission names a generateName object by its
	// generateName (`configmaps "x-" is forbidden`, measured on 1.33).
	admName := m.Name
	if admName == "" {
		admName = m.GenerateName
	}
	if err := s.checkNamespace(ctx, m.Namespace, admName); err != nil {
		return nil, err
	}
	obj, err := s.admitMutate(ctx, OperationCreate, "", obj, nil, m.Name, m.Namespace)
	if err != nil {
		return nil, err
	}
	m = obj.GetObjectMeta()
	now := meta.NewTime(s.clock())
	m.UID = NewUID()
	m.CreationTimestamp = now
	m.ResourceVersion = ""
	m.SelfLink = ""
	m.DeletionTimestamp = nil
	m.DeletionGracePeriodSeconds = nil
	var keptStatus json.RawMessage
	if g, ok := obj.(*GenericObject); ok && ctx.Value(statusOnCreateKey{}) != nil {
		keptStatus = g.Status
	}
	s.strategy.PrepareForCreate(obj)
	if keptStatus != nil {
		obj.(*GenericObject).Status = keptStatus
	}
	if s.admit != nil {
		if err := s.admit(ctx, s.info, obj, nil); err != nil {
			return nil, err
		}
	}
	generated := false
	if m.Name == "" && m.GenerateName != "" {
		m.Name = generateName(m.GenerateName)
		generated = true
	}
	unlock, aerrs, err := s.allocate(ctx, obj, nil)
	if err != nil {
		return nil, err
	}
	defer unlock() // once the object is stored or refused
	if len(aerrs) > 0 {
		return nil, s.invalid(m.Name, aerrs)
	}
	var errs meta.FieldErrors
	verrs := s.strategy.Validate(obj)
	if m.Name == "" && !hasFieldError(verrs, meta.FieldValueRequired, "metadata.name") {
		// Upstream's object-meta validation reports a missing name once;
		// only a strategy that does not check names needs it here.
		errs = append(errs, meta.Required("metadata.name", "name or generateName is required"))
	}
	errs = append(errs, verrs...)
	if len(errs) > 0 {
		return nil, s.invalid(m.Name, errs)
	}
	if w, ok := s.strategy.(Warner); ok {
		warn(ctx, w.WarningsOnCreate(obj))
	}
	s.strategy.Canonicalize(obj)
	if err := s.admitValidate(ctx, OperationCreate, "", obj, nil, m.Name, m.Namespace); err != nil {
		return nil, err
	}
	if isDryRun(ctx) {
		return s.dryRunReadBack(obj)
	}
	for attempt := 0; ; attempt++ {
		b, err := s.encode(obj)
		if err != nil {
			return nil, internalErr(err)
		}
		rev, err := s.st.Create(ctx, s.key(m.Namespace, m.Name), b)
		if errors.Is(err, storage.ErrKeyExists) && generated && attempt < 8 {
			m.Name = generateName(m.GenerateName)
			continue
		}
		if errors.Is(err, storage.ErrKeyExists) {
			// Upstream's generic store: `object is being deleted: ...`
			// when the existing object has a deletionTimestamp.
			e := meta.NewAlreadyExists(s.info.GroupResource(), m.Name)
			if old, _, gerr := s.get(ctx, m.Namespace, m.Name); gerr == nil && old.GetObjectMeta().DeletionTimestamp != nil {
				e.Status.Message = "object is being deleted: " + e.Status.Message
			}
			return nil, e
		}
		if err != nil {
			return nil, s.storageErr(err, m.Name)
		}
		m.ResourceVersion = strconv.FormatInt(rev, 10)
		s.log.Debug("created", "resource", s.info.GroupResource().String(), "namespace", m.Namespace, "name", m.Name, "rv", rev)
		return s.readBack(obj, b, rev)
	}
}

// Update replaces the main resource (not status) of an existing object.
// A non-empty metadata.resourceVersion is a precondition (409 Conflict
// `... the object has been modified; please apply your changes to the
// latest version and try again`). The strategy's PrepareForUpdate,
// ValidateUpdate and Canonicalize run; an update that changes nothing
// returns the stored object without a write.
func (s *Store) Update(ctx context.Context, obj meta.Object) (meta.Object, error) {
	obj, _, err := s.Replace(ctx, obj, false)
	return obj, err
}

// UpdateStatus replaces the status of an existing object (the /status
// subresource): the strategy's PrepareForStatusUpdate keeps everything but
// status from the stored object.
func (s *Store) UpdateStatus(ctx context.Context, obj meta.Object) (meta.Object, error) {
	if !s.info.HasStatus {
		return nil, NewMethodNotSupported(s.info.GroupResource(), "update")
	}
	obj, _, err := s.Replace(ctx, obj, true)
	return obj, err
}

// NewMethodNotSupported mirrors apierrors.NewMethodNotSupported: 405
// MethodNotAllowed `<action> is not supported on resources of kind "<resource>.<group>"`.
func NewMethodNotSupported(gr meta.GroupResource, action string) *meta.StatusError {
	e := meta.NewStatusError(http.StatusMethodNotAllowed, meta.StatusReasonMethodNotAllowed, fmt.Sprintf("%s is not supported on resources of kind %q", action, gr.String()))
	e.Status.Details = &meta.StatusDetails{Group: gr.Group, Kind: gr.Resource}
	return e
}

// Replace is Update (status false) or UpdateStatus (status true) that also
// reports whether the object was created, which a strategy that allows
// create-on-update (CreateOnUpdater) permits for a PUT of a missing object.
func (s *Store) Replace(ctx context.Context, obj meta.Object, status bool) (meta.Object, bool, error) {
	sub := ""
	if status {
		sub = "status"
	}
	return s.replace(ctx, obj, sub)
}

// UpdateSubresource is Update through subresource sub, one of the
// resource's Subresources that writes the object (namespaces/finalize):
// the strategy's SubresourceUpdater prepares and validates it. The object
// must exist (404 otherwise); the precondition and conflict rules are
// Update's. Errors: 404 for a subresource the strategy does not update.
func (s *Store) UpdateSubresource(ctx context.Context, obj meta.Object, sub string) (meta.Object, error) {
	if _, ok := s.strategy.(SubresourceUpdater); !ok || sub == "" || sub == "status" {
		return nil, meta.NewPathNotFound()
	}
	out, _, err := s.replace(ctx, obj, sub)
	return out, err
}

// SubresourceUpdater is implemented by strategies whose resource has a
// subresource other than status that writes the object, as upstream's
// namespace finalizeStrategy (pkg/registry/core/namespace/strategy.go).
type SubresourceUpdater interface {
	// PrepareForSubresourceUpdate adjusts obj, written through sub over
	// old, before validation.
	PrepareForSubresourceUpdate(sub string, obj, old meta.Object)
	// ValidateSubresourceUpdate validates obj written through sub over old.
	ValidateSubresourceUpdate(sub string, obj, old meta.Object) meta.FieldErrors
}

// replace is Replace through subresource sub ("", "status" or one of a
// SubresourceUpdater's).
func (s *Store) replace(ctx context.Context, obj meta.Object, sub string) (meta.Object, bool, error) {
	status := sub != ""
	m := obj.GetObjectMeta()
	if !s.info.Namespaced {
		m.Namespace = ""
	}
	name := m.Name
	if name == "" {
		return nil, false, s.invalid(name, meta.FieldErrors{meta.Required("metadata.name", "name or generateName is required")})
	}
	var want int64
	// A resourceVersion that is no number is upstream's storage versioner
	// error (etcd3 APIObjectVersioner), which has no API status: 500 with
	// strconv's text and no reason, answered once the object was read (a
	// missing object is 404 first).
	var badRV error
	if m.ResourceVersion != "" {
		n, err := strconv.ParseUint(m.ResourceVersion, 10, 64)
		if err != nil {
			badRV = meta.NewStatusError(http.StatusInternalServerError, "", err.Error())
		}
		want = int64(n) // beyond MaxInt64 it is negative: matches no revision (409)
	}
	for attempt := 0; ; attempt++ {
		old, rev, err := s.get(ctx, m.Namespace, name)
		if err == nil && badRV != nil {
			return nil, false, badRV
		}
		if err != nil {
			if !status && errors.Is(err, meta.ErrNotFound) {
				if cu, ok := s.strategy.(CreateOnUpdater); ok && cu.AllowCreateOnUpdate() {
					if badRV != nil {
						return nil, false, badRV
					}
					if want != 0 {
						return nil, false, s.notFound(name)
					}
					m.ResourceVersion = ""
					created, err := s.Create(ctx, obj)
					if err != nil && errors.Is(err, meta.ErrAlreadyExists) && attempt < 3 {
						continue
					}
					return created, err == nil, err
				}
			}
			return nil, false, err
		}
		if want == 0 {
			if uu, ok := s.strategy.(UnconditionalUpdater); ok && !uu.AllowUnconditionalUpdate() {
				return nil, false, s.invalid(name, meta.FieldErrors{meta.Invalid("metadata.resourceVersion", int64(0), "must be specified for an update")})
			}
		} else if want != rev {
			return nil, false, meta.NewConflict(s.info.GroupResource(), name, conflictMessage)
		}
		out, err := s.applyUpdate(ctx, obj, old, rev, sub)
		if errors.Is(err, errRetry) && want == 0 && attempt < 16 {
			continue
		}
		if errors.Is(err, errRetry) {
			return nil, false, meta.NewConflict(s.info.GroupResource(), name, conflictMessage)
		}
		return out, false, err
	}
}

var errRetry = errors.New("registry: concurrent modification, retry")

// applyUpdate writes obj over old (stored at rev) through subresource sub
// ("" for the object itself). It returns errRetry if the key changed
// meanwhile.
func (s *Store) applyUpdate(ctx context.Context, obj, old meta.Object, rev int64, sub string) (meta.Object, error) {
	om := old.GetObjectMeta()
	// Upstream's update handler runs mutating admission on the object as
	// sent (its UpdatedObjectInfo transformers), before BeforeUpdate.
	obj, err := s.admitMutate(ctx, OperationUpdate, sub, obj, old, om.Name, om.Namespace)
	if err != nil {
		return nil, err
	}
	m := obj.GetObjectMeta()
	var errs meta.FieldErrors
	if m.UID != "" && m.UID != om.UID {
		errs = append(errs, meta.Invalid("metadata.uid", m.UID, "field is immutable"))
	}
	m.UID = om.UID
	m.CreationTimestamp = om.CreationTimestamp
	m.Generation = om.Generation
	m.DeletionTimestamp = om.DeletionTimestamp
	m.DeletionGracePeriodSeconds = om.DeletionGracePeriodSeconds
	m.SelfLink = ""
	var warnings []string // of an UpdateWarningValidator
	su, isSub := s.strategy.(SubresourceUpdater)
	isSub = isSub && sub != "" && sub != "status"
	switch {
	case isSub:
		su.PrepareForSubresourceUpdate(sub, obj, old)
		errs = append(errs, su.ValidateSubresourceUpdate(sub, obj, old)...)
	case sub == "status":
		s.strategy.PrepareForStatusUpdate(obj, old)
		if vw, ok := s.strategy.(UpdateWarningValidator); ok {
			verrs, ws := vw.ValidateStatusUpdateWithWarnings(obj, old)
			errs, warnings = append(errs, verrs...), ws
		} else if sv, ok := s.strategy.(StatusValidator); ok {
			errs = append(errs, sv.ValidateStatusUpdate(obj, old)...)
		} else {
			errs = append(errs, s.strategy.ValidateUpdate(obj, old)...)
		}
	default:
		s.strategy.PrepareForUpdate(obj, old)
		if s.admit != nil {
			if err := s.admit(ctx, s.info, obj, old); err != nil {
				return nil, err
			}
		}
		unlock, aerrs, err := s.allocate(ctx, obj, old)
		if err != nil {
			return nil, err
		}
		defer unlock() // once the object is stored or refused
		if len(aerrs) > 0 {
			return nil, s.invalid(m.Name, append(errs, aerrs...))
		}
		if vw, ok := s.strategy.(UpdateWarningValidator); ok {
			verrs, ws := vw.ValidateUpdateWithWarnings(obj, old)
			errs, warnings = append(errs, verrs...), ws
		} else {
			errs = append(errs, s.strategy.ValidateUpdate(obj, old)...)
		}
	}
	if len(errs) > 0 {
		return nil, s.invalid(m.Name, errs)
	}
	warn(ctx, warnings)
	if w, ok := s.strategy.(Warner); ok && sub == "" {
		warn(ctx, w.WarningsOnUpdate(obj, old))
	}
	s.strategy.Canonicalize(obj)
	if m.ResourceVersion == "" {
		// an unconditional update is validated as of the stored revision
		m.ResourceVersion = om.ResourceVersion
	}
	if err := s.admitValidate(ctx, OperationUpdate, sub, obj, old, m.Name, m.Namespace); err != nil {
		return nil, err
	}
	newBytes, err := s.encode(obj)
	if err != nil {
		return nil, internalErr(err)
	}
	oldBytes, err := s.encode(old)
	if err != nil {
		return nil, internalErr(err)
	}
	if bytes.Equal(newBytes, oldBytes) || sameIgnoringManagedFields(s, obj, old) {
		return old, nil
	}
	// Finalized delete: the last finalizer went away after deletion began
	// (for a namespace also the last of spec.finalizers: upstream's
	// ShouldDeleteNamespaceDuringUpdate).
	if m.DeletionTimestamp != nil && len(m.Finalizers) == 0 && s.finalized(obj) {
		if isDryRun(ctx) {
			return obj, nil
		}
		_, _, err := s.st.Delete(ctx, s.key(m.Namespace, m.Name), rev)
		if errors.Is(err, storage.ErrRevisionMismatch) {
			return nil, errRetry
		}
		if err != nil {
			return nil, s.storageErr(err, m.Name)
		}
		return obj, nil
	}
	if isDryRun(ctx) {
		m.ResourceVersion = strconv.FormatInt(rev, 10)
		return s.dryRunReadBack(obj)
	}
	newRev, err := s.st.Update(ctx, s.key(m.Namespace, m.Name), newBytes, rev)
	if errors.Is(err, storage.ErrRevisionMismatch) {
		return nil, errRetry
	}
	if err != nil {
		return nil, s.storageErr(err, m.Name)
	}
	m.ResourceVersion = strconv.FormatInt(newRev, 10)
	return s.readBack(obj, newBytes, newRev)
}

// finalized reports whether the strategy's own finalizers allow obj to be
// removed (always, unless the strategy is a TerminatingDeleter).
func (s *Store) finalized(obj meta.Object) bool {
	td, ok := s.strategy.(TerminatingDeleter)
	return !ok || td.Finalized(obj)
}

// sameIgnoringManagedFields reports whether obj and old differ only in
// managedFields timestamps (upstream skips such no-op writes).
func sameIgnoringManagedFields(s *Store, obj, old meta.Object) bool {
	m, om := obj.GetObjectMeta(), old.GetObjectMeta()
	if len(m.ManagedFields) != len(om.ManagedFields) {
		return false
	}
	saved := m.ManagedFields
	m.ManagedFields = om.ManagedFields
	a, err1 := s.encode(obj)
	m.ManagedFields = saved
	b, err2 := s.encode(old)
	if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
		return false
	}
	for i := range saved {
		x, y := saved[i], om.ManagedFields[i]
		if x.Manager != y.Manager || x.Operation != y.Operation || x.Subresource != y.Subresource || !bytes.Equal(x.FieldsV1, y.FieldsV1) {
			return false
		}
	}
	m.ManagedFields = om.ManagedFields
	return true
}

// writeDeletionMark stores obj, marked as being deleted (deletionTimestamp
// set), over revision rev of namespace/name, unless the request is a dry
// run, and sets its new resourceVersion. retry is true when the object
// changed underneath and attempt leaves room for another read (at most 16);
// err is the store's error otherwise.
func (s *Store) writeDeletionMark(ctx context.Context, namespace, name string, obj meta.Object, rev int64, attempt int) (retry bool, err error) {
	if isDryRun(ctx) {
		return false, nil
	}
	b, err := s.encode(obj)
	if err != nil {
		return false, meta.NewInternalError(err)
	}
	newRev, err := s.st.Update(ctx, s.key(namespace, name), b, rev)
	if errors.Is(err, storage.ErrRevisionMismatch) && attempt < 16 {
		return true, nil
	}
	if err != nil {
		return false, s.storageErr(err, name)
	}
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(newRev, 10)
	return false, nil
}

// Delete removes ns/name with the default DeleteOptions and preconditions
// pre; see DeleteWithOptions.
func (s *Store) Delete(ctx context.Context, namespace, name string, pre *meta.Preconditions) (meta.Object, error) {
	return s.DeleteWithOptions(ctx, namespace, name, &meta.DeleteOptions{Preconditions: pre})
}

// DeleteWithOptions removes ns/name and returns the object as it was, as
// upstream's generic Store.Delete (apiserver
// pkg/registry/generic/registry/store.go). Preconditions that fail are
// upstream's early check (rest.BeforeDelete in apiserver
// registry/rest/delete.go): 409 Conflict on the kind, `Operation cannot be
// fulfilled on <Kind>[.<group>] "<name>": the UID in the precondition (x)
// does not match the UID in record (y). The object might have been deleted
// and then recreated`, and for the resourceVersion `the ResourceVersion in
// the precondition (x) does not match the ResourceVersion in record (y).
// The object might have been modified`.
//
// opts' garbage-collection policy (orphanDependents, propagationPolicy,
// else a GC finalizer already on the object, else the resource's
// GarbageCollectionPolicy) adds or removes the orphan and
// foregroundDeletion finalizers, also on an object already being deleted.
// An object left with metadata.finalizers is not removed: its
// deletionTimestamp is set (kept if already set), deletionGracePeriodSeconds
// is 0, a generation above 0 is bumped once, and it is returned; the update
// that clears the last finalizer removes it. A namespace's first DELETE
// only marks it Terminating (TerminatingDeleter).
func (s *Store) DeleteWithOptions(ctx context.Context, namespace, name string, opts *meta.DeleteOptions) (meta.Object, error) {
	if !s.info.Namespaced {
		namespace = ""
	}
	if opts == nil {
		opts = &meta.DeleteOptions{}
	}
	pre := opts.Preconditions
	if a, ok := s.strategy.(DeleteAdmitter); ok {
		if err := a.AdmitDelete(namespace, name); err != nil {
			return nil, err
		}
	}
	for attempt := 0; ; attempt++ {
		obj, rev, err := s.get(ctx, namespace, name)
		if err != nil {
			return nil, err
		}
		m := obj.GetObjectMeta()
		// Upstream names the kind, not the resource, in these conflicts.
		byKind := meta.GroupResource{Group: s.info.Group, Resource: s.info.Kind}
		if pre != nil && pre.UID != nil && *pre.UID != m.UID {
			return nil, meta.NewConflict(byKind, m.Name, fmt.Sprintf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *pre.UID, m.UID))
		}
		if pre != nil && pre.ResourceVersion != nil && *pre.ResourceVersion != m.ResourceVersion {
			return nil, meta.NewConflict(byKind, m.Name, fmt.Sprintf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *pre.ResourceVersion, m.ResourceVersion))
		}
		// Admission sees the stored object as oldObject (measured on 1.33:
		// mutating webhooks too, whose objectSelector matches it).
		if _, err := s.admitMutate(ctx, OperationDelete, "", nil, obj, name, namespace); err != nil {
			return nil, err
		}
		if err := s.admitValidate(ctx, OperationDelete, "", nil, obj, name, namespace); err != nil {
			return nil, err
		}
		if td, ok := s.strategy.(TerminatingDeleter); ok && (m.DeletionTimestamp == nil || !td.Finalized(obj)) {
			// Namespace: the first DELETE only marks it (deletionTimestamp,
			// phase Terminating, the GC finalizers the options ask for); a
			// later one removes it once spec.finalizers and
			// metadata.finalizers are empty (upstream's namespace REST
			// Delete, pkg/registry/core/namespace/storage/storage.go).
			if m.DeletionTimestamp != nil {
				return obj, nil
			}
			now := meta.NewTime(s.clock())
			m.DeletionTimestamp = &now
			m.Finalizers = namespaceDeletionFinalizers(m.Finalizers, opts)
			td.BeginTerminating(obj)
			if retry, err := s.writeDeletionMark(ctx, namespace, name, obj, rev, attempt); retry {
				continue
			} else if err != nil {
				return nil, err
			}
			return obj, nil
		}
		fins, changed := deletionFinalizers(s.gcPolicy(), m.Finalizers, opts)
		if len(fins) > 0 {
			if !changed && m.DeletionTimestamp != nil && m.DeletionGracePeriodSeconds != nil && *m.DeletionGracePeriodSeconds == 0 {
				return obj, nil // nothing to write (upstream's no-op update)
			}
			m.Finalizers = fins
			markAsDeleting(m, s.clock())
			if retry, err := s.writeDeletionMark(ctx, namespace, name, obj, rev, attempt); retry {
				continue
			} else if err != nil {
				return nil, err
			}
			return obj, nil
		}
		if isDryRun(ctx) {
			return obj, nil
		}
		_, _, err = s.st.Delete(ctx, s.key(namespace, name), rev)
		if errors.Is(err, storage.ErrRevisionMismatch) && attempt < 16 {
			continue
		}
		if err != nil {
			return nil, s.storageErr(err, name)
		}
		s.log.Debug("deleted", "resource", s.info.GroupResource().String(), "namespace", namespace, "name", name)
		return obj, nil
	}
}

// markAsDeleting marks m as upstream's markAsDeleting does for an object
// whose finalizers keep it: the generation (when above 0) is bumped on the
// first mark, deletionTimestamp is set to now unless already set earlier,
// and deletionGracePeriodSeconds is 0.
func markAsDeleting(m *meta.ObjectMeta, now time.Time) {
	if m.DeletionTimestamp == nil && m.Generation > 0 {
		m.Generation++
	}
	if m.DeletionTimestamp == nil || m.DeletionTimestamp.After(now) {
		t := meta.NewTime(now)
		m.DeletionTimestamp = &t
	}
	var zero int64
	m.DeletionGracePeriodSeconds = &zero
}

// DeleteCollection deletes every object in namespace matching the
// selectors of opts with the default DeleteOptions and returns the objects
// as listed; see DeleteCollectionWithOptions.
func (s *Store) DeleteCollection(ctx context.Context, namespace string, opts ListOptions) ([]meta.Object, error) {
	items, _, err := s.DeleteCollectionWithOptions(ctx, namespace, opts, nil)
	return items, err
}

// DeleteCollectionWithOptions deletes every object in namespace matching
// the selectors of opts, each with the DeleteOptions del (nil: the
// defaults; preconditions are not applied), and returns the objects as
// listed and the list's resourceVersion, as upstream's DeleteCollection.
// Objects deleted concurrently by someone else are skipped.
func (s *Store) DeleteCollectionWithOptions(ctx context.Context, namespace string, opts ListOptions, del *meta.DeleteOptions) ([]meta.Object, string, error) {
	opts.Limit, opts.Continue = 0, ""
	items, rv, _, err := s.List(ctx, namespace, opts)
	if err != nil {
		return nil, "", err
	}
	for _, it := range items {
		m := it.GetObjectMeta()
		var d meta.DeleteOptions
		if del != nil {
			d = *del
		}
		d.Preconditions = nil
		_, err := s.DeleteWithOptions(ctx, m.Namespace, m.Name, &d)
		if errors.Is(err, meta.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
	}
	return items, rv, nil
}

// selector is the compiled label + field selector of one list or watch.
type selector struct {
	labels meta.ParsedLabelSelector
	fields meta.FieldSelector
}

func (s selector) empty() bool { return len(s.labels) == 0 && len(s.fields) == 0 }

// hasFieldError reports whether errs holds an error of type t on field.
func hasFieldError(errs meta.FieldErrors, t meta.FieldErrorType, field string) bool {
	for _, e := range errs {
		if e.Type == t && e.Field == field {
			return true
		}
	}
	return false
}
