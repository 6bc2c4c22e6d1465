package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
	"sigs.k8s.io/yaml"
)

// resourceRequest is a parsed resource path below /api/v1 or
// /apis/<group>/<version>.
type resourceRequest struct {
	store     *registry.Store
	namespace string // from the path; "" for cluster-scoped or all namespaces
	name      string // "" for the collection
	sub       string // "", "status" or another of the resource's Subresources ("finalize")
	watch     bool   // the path had the legacy /watch/ prefix
}

// parseResourcePath resolves tail ("[watch/][namespaces/<ns>/]<resource>[/<name>[/<sub>]]").
func parseResourcePath(e *gvEntry, tail string) (resourceRequest, error) {
	var rq resourceRequest
	tail = strings.TrimSuffix(tail, "/")
	segs := strings.Split(tail, "/")
	if len(segs) > 0 && segs[0] == "watch" {
		rq.watch = true
		segs = segs[1:]
	}
	for _, s := range segs {
		if s == "" {
			return rq, meta.NewPathNotFound()
		}
	}
	if len(segs) == 0 {
		return rq, meta.NewPathNotFound()
	}
	// namespaces/<ns>/<resource>... addresses a namespaced resource, unless
	// <resource> is no resource here and "namespaces" itself is one (then
	// it is a subresource of a namespace, e.g. namespaces/foo/status).
	if segs[0] == "namespaces" && len(segs) >= 3 {
		if st, ok := e.resources[segs[2]]; ok && st.Info().Namespaced {
			rq.store, rq.namespace = st, segs[1]
			segs = segs[3:]
			switch len(segs) {
			case 0:
			case 1:
				rq.name = segs[0]
			case 2:
				rq.name, rq.sub = segs[0], segs[1]
			default:
				return rq, meta.NewPathNotFound()
			}
			return rq, rq.checkSub()
		}
	}
	st, ok := e.resources[segs[0]]
	if !ok {
		return rq, meta.NewPathNotFound()
	}
	rq.store = st
	switch len(segs) {
	case 1:
	case 2:
		rq.name = segs[1]
	case 3:
		rq.name, rq.sub = segs[1], segs[2]
	default:
		return rq, meta.NewPathNotFound()
	}
	if st.Info().Namespaced && rq.name != "" {
		// A namespaced object is only addressable inside its namespace.
		return rq, meta.NewPathNotFound()
	}
	return rq, rq.checkSub()
}

func (rq resourceRequest) checkSub() error {
	if rq.sub == "" || (rq.sub == "status" && rq.store.Info().HasStatus) {
		return nil
	}
	if _, ok := rq.store.Info().Subresource(rq.sub); ok && rq.sub == subFinalize {
		return nil
	}
	if _, ok := rq.store.Info().Subresource(rq.sub); ok && rq.sub == subScale {
		if _, ok := rq.store.Strategy().(registry.ScaleProvider); ok {
			return nil // scale.go
		}
	}
	return meta.NewPathNotFound()
}

// subFinalize is namespaces/finalize, which the REST layer serves (PUT,
// through Store.UpdateSubresource: the namespace strategy keeps the
// status and takes the rest, spec.finalizers included, from the request,
// as upstream's FinalizeREST). services/proxy is served by
// serveServiceProxy.
const subFinalize = "finalize"

// verb returns the Kubernetes verb of the request (create, get, list, ...).
func (rq resourceRequest) verb(r *http.Request) string {
	q := r.URL.Query()
	isWatch := rq.watch || queryBool(q, "watch")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if isWatch {
			return "watch"
		}
		if rq.name == "" {
			return "list"
		}
		return "get"
	case http.MethodPost:
		if rq.name == "" {
			return "create"
		}
	case http.MethodPut:
		if rq.name != "" {
			return "update"
		}
	case http.MethodPatch:
		if rq.name != "" {
			return "patch"
		}
	case http.MethodDelete:
		if rq.name == "" {
			return "deletecollection"
		}
		return "delete"
	}
	return ""
}

// queryBool reads a boolean query parameter as upstream's parameter codec
// does (Convert_Slice_string_To_bool in apimachinery meta/v1
// conversion.go): absent is false, "0" and "false" in any case are false,
// anything else, "" and "maybe" included, is true.
func queryBool(q url.Values, key string) bool {
	vs, ok := q[key]
	if !ok || len(vs) == 0 {
		return false
	}
	return vs[0] != "0" && !strings.EqualFold(vs[0], "false")
}

func (a *API) serveResource(w http.ResponseWriter, r *http.Request, rq resourceRequest) {
	r = r.WithContext(registry.WithWarningSink(r.Context(), warningRecorder(w)))
	if rw, ok := rq.store.Strategy().(registry.RequestWarner); ok {
		if text := rw.RequestWarning(); text != "" {
			registry.AddWarnings(r.Context(), text) // a deprecated CRD version (upstream crdHandler)
		}
	}
	if err := a.dispatchResource(w, r, rq); err != nil {
		negotiation.WriteStatus(w, r, err)
	}
}

// hasRoute reports whether upstream installs any route on the request's
// path for a resource (or subresource) with verbs: a named object's path
// exists for get, update, patch or delete, a collection's for list, watch,
// create or deletecollection, a /watch/ path for watch, a subresource's
// for any verb. Another method on an existing path is go-restful's 405; a
// path without routes (a create-only resource's /<name>) is its 404.
func (rq resourceRequest) hasRoute(verbs []string) bool {
	var routed []string
	switch {
	case rq.watch:
		routed = []string{"watch"}
	case rq.sub != "":
		return len(verbs) > 0
	case rq.name != "":
		routed = []string{"get", "update", "patch", "delete"}
	default:
		routed = []string{"list", "watch", "create", "deletecollection"}
	}
	for _, v := range routed {
		if slices.Contains(verbs, v) {
			return true
		}
	}
	return false
}

// dispatchResource runs the handler of the request's verb. A returned
// error has not been written yet: the caller answers it as a Status.
func (a *API) dispatchResource(w http.ResponseWriter, r *http.Request, rq resourceRequest) error {
	verb := rq.verb(r)
	verbs := rq.store.Info().Verbs
	if rq.sub == "status" {
		verbs = rq.store.Info().StatusVerbs
	} else if sub, ok := rq.store.Info().Subresource(rq.sub); ok {
		verbs = sub.Verbs
	}
	if verb == "" || (rq.watch && verb != "watch") || !slices.Contains(verbs, verb) {
		if !rq.hasRoute(verbs) {
			return meta.NewPathNotFound()
		}
		return meta.NewPathMethodNotAllowed()
	}
	produces := negotiation.ObjectMediaTypes
	if verb == "list" || verb == "watch" {
		produces = negotiation.ListMediaTypes
	}
	if err := negotiation.RouteAccept(r, produces); err != nil {
		return err
	}
	if rq.sub == subScale {
		return a.serveScale(w, r, rq, verb)
	}
	switch verb {
	case "get":
		return a.serveGet(w, r, rq)
	case "list", "watch":
		return a.serveList(w, r, rq, verb == "watch")
	case "create":
		return a.serveCreate(w, r, rq)
	case "update":
		return a.serveUpdate(w, r, rq)
	case "patch":
		return a.servePatch(w, r, rq)
	case "delete":
		return a.serveDelete(w, r, rq)
	case "deletecollection":
		return a.serveDeleteCollection(w, r, rq)
	}
	return nil
}

// writeObject writes one object in the negotiated format (object, Table or
// PartialObjectMetadata). It returns, unwritten, the error of building a
// Table.
func writeObject(w http.ResponseWriter, r *http.Request, f negotiation.Format, st *registry.Store, code int, obj meta.Object) error {
	switch f.As {
	case "Table":
		t, err := buildTable(st.Strategy(), []meta.Object{obj}, meta.ListMeta{ResourceVersion: obj.GetObjectMeta().ResourceVersion}, r.URL.Query().Get("includeObject"), f.MetaVersion, true)
		if err != nil {
			return err
		}
		negotiation.WriteObject(w, f, code, t)
	case "PartialObjectMetadata":
		negotiation.WriteObject(w, f, code, partialMetadata(obj, f.MetaVersion))
	default:
		negotiation.WriteObject(w, f, code, obj)
	}
	return nil
}

func (a *API) serveGet(w http.ResponseWriter, r *http.Request, rq resourceRequest) error {
	f, err := negotiation.Output(r, negotiation.TargetObject)
	if err != nil {
		return err
	}
	obj, err := rq.store.Get(r.Context(), rq.namespace, rq.name)
	if err != nil {
		return err
	}
	return writeObject(w, r, f, rq.store, http.StatusOK, obj)
}

// listOptionsFromQuery reads metav1.ListOptions from the query and
// validates them as upstream's ValidateListOptions does (422
// `ListOptions.meta.k8s.io "" is invalid: ...`).
func listOptionsFromQuery(q url.Values, watch bool) (registry.ListOptions, error) {
	opts := registry.ListOptions{
		LabelSelector:        q.Get("labelSelector"),
		FieldSelector:        q.Get("fieldSelector"),
		Continue:             q.Get("continue"),
		ResourceVersion:      q.Get("resourceVersion"),
		ResourceVersionMatch: q.Get("resourceVersionMatch"),
		AllowWatchBookmarks:  queryBool(q, "allowWatchBookmarks"),
	}
	// Conversion errors in the field order of metav1.ListOptions, the
	// first one answered, as strconv words it (upstream's parameter codec).
	if v := q.Get("timeoutSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return opts, meta.NewBadRequest(err.Error())
		}
		opts.TimeoutSeconds = &n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return opts, meta.NewBadRequest(err.Error())
		}
		opts.Limit = n
	}
	if _, ok := q["sendInitialEvents"]; ok {
		b := queryBool(q, "sendInitialEvents")
		opts.SendInitialEvents = &b
	}
	var errs meta.FieldErrors
	match := opts.ResourceVersionMatch
	if watch {
		if opts.SendInitialEvents != nil {
			if match != "NotOlderThan" {
				errs = append(errs, meta.Forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
			}
			// kube-apiserver 1.33 runs with the WatchList feature gate
			// off: a watch-list request is refused, and clients
			// (client-go's reflector) fall back to list and watch.
			errs = append(errs, meta.Forbidden("sendInitialEvents", "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"))
		}
		if match != "" {
			if opts.SendInitialEvents == nil {
				errs = append(errs, meta.Forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
			}
			if match != "NotOlderThan" {
				errs = append(errs, meta.NotSupported("resourceVersionMatch", match, []string{"NotOlderThan"}))
			}
			if opts.Continue != "" {
				errs = append(errs, meta.Forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
			}
		}
	} else {
		if match != "" {
			if opts.ResourceVersion == "" {
				errs = append(errs, meta.Forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"))
			}
			if opts.Continue != "" {
				errs = append(errs, meta.Forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
			}
			if match != "NotOlderThan" && match != "Exact" {
				errs = append(errs, meta.NotSupported("resourceVersionMatch", match, []string{"Exact", "NotOlderThan"}))
			}
			if match == "Exact" && opts.ResourceVersion == "0" {
				errs = append(errs, meta.Forbidden("resourceVersionMatch", `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
			}
		}
		if opts.SendInitialEvents != nil {
			errs = append(errs, meta.Forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
		}
	}
	if len(errs) > 0 {
		return opts, meta.NewInvalid("meta.k8s.io", "ListOptions", "", errs)
	}
	return opts, nil
}

// listObject is the <Kind>List a list answers.
type listObject struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata"`
	Items         []meta.Object `json:"items"`
	// unstructured: a list of custom resources, encoded as upstream's
	// UnstructuredList (MarshalJSON).
	unstructured bool
}

// MarshalJSON encodes a list of custom resources as upstream's
// UnstructuredList: keys sorted (apiVersion, items, kind, metadata) and
// metadata.continue always present, "" on the last page (captured from
// kube-apiserver 1.33.13: testdata/crd-conversion/ref/list-v2.body);
// other lists as their fields.
func (l listObject) MarshalJSON() ([]byte, error) {
	if !l.unstructured {
		type plain listObject
		return json.Marshal(plain(l))
	}
	md := map[string]any{"continue": l.Continue, "resourceVersion": l.ResourceVersion}
	if l.RemainingItemCount != nil {
		md["remainingItemCount"] = *l.RemainingItemCount
	}
	return json.Marshal(map[string]any{"apiVersion": l.APIVersion, "kind": l.Kind, "metadata": md, "items": l.Items})
}

func (a *API) serveList(w http.ResponseWriter, r *http.Request, rq resourceRequest, watch bool) error {
	q := r.URL.Query()
	opts, err := listOptionsFromQuery(q, watch)
	if err != nil {
		return err
	}
	if rq.name != "" {
		// GET .../watch/<resource>/<name> or ?watch on one object.
		sel := "metadata.name=" + rq.name
		if opts.FieldSelector != "" {
			sel += "," + opts.FieldSelector
		}
		opts.FieldSelector = sel
	}
	if watch {
		return a.serveWatch(w, r, rq, opts)
	}
	f, err := negotiation.Output(r, negotiation.TargetList)
	if err != nil {
		return err
	}
	res, err := rq.store.ListPage(r.Context(), rq.namespace, opts)
	if err != nil {
		return err
	}
	lm := meta.ListMeta{ResourceVersion: res.ResourceVersion, Continue: res.Continue, RemainingItemCount: res.RemainingItemCount}
	switch f.As {
	case "Table":
		t, err := buildTable(rq.store.Strategy(), res.Items, lm, q.Get("includeObject"), f.MetaVersion, true)
		if err != nil {
			return err
		}
		negotiation.WriteObject(w, f, http.StatusOK, t)
		return nil
	case "PartialObjectMetadataList":
		l := meta.PartialObjectMetadataList{TypeMeta: meta.TypeMeta{Kind: "PartialObjectMetadataList", APIVersion: "meta.k8s.io/" + f.MetaVersion}, ListMeta: lm, Items: []meta.PartialObjectMetadata{}}
		for _, it := range res.Items {
			l.Items = append(l.Items, partialMetadata(it, f.MetaVersion))
		}
		negotiation.WriteObject(w, f, http.StatusOK, l)
		return nil
	}
	negotiation.WriteObject(w, f, http.StatusOK, listOf(rq.store, res.Items, lm))
	return nil
}

// listOf wraps items in the resource's <Kind>List. Items lose kind and
// apiVersion, as in upstream's typed list responses; custom resources
// (Unstructured) keep theirs, as upstream's UnstructuredList items do.
func listOf(s *registry.Store, items []meta.Object, lm meta.ListMeta) listObject {
	_, unstructured := s.Strategy().New().(*registry.Unstructured)
	for _, it := range items {
		if !unstructured {
			*it.GetTypeMeta() = meta.TypeMeta{}
		}
	}
	if items == nil {
		items = []meta.Object{}
	}
	return listObject{TypeMeta: meta.TypeMeta{Kind: s.Info().ListKind, APIVersion: s.Info().APIVersion()}, ListMeta: lm, Items: items, unstructured: unstructured}
}

// writeOptions are the query parameters shared by create, update, patch
// and delete: dryRun, fieldManager, fieldValidation.
type writeOptions struct {
	dryRun          bool
	fieldManager    string
	fieldValidation string
	// admission is what admission webhooks see of these options: the
	// values as sent (registry.AdmissionOptions).
	admission registry.AdmissionOptions
}

// writeOptionsFromQuery reads and validates the write options; kind names
// the options type in errors ("CreateOptions", "UpdateOptions", ...).
func writeOptionsFromQuery(r *http.Request, kind string) (writeOptions, error) {
	q := r.URL.Query()
	var o writeOptions
	var errs meta.FieldErrors
	if dr := q["dryRun"]; len(dr) > 0 {
		errs = append(errs, validateDryRun(dr)...)
		o.dryRun = len(errs) == 0
	}
	o.fieldManager = q.Get("fieldManager")
	if len(o.fieldManager) > 128 {
		errs = append(errs, &meta.FieldError{Type: meta.FieldValueTooLong, Field: "fieldManager", BadValue: o.fieldManager, Detail: "may not be more than 128 bytes"})
	}
	switch fv := q.Get("fieldValidation"); fv {
	case "", FieldValidationWarn:
		o.fieldValidation = FieldValidationWarn
	case FieldValidationStrict, FieldValidationIgnore:
		o.fieldValidation = fv
	default:
		// upstream's allowed set includes "" (the default), listed sorted
		errs = append(errs, meta.NotSupported("fieldValidation", fv, []string{"", FieldValidationIgnore, FieldValidationStrict, FieldValidationWarn}))
	}
	if len(errs) > 0 {
		return o, meta.NewInvalid("meta.k8s.io", kind, "", errs)
	}
	o.admission = registry.AdmissionOptions{DryRun: q["dryRun"], FieldManager: o.fieldManager, FieldValidation: q.Get("fieldValidation")}
	return o, nil
}

// validateDryRun checks dryRun values as upstream's ValidateDryRun: any
// value but "All" is one NotSupported error whose value is the whole list,
// printed []string{"Some"}.
func validateDryRun(values []string) meta.FieldErrors {
	for _, v := range values {
		if v != "All" {
			return meta.FieldErrors{meta.NotSupported("dryRun", values, []string{"All"})}
		}
	}
	return nil
}

// managerName is the field manager of a write: ?fieldManager, else the
// User-Agent up to its first "/" (upstream's prefixFromUserAgent).
func managerName(r *http.Request, o writeOptions) string {
	if o.fieldManager != "" {
		return o.fieldManager
	}
	ua, _, _ := strings.Cut(r.Header.Get("User-Agent"), "/")
	if len(ua) > 128 {
		ua = ua[:128]
	}
	return ua
}

func (o writeOptions) ctx(ctx context.Context) context.Context {
	ctx = registry.WithAdmissionOptions(ctx, o.admission)
	if o.dryRun {
		return registry.WithDryRun(ctx)
	}
	return ctx
}

// beginWrite reads what create, update and patch first need: the output
// format and the write options (kind names them in errors).
func beginWrite(r *http.Request, kind string) (negotiation.Format, writeOptions, error) {
	f, err := negotiation.Output(r, negotiation.TargetObject)
	if err != nil {
		return f, writeOptions{}, err
	}
	o, err := writeOptionsFromQuery(r, kind)
	return f, o, err
}

// decodeNew decodes JSON j into a new object of the store's resource with
// o's fieldValidation; it returns the decoder's warnings unwritten.
// original is the body as sent when it was not JSON (nil otherwise), which
// error summaries quote.
func decodeNew(s *registry.Store, j []byte, o writeOptions, original []byte) (meta.Object, []string, error) {
	obj := s.Strategy().New()
	warnings, err := decodeObject(j, s.Info(), obj, decodeOptions{fieldValidation: o.fieldValidation, original: original})
	if err != nil {
		return nil, nil, err
	}
	if p, ok := s.Strategy().(registry.UnknownFieldPruner); ok {
		// custom resources: the schema's unknown fields, pruned, are
		// field validation's problems (upstream's structural pruning)
		if paths := p.PruneUnknownFields(obj); len(paths) > 0 && o.fieldValidation != FieldValidationIgnore {
			problems := make([]string, len(paths))
			for i, path := range paths {
				problems[i] = fmt.Sprintf("unknown field %q", path)
			}
			if o.fieldValidation == FieldValidationStrict {
				info := s.Info()
				return nil, nil, meta.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: strict decoding error: %s", info.Kind, info.Version, info.Kind, strings.Join(problems, ", ")))
			}
			warnings = append(warnings, problems...)
		}
	}
	applyDefaults(s, obj)
	return obj, warnings, nil
}

// applyDefaults runs the strategy's Defaulter, if it has one, on a
// freshly decoded obj, as upstream's decoder defaults every object it
// decodes.
func applyDefaults(s *registry.Store, obj meta.Object) {
	if d, ok := s.Strategy().(registry.Defaulter); ok {
		d.Default(obj)
	}
}

// decodeRequestObject reads and decodes the body of a create or update.
func decodeRequestObject(w http.ResponseWriter, r *http.Request, st *registry.Store, o writeOptions) (meta.Object, error) {
	body, err := ReadBody(r)
	if err != nil {
		return nil, err
	}
	j, err := bodyToJSONFor(r.Header.Get("Content-Type"), body, st.Info())
	if err != nil {
		return nil, err
	}
	obj, warnings, err := decodeNew(st, j, o, body)
	if err != nil {
		return nil, err
	}
	for _, wn := range warnings {
		negotiation.AddWarning(w, wn)
	}
	return obj, nil
}

func (a *API) serveCreate(w http.ResponseWriter, r *http.Request, rq resourceRequest) error {
	f, o, err := beginWrite(r, "CreateOptions")
	if err != nil {
		return err
	}
	obj, err := decodeRequestObject(w, r, rq.store, o)
	if err != nil {
		return err
	}
	m := obj.GetObjectMeta()
	if rq.store.Info().Namespaced {
		if m.Namespace == "" {
			m.Namespace = rq.namespace
		} else if m.Namespace != rq.namespace {
			return namespaceMismatch()
		}
	}
	if err := trackUpdate(rq.store, nil, obj, managerName(r, o), ""); err != nil {
		return err
	}
	out, err := rq.store.Create(o.ctx(r.Context()), obj)
	if err != nil {
		return err
	}
	return writeObject(w, r, f, rq.store, http.StatusCreated, out)
}

// namespaceMismatch is upstream's 400 for a body whose namespace is not
// the request's (rest.EnsureObjectNamespaceMatchesRequestNamespace), the
// same text for create, update and patch.
func namespaceMismatch() error {
	return meta.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
}

// checkNameAndNamespace enforces that a body names the object of the URL.
func checkNameAndNamespace(obj meta.Object, rq resourceRequest) error {
	m := obj.GetObjectMeta()
	if m.Name != rq.name {
		return meta.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.Name, rq.name))
	}
	if rq.store.Info().Namespaced {
		if m.Namespace == "" {
			m.Namespace = rq.namespace
		} else if m.Namespace != rq.namespace {
			return namespaceMismatch()
		}
	}
	return nil
}

func (a *API) serveUpdate(w http.ResponseWriter, r *http.Request, rq resourceRequest) error {
	f, o, err := beginWrite(r, "UpdateOptions")
	if err != nil {
		return err
	}
	obj, err := decodeRequestObject(w, r, rq.store, o)
	if err != nil {
		return err
	}
	if err := checkNameAndNamespace(obj, rq); err != nil {
		return err
	}
	status := rq.sub == "status"
	var live meta.Object
	if cur, err := rq.store.Get(r.Context(), rq.namespace, rq.name); err == nil {
		live = cur
	}

	if err := trackUpdate(rq.store, live, obj, managerName(r, o), rq.sub); err != nil {
		return err
	}
	var (
		out     meta.Object
		created bool
	)
	if rq.sub == subFinalize {
		out, err = rq.store.UpdateSubresource(o.ctx(r.Context()), obj, rq.sub)
	} else {
		out, created, err = rq.store.Replace(o.ctx(r.Context()), obj, status)
	}
	if err != nil {
		return err
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	return writeObject(w, r, f, rq.store, code, out)
}

func (a *API) servePatch(w http.ResponseWriter, r *http.Request, rq resourceRequest) error {
	f, o, err := beginWrite(r, "PatchOptions")
	if err != nil {
		return err
	}
	pt, err := patchTypeOf(r.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	body, err := ReadBody(r)
	if err != nil {
		return err
	}
	if pt == PatchApply {
		return a.serveApply(w, r, rq, f, o, body)
	}
	if sr, ok := rq.store.Strategy().(registry.StrategicMergeRefuser); ok && pt == PatchStrategic && sr.RefusesStrategicMergePatch() {
		return meta.NewUnsupportedMediaType(PatchJSON + ", " + PatchMerge + ", " + PatchApply)
	}
	ctx := o.ctx(r.Context())
	for attempt := 0; ; attempt++ {
		cur, err := rq.store.Get(r.Context(), rq.namespace, rq.name)
		if err != nil {
			return err
		}
		curRV := cur.GetObjectMeta().ResourceVersion
		curJSON, err := json.Marshal(cur)
		if err != nil {
			return err
		}
		patched, err := applyPatch(pt, curJSON, body, rq.store.MergeKeys())
		if err != nil {
			return err
		}
		if pt == PatchJSON || pt == PatchMerge {
			// upstream's jsonPatcher: a patched document that does not
			// decode into the type is 422 on the field "patch" of no kind,
			// the document as the value (apiserver handlers/patch.go).
			if err := json.Unmarshal(patched, rq.store.Strategy().New()); err != nil {
				return meta.NewInvalid("", "", "", meta.FieldErrors{meta.Invalid("patch", string(patchedDocument(curJSON, patched)), err.Error())})
			}
		}
		obj, warnings, err := decodeNew(rq.store, patched, o, nil)
		if err != nil {
			return err
		}
		if err := checkNameAndNamespace(obj, rq); err != nil {
			return err
		}
		m := obj.GetObjectMeta()
		explicitRV := m.ResourceVersion != "" && m.ResourceVersion != curRV
		if m.ResourceVersion == "" {
			m.ResourceVersion = curRV
		}
		if err := trackUpdate(rq.store, cur, obj, managerName(r, o), rq.sub); err != nil {
			return err
		}
		out, _, err := rq.store.Replace(ctx, obj, rq.sub == "status")
		if err != nil && !explicitRV && errors.Is(err, meta.ErrConflict) && attempt < 5 {
			continue
		}
		if err != nil {
			return err
		}
		for _, wn := range warnings {
			negotiation.AddWarning(w, wn)
		}
		return writeObject(w, r, f, rq.store, http.StatusOK, out)
	}
}

// serveApply handles application/apply-patch+yaml (server-side apply):
// create the object if absent, else merge the applied configuration into
// the live object (strategic-merge rules), prune the fields the manager
// applied before and omits now, and check field ownership: a changed
// field another manager owns is a 409 conflict unless ?force=true (see
// applyFields).
func (a *API) serveApply(w http.ResponseWriter, r *http.Request, rq resourceRequest, f negotiation.Format, o writeOptions, body []byte) error {
	if o.fieldManager == "" {
		return meta.NewInvalid("meta.k8s.io", "PatchOptions", "", meta.FieldErrors{meta.Required("fieldManager", "is required for apply patch")})
	}
	// The body is parsed once: its JSON form names the apiVersion and
	// kind; only a body that does not convert is parsed again, for the
	// error upstream gives it.
	applied, err := applyBodyToJSON(r.Context(), body) // apply_inprocess.go
	if err != nil {
		if cerr := checkApplyObject(body, rq.store.Info()); cerr != nil {
			return cerr
		}
		return err
	}
	// The applied configuration, parsed once: its apiVersion and kind
	// are checked first (checkApplyObject's message when it is no object).
	var cfg map[string]any
	if err := unmarshalNumber(applied, &cfg); err != nil {
		return meta.NewBadRequest("error decoding YAML: " + err.Error())
	}
	if err := checkApplyTypeOf(cfg, rq.store.Info()); err != nil {
		return err
	}
	tmp, warnings, err := decodeNew(rq.store, applied, o, nil)
	if err != nil {
		return err
	}
	if err := checkNameAndNamespace(tmp, rq); err != nil {
		return err
	}
	if tmp.GetObjectMeta().ManagedFields != nil {
		return meta.NewBadRequest("metadata.managedFields must be nil")
	}
	for _, wn := range warnings {
		negotiation.AddWarning(w, wn)
	}
	// The applied configuration without the fields the server owns.
	wantRV := ""
	if md, ok := cfg["metadata"].(map[string]any); ok {
		wantRV, _ = md["resourceVersion"].(string)
		for _, k := range []string{"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"} {
			delete(md, k)
		}
	}
	ctx := o.ctx(r.Context())
	sc := scopeOf(rq.store, rq.sub)
	set := ownable(appliedFieldSet(cfg, sc.mergeKeys), rq.sub, rq.store.Info().HasStatus)
	id := meta.ManagedFieldsEntry{Manager: managerName(r, o), Operation: operationApply, APIVersion: rq.store.Info().APIVersion(), Subresource: rq.sub}
	force := queryBool(r.URL.Query(), "force")
	for attempt := 0; ; attempt++ {
		cur, err := rq.store.Get(r.Context(), rq.namespace, rq.name)
		if errors.Is(err, meta.ErrNotFound) && rq.sub == "" {
			if wantRV != "" {
				return err
			}
			obj := tmp
			m := obj.GetObjectMeta()
			m.ResourceVersion = ""
			liveDoc, err := docOf(rq.store.Strategy().New())
			if err != nil {
				return err
			}
			newDoc, err := docOf(obj)
			if err != nil {
				return err
			}
			ms, _, err := applyFields(nil, liveDoc, newDoc, set, id, sc, force, rq.store.Now())
			if err != nil {
				return err
			}
			m.ManagedFields = encodeManagers(ms)
			out, err := rq.store.Create(ctx, obj)
			if errors.Is(err, meta.ErrAlreadyExists) && attempt < 5 {
				continue
			}
			if err != nil {
				return err
			}
			return writeObject(w, r, f, rq.store, http.StatusCreated, out)
		}
		if err != nil {
			return err
		}
		ms, ok := decodeManagers(cur.GetObjectMeta().ManagedFields)
		if !ok {
			ms = nil
		}
		liveDoc, err := docOf(cur)
		if err != nil {
			return err
		}
		if len(ms) == 0 {
			// upstream's skipNonAppliedManager: the first apply to an
			// object without managedFields first records what it holds as
			// an Update of "before-first-apply" (captured: sa-update-delete).
			emptyDoc, err := docOf(rq.store.Strategy().New())
			if err != nil {
				return err
			}
			before := meta.ManagedFieldsEntry{Manager: beforeFirstApplyManager, Operation: operationUpdate, APIVersion: rq.store.Info().APIVersion(), Subresource: rq.sub}
			ms = updateFields(nil, emptyDoc, liveDoc, before, sc, rq.store.Now())
		}
		// Lists merge by their +listMapKey fields (sc.mergeKeys), as
		// structured-merge-diff merges them: Service ports by port and
		// protocol, not by the strategic-merge-patch key port alone.
		merged, err := applyMergeDocs(liveDoc, cfg, sc.mergeKeys) // apply_docs.go
		if err != nil {
			return meta.NewBadRequest(err.Error())
		}
		obj := rq.store.Strategy().New()
		if err := json.Unmarshal(merged, obj); err != nil {
			return meta.NewBadRequest(err.Error())
		}
		applyDefaults(rq.store, obj)
		newDoc, err := docOf(obj)
		if err != nil {
			return err
		}
		ms, pruned, err := applyFields(ms, liveDoc, newDoc, set, id, sc, force, rq.store.Now())
		if err != nil {
			return err
		}
		if pruned {
			b, err := json.Marshal(newDoc)
			if err != nil {
				return err
			}
			obj = rq.store.Strategy().New()
			if err := json.Unmarshal(b, obj); err != nil {
				return meta.NewBadRequest(err.Error())
			}
		}
		m := obj.GetObjectMeta()
		m.ManagedFields = encodeManagers(ms)
		m.ResourceVersion = cur.GetObjectMeta().ResourceVersion
		if wantRV != "" {
			m.ResourceVersion = wantRV
		}
		out, _, err := rq.store.Replace(ctx, obj, rq.sub == "status")
		if err != nil && wantRV == "" && errors.Is(err, meta.ErrConflict) && attempt < 5 {
			continue
		}
		if err != nil {
			return err
		}
		return writeObject(w, r, f, rq.store, http.StatusOK, out)
	}
}

// checkApplyObject checks an apply patch body as upstream's apply patcher
// does before merging (apiserver endpoints/handlers/patch.go applyPatcher
// and the field manager's versionCheckManager): it must be a YAML (or
// JSON) object, else 400 `error decoding YAML: <sigs.k8s.io/yaml's
// error>`, and name the resource's own apiVersion and kind, else 400
// `invalid object type: <group>/<version>, Kind=<kind>` (a missing
// apiVersion prints "/").
func checkApplyObject(body []byte, info registry.ResourceInfo) error {
	var obj map[string]any
	if err := yaml.Unmarshal(body, &obj); err != nil {
		return meta.NewBadRequest("error decoding YAML: " + err.Error())
	}
	return checkApplyTypeOf(obj, info)
}

// checkApplyTypeOf refuses an applied object whose apiVersion and kind
// are not the resource's (see checkApplyObject).
func checkApplyTypeOf(obj map[string]any, info registry.ResourceInfo) error {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if apiVersion == info.APIVersion() && kind == info.Kind {
		return nil
	}
	group, version := "", apiVersion
	if i := strings.IndexByte(apiVersion, '/'); i >= 0 {
		group, version = apiVersion[:i], apiVersion[i+1:]
		if strings.Contains(version, "/") {
			// no group/version upstream can parse: Unstructured's
			// GroupVersionKind is then empty, the kind too
			group, version, kind = "", "", ""
		}
	}
	return meta.NewBadRequest(fmt.Sprintf("invalid object type: %s/%s, Kind=%s", group, version, kind))
}

// readDeleteOptions reads DeleteOptions as upstream's delete handler
// (apiserver endpoints/handlers/delete.go): from the body (JSON or YAML)
// when there is one, else from the query (dryRun, gracePeriodSeconds,
// orphanDependents, propagationPolicy; a number or flag that does not
// parse is 400 with strconv's text), then validated (422 DeleteOptions).
func readDeleteOptions(r *http.Request) (meta.DeleteOptions, writeOptions, error) {
	var d meta.DeleteOptions
	var o writeOptions
	body, err := ReadBody(r)
	if err != nil {
		return d, o, err
	}
	if len(body) > 0 {
		j, err := BodyToJSON(r.Header.Get("Content-Type"), body)
		if err != nil {
			return d, o, err
		}
		if err := json.Unmarshal(j, &d); err != nil {
			return d, o, meta.NewBadRequest(fmt.Sprintf("DeleteOptions in version \"v1\" cannot be handled as a DeleteOptions: %v", err))
		}
	} else if err := deleteOptionsFromQuery(r.URL.Query(), &d); err != nil {
		return d, o, err
	}
	// upstream's ValidateDeleteOptions (apimachinery
	// pkg/apis/meta/v1/validation), in its order.
	var errs meta.FieldErrors
	if d.OrphanDependents != nil && d.PropagationPolicy != nil {
		errs = append(errs, meta.Invalid("propagationPolicy", *d.PropagationPolicy, "orphanDependents and deletionPropagation cannot be both set"))
	}
	if d.PropagationPolicy != nil {
		switch *d.PropagationPolicy {
		case meta.DeletePropagationOrphan, meta.DeletePropagationBackground, meta.DeletePropagationForeground:
		default:
			errs = append(errs, meta.NotSupported("propagationPolicy", *d.PropagationPolicy, []string{"Foreground", "Background", "Orphan", "nil"}))
		}
	}
	dryErrs := validateDryRun(d.DryRun)
	if len(d.DryRun) > 0 && len(dryErrs) == 0 {
		o.dryRun = true
	}
	errs = append(errs, dryErrs...)
	if len(errs) > 0 {
		return d, o, meta.NewInvalid("meta.k8s.io", "DeleteOptions", "", errs)
	}
	dc := d
	o.admission = registry.AdmissionOptions{DryRun: d.DryRun, Delete: &dc}
	return d, o, nil
}

// deleteOptionsFromQuery fills d from the query parameters of a DELETE
// without a body, in the field order of metav1.DeleteOptions; the first
// value that does not convert is 400 BadRequest with strconv's text.
func deleteOptionsFromQuery(q url.Values, d *meta.DeleteOptions) error {
	if v, ok := q["gracePeriodSeconds"]; ok && len(v) > 0 {
		n, err := strconv.ParseInt(v[0], 10, 64)
		if err != nil {
			return meta.NewBadRequest(err.Error())
		}
		d.GracePeriodSeconds = &n
	}
	if _, ok := q["orphanDependents"]; ok {
		b := queryBool(q, "orphanDependents")
		d.OrphanDependents = &b
	}
	if v, ok := q["propagationPolicy"]; ok && len(v) > 0 {
		d.PropagationPolicy = &v[0]
	}
	d.DryRun = q["dryRun"]
	return nil
}

// successStatus is the Status a DELETE answers for resources that do not
// return the deleted object.
func successStatus(info registry.ResourceInfo, obj meta.Object) *meta.Status {
	m := obj.GetObjectMeta()
	return &meta.Status{
		TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   "Success",
		Details:  &meta.StatusDetails{Name: m.Name, Group: info.Group, Kind: info.Resource, UID: m.UID},
	}
}

func (a *API) serveDelete(w http.ResponseWriter, r *http.Request, rq resourceRequest) error {
	f, err := negotiation.Output(r, negotiation.TargetObject)
	if err != nil {
		return err
	}
	d, o, err := readDeleteOptions(r)
	if err != nil {
		return err
	}
	out, err := rq.store.DeleteWithOptions(o.ctx(r.Context()), rq.namespace, rq.name, &d)
	if err != nil {
		return err
	}
	m := out.GetObjectMeta()
	if m.DeletionTimestamp != nil && len(m.Finalizers) > 0 {
		// Not deleted yet, finalizers pending: 200 with the object, or 202
		// when the client asked for cascading deletion with
		// orphanDependents=false (apiserver endpoints/handlers/delete.go).
		code := http.StatusOK
		if d.OrphanDependents != nil && !*d.OrphanDependents {
			code = http.StatusAccepted
		}
		return writeObject(w, r, f, rq.store, code, out)
	}
	if dr, ok := rq.store.Strategy().(registry.DeletedObjectReturner); ok && dr.ReturnDeletedObject() {
		return writeObject(w, r, f, rq.store, http.StatusOK, out)
	}
	negotiation.WriteObject(w, f, http.StatusOK, successStatus(rq.store.Info(), out))
	return nil
}

func (a *API) serveDeleteCollection(w http.ResponseWriter, r *http.Request, rq resourceRequest) error {
	f, err := negotiation.Output(r, negotiation.TargetList)
	if err != nil {
		return err
	}
	opts, err := listOptionsFromQuery(r.URL.Query(), false)
	if err != nil {
		return err
	}
	d, o, err := readDeleteOptions(r)
	if err != nil {
		return err
	}
	items, rv, err := rq.store.DeleteCollectionWithOptions(o.ctx(r.Context()), rq.namespace, opts, &d)
	if err != nil {
		return err
	}
	negotiation.WriteObject(w, f, http.StatusOK, listOf(rq.store, items, meta.ListMeta{ResourceVersion: rv}))
	return nil
}
