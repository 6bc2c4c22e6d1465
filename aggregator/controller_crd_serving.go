package aggregator

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/rest"
)

// Automanaged APIServices of CRD group/versions, as kube-apiserver's
// crdRegistrationController asks its autoregister controller for them
// (pkg/controlplane/controller/crdregistration): label
// kube-aggregator.kubernetes.io/automanaged "true", groupPriorityMinimum
// 1000, versionPriority 100 (captured:
// apiservice.v1beta1.restaurant.example.com.yaml).
const (
	automanagedLabel        = "kube-aggregator.kubernetes.io/automanaged"
	crdGroupPriorityMinimum = 1000
	crdVersionPriority      = 100
	automanagedValueForCRDs = "true"
	crdServingRetryBackoff  = time.Second
)

// dynamicAPI is what the CRD serving controller needs of the REST API:
// stores over its storage, and group/versions served at run time.
type dynamicAPI interface {
	NewStore(registry.Strategy) *registry.Store
	SetGroupVersion(group, version string, stores []*registry.Store) bool
	GroupVersionStore(group, version, resource string) *registry.Store
}

// crdServing serves the custom resources of every Established CRD (each
// served version, under the accepted names) through the REST API, keeps
// one automanaged Local APIService per CRD group/version (created when a
// CRD serves the version, deleted when none does; APIServices without the
// automanaged label are left alone), and tells the registration controller
// to refresh discovery when a group/version's resources change. It is
// also the cleanup finalizer's crdInstanceDeleter.
type crdServing struct {
	crds        *Informer
	apiServices *Informer
	api         dynamicAPI
	apisWriter  rest.ObjectWriter
	resync      func(apiServiceName string) // registration: re-read one APIService
	openapi     localOpenAPI
	logger      *slog.Logger
	now         func() time.Time
	kick        chan struct{}
	conversion  *crdConversion // converters of Webhook CRDs (crd_conversion.go)
	// openapiKick wakes the OpenAPI publisher (runOpenAPI).
	openapiKick chan struct{}
	// openapiDocs builds a group/version's documents from those of its
	// CRDs, each built once (used by runOpenAPI only).
	openapiDocs registry.CustomResourceOpenAPIBuilder

	mu     sync.Mutex
	served map[string]servedGV // by "group/version"
	// openapiPending holds the group/versions ("group/version") whose
	// OpenAPI documents are to be built again (or withdrawn, when no
	// longer served).
	openapiPending map[string]bool
	// fingerprints caches crdFingerprint by CRD name for the
	// resourceVersion it was computed at (a pass used to encode every
	// CRD's spec on every change of any CRD or APIService).
	fingerprints map[string]cachedFingerprint
	// establishing holds, by name, CRDs as the establishing step is
	// about to write them (Established True), served from before that
	// write until the informer holds a newer copy than the one they were
	// made from (ServeEstablishing).
	establishing map[string]*apiextensions.CustomResourceDefinition
}

// cachedFingerprint is a CRD's fingerprint at one resourceVersion.
type cachedFingerprint struct {
	resourceVersion, fingerprint string
}

// servedGV is what one group/version serves: per resource the
// fingerprint of the CRD it was built from, the store and the CRD.
type servedGV struct {
	fingerprints map[string]string
	stores       map[string]*registry.Store
	crds         map[string]*apiextensions.CustomResourceDefinition
}

// localOpenAPI publishes the OpenAPI documents of a CRD group/version
// (openapiaggregator.Controller.SetLocal).
type localOpenAPI interface {
	SetLocal(group, version string, groupPriorityMinimum int32, v2, v3 []byte) error
	// SetLocalParts is SetLocal with the v2 document's paths,
	// definitions and parameters given (nothing to split).
	SetLocalParts(group, version string, groupPriorityMinimum int32, v2Paths, v2Definitions, v2Parameters map[string]json.RawMessage, v3 []byte)
}

func newCRDServing(crds, apiServices *Informer, api dynamicAPI, apisStore *registry.Store, resync func(string), openapi localOpenAPI, logger *slog.Logger, now func() time.Time) *crdServing {
	c := &crdServing{
		crds: crds, apiServices: apiServices, api: api, openapi: openapi,
		apisWriter: rest.ObjectWriter{Store: apisStore, Manager: "kube-apiserver"},
		resync:     resync, logger: logger, now: now,
		kick: make(chan struct{}, 1), served: map[string]servedGV{},
		openapiKick: make(chan struct{}, 1), openapiPending: map[string]bool{},
		fingerprints: map[string]cachedFingerprint{},
		establishing: map[string]*apiextensions.CustomResourceDefinition{},
	}
	kick := func(_, _ meta.Object) {
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
	crds.AddHandler(kick)
	// an automanaged APIService changed or deleted by someone else is
	// put back (upstream's autoregister controller)
	apiServices.AddHandler(kick)
	return c
}

// Run syncs after every CRD change until ctx ends, retrying failed passes.
// The OpenAPI documents of the group/versions a pass changed are built
// on a goroutine of their own, so that serving and discovery do not wait
// for them (building a group/version's documents is the slowest step).
func (c *crdServing) Run(ctx context.Context) {
	done := make(chan struct{})
	defer func() { <-done }()
	go func() { c.runOpenAPI(ctx); close(done) }()
	runPasses(ctx, c.kick, crdServingRetryBackoff, func() bool {
		err := c.sync(ctx)
		if err != nil && ctx.Err() == nil {
			c.logger.Warn("serve custom resources", "err", err)
		}
		return err == nil
	})
}

// crdFingerprint identifies what a CRD's stores are built from.
func crdFingerprint(crd *apiextensions.CustomResourceDefinition) string {
	b, _ := json.Marshal(struct {
		Spec        apiextensions.CustomResourceDefinitionSpec
		Names       apiextensions.CustomResourceDefinitionNames
		Terminating bool
	}{crd.Spec, crd.Status.AcceptedNames, crd.DeletionTimestamp != nil})
	return string(b)
}

// fingerprint is crdFingerprint(crd), computed once per resourceVersion.
// Called with c.mu held.
func (c *crdServing) fingerprint(crd *apiextensions.CustomResourceDefinition) string {
	rv := crd.ResourceVersion
	if f, ok := c.fingerprints[crd.Name]; ok && rv != "" && f.resourceVersion == rv {
		return f.fingerprint
	}
	fp := crdFingerprint(crd)
	c.fingerprints[crd.Name] = cachedFingerprint{resourceVersion: rv, fingerprint: fp}
	return fp
}

// sync brings the served group/versions and the automanaged APIServices
// in line with the CRDs.
func (c *crdServing) sync(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	type want struct {
		crd *apiextensions.CustomResourceDefinition
	}
	desired := map[string]map[string]want{} // gv -> resource -> CRD
	registered := map[string][2]string{}    // APIService name -> group, version
	seen := map[string]bool{}
	for _, o := range c.crds.List() {
		crd, ok := o.(*apiextensions.CustomResourceDefinition)
		if !ok {
			continue
		}
		seen[crd.Name] = true
		if e := c.establishing[crd.Name]; e != nil {
			if e.ResourceVersion == crd.ResourceVersion {
				crd = e
			} else {
				delete(c.establishing, crd.Name) // the informer caught up
			}
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			registered[v.Name+"."+crd.Spec.Group] = [2]string{crd.Spec.Group, v.Name}
			if !apiextensions.IsEstablished(crd) || crd.Status.AcceptedNames.Plural == "" {
				continue
			}
			gv := crd.Spec.Group + "/" + v.Name
			if desired[gv] == nil {
				desired[gv] = map[string]want{}
			}
			desired[gv][crd.Status.AcceptedNames.Plural] = want{crd: crd}
		}
	}
	for name := range c.fingerprints {
		if !seen[name] {
			delete(c.fingerprints, name)
		}
	}
	for name := range c.establishing {
		if !seen[name] {
			delete(c.establishing, name)
		}
	}
	var errs []error
	changed := map[string]bool{}
	for gv, res := range desired {
		cur := c.served[gv]
		next := servedGV{fingerprints: map[string]string{}, stores: map[string]*registry.Store{}, crds: map[string]*apiextensions.CustomResourceDefinition{}}
		same := len(cur.stores) == len(res)
		for plural, w := range res {
			fp := c.fingerprint(w.crd)
			if st := cur.stores[plural]; st != nil && cur.fingerprints[plural] == fp {
				next.stores[plural], next.fingerprints[plural], next.crds[plural] = st, fp, cur.crds[plural]
				continue
			}
			same = false
			_, version := splitGV(gv)
			strategy, err := registry.NewCustomResourceStrategy(w.crd, version, c.now)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			c.configureVersions(strategy, w.crd, version)
			next.stores[plural], next.fingerprints[plural], next.crds[plural] = c.api.NewStore(strategy), fp, w.crd
		}
		if same {
			continue
		}
		group, version := splitGV(gv)
		stores := make([]*registry.Store, 0, len(next.stores))
		for _, st := range next.stores {
			stores = append(stores, st)
		}
		sort.Slice(stores, func(i, j int) bool { return stores[i].Info().Resource < stores[j].Info().Resource })
		if !c.api.SetGroupVersion(group, version, stores) {
			continue // a built-in group/version: never replaced
		}
		c.served[gv] = next
		changed[version+"."+group] = true
		c.openapiPending[gv] = true
	}
	for gv := range c.served {
		if _, ok := desired[gv]; !ok {
			group, version := splitGV(gv)
			c.api.SetGroupVersion(group, version, nil)
			delete(c.served, gv)
			changed[version+"."+group] = true
			c.openapiPending[gv] = true
		}
	}
	if len(c.openapiPending) > 0 {
		select {
		case c.openapiKick <- struct{}{}:
		default:
		}
	}
	errs = append(errs, c.autoregister(ctx, registered)...)
	names := make([]string, 0, len(changed))
	for n := range changed {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c.resync(n)
	}
	return errors.Join(errs...)
}

// ServeEstablishing serves crd, a copy of the informer's CRD with
// Established True that the CRD controller is about to write, right away:
// a client that sees Established (kubectl wait --for=condition=Established)
// and then creates a custom resource finds it served, as upstream's
// handler serves any CRD its informer shows Established. It is served
// so until the informer holds a newer copy of the CRD, or
// CancelEstablishing. Errors: the sync's (it is retried by Run).
func (c *crdServing) ServeEstablishing(ctx context.Context, crd *apiextensions.CustomResourceDefinition) error {
	c.mu.Lock()
	c.establishing[crd.Name] = copyCRD(crd)
	c.mu.Unlock()
	return c.sync(ctx)
}

// CancelEstablishing drops what ServeEstablishing(name) serves (its
// write failed other than by a conflict, after which the informer's newer
// copy decides) and syncs again from the informer.
func (c *crdServing) CancelEstablishing(name string) {
	c.mu.Lock()
	delete(c.establishing, name)
	c.mu.Unlock()
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// runOpenAPI publishes the OpenAPI documents of every pending
// group/version, built from the CRDs served at that moment (a change
// meanwhile marks it pending again), until ctx ends. Documents that do
// not build are logged and not published.
func (c *crdServing) runOpenAPI(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.openapiKick:
		}
		c.mu.Lock()
		pending := c.openapiPending
		c.openapiPending = map[string]bool{}
		crdsOf := make(map[string][]*apiextensions.CustomResourceDefinition, len(pending))
		for gv := range pending {
			for _, crd := range c.served[gv].crds {
				crdsOf[gv] = append(crdsOf[gv], crd)
			}
		}
		c.mu.Unlock()
		gvs := make([]string, 0, len(pending))
		for gv := range pending {
			gvs = append(gvs, gv)
		}
		sort.Strings(gvs)
		for _, gv := range gvs {
			if ctx.Err() != nil {
				return
			}
			group, version := splitGV(gv)
			crds := crdsOf[gv]
			if len(crds) == 0 {
				c.openapiDocs.Forget(group, version)
				_ = c.openapi.SetLocal(group, version, 0, nil, nil)
				continue
			}
			sort.Slice(crds, func(i, j int) bool { return crds[i].Name < crds[j].Name })
			parts, err := c.openapiDocs.BuildParts(ctx, group, version, crds)
			if err == nil {
				c.openapi.SetLocalParts(group, version, crdGroupPriorityMinimum, parts.V2Paths, parts.V2Definitions, parts.V2Parameters, parts.V3)
			}
			if err != nil && ctx.Err() == nil {
				c.logger.Warn("publish the OpenAPI documents of custom resources", "groupVersion", gv, "err", err)
			}
		}
	}
}

// autoregister creates the missing automanaged APIServices of registered,
// updates those whose spec differs and deletes automanaged ones of CRD
// group/versions no CRD serves any more.
func (c *crdServing) autoregister(ctx context.Context, registered map[string][2]string) []error {
	var errs []error
	for name, gv := range registered {
		spec := apiregistration.APIServiceSpec{Group: gv[0], Version: gv[1], GroupPriorityMinimum: crdGroupPriorityMinimum, VersionPriority: crdVersionPriority}
		o, ok := c.apiServices.Get("", name)
		if !ok {
			_, err := c.apisWriter.Create(ctx, &apiregistration.APIService{
				TypeMeta:   meta.TypeMeta{Kind: "APIService", APIVersion: "apiregistration.k8s.io/v1"},
				ObjectMeta: meta.ObjectMeta{Name: name, Labels: map[string]string{automanagedLabel: automanagedValueForCRDs}},
				Spec:       spec,
			})
			var se *meta.StatusError
			if err != nil && !(errors.As(err, &se) && se.Status.Code == http.StatusConflict) {
				errs = append(errs, err)
			}
			continue
		}
		cur := o.(*apiregistration.APIService)
		if cur.Labels[automanagedLabel] != automanagedValueForCRDs {
			continue // user-created, or a built-in group's: not ours
		}
		if cur.Spec.Service != nil || cur.Spec.GroupPriorityMinimum != spec.GroupPriorityMinimum || cur.Spec.VersionPriority != spec.VersionPriority {
			upd := cur.DeepCopy()
			upd.Spec = spec
			if _, err := c.apisWriter.Update(ctx, cur.DeepCopy(), upd); err != nil { // the informer's copy stays untouched
				errs = append(errs, err)
			}
		}
	}
	for _, o := range c.apiServices.List() {
		a := o.(*apiregistration.APIService)
		if a.Labels[automanagedLabel] != automanagedValueForCRDs {
			continue
		}
		if _, ok := registered[a.Name]; ok {
			continue
		}
		if _, err := c.apisWriter.Store.Delete(ctx, "", a.Name, nil); err != nil {
			var se *meta.StatusError
			if !(errors.As(err, &se) && se.Status.Code == http.StatusNotFound) {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

// DeleteInstances deletes every object of the CRD's storage version (all
// namespaces) and returns how many are left (those with finalizers).
func (c *crdServing) DeleteInstances(ctx context.Context, crd *apiextensions.CustomResourceDefinition) (int, error) {
	version := apiextensions.StorageVersion(crd)
	st := c.api.GroupVersionStore(crd.Spec.Group, version, crd.Status.AcceptedNames.Plural)
	if st == nil {
		// not served yet (a start whose first serving pass has not run):
		// serve it now instead of finding no instances, which removed the
		// finalizer of a CRD whose instances kube-apiserver keeps
		if err := c.sync(ctx); err != nil {
			return 0, err
		}
		if st = c.api.GroupVersionStore(crd.Spec.Group, version, crd.Status.AcceptedNames.Plural); st == nil {
			return 0, nil
		}
	}
	if _, err := st.DeleteCollection(ctx, "", registry.ListOptions{}); err != nil {
		return 0, err
	}
	items, _, _, err := st.List(ctx, "", registry.ListOptions{})
	if err != nil {
		return 0, err
	}
	return len(items), nil
}

func splitGV(gv string) (group, version string) {
	for i := len(gv) - 1; i >= 0; i-- {
		if gv[i] == '/' {
			return gv[:i], gv[i+1:]
		}
	}
	return "", gv
}

// servedResources returns "group/version/resource" of every custom
// resource served (for tests and benchmarks).
func (c *crdServing) servedResources() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for gv, s := range c.served {
		for r := range s.stores {
			out = append(out, gv+"/"+r)
		}
	}
	return out
}
