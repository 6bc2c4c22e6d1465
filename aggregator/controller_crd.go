package aggregator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/rest"
)

// crdResource is the store of CustomResourceDefinitions.
var crdResource = meta.GroupResource{Group: apiextensions.GroupAPIExtensions, Resource: "customresourcedefinitions"}

// crdEstablisher serves a CRD from just before its Established write
// (crdServing.ServeEstablishing), and stops when that write failed.
type crdEstablisher interface {
	ServeEstablishing(ctx context.Context, crd *apiextensions.CustomResourceDefinition) error
	CancelEstablishing(name string)
}

// crdInstanceDeleter deletes every custom resource of a CRD for the
// cleanup finalizer and reports how many are left (objects with
// finalizers of their own stay until those are removed). aggsim's
// custom-resource serving provides it; without one a CRD has no
// instances.
type crdInstanceDeleter interface {
	DeleteInstances(ctx context.Context, crd *apiextensions.CustomResourceDefinition) (remaining int, err error)
}

// crdController keeps the status of every CustomResourceDefinition as
// apiextensions-apiserver's controllers do, one write per step so that a
// watcher sees upstream's sequence of events:
//   - the KubernetesAPIApprovalPolicyConformant condition of CRDs in
//     protected groups (apiapproval_controller.go);
//   - acceptedNames with NamesAccepted (NoConflicts, or a
//     Plural/Singular/ShortNames/Kind/ListKind conflict with another CRD
//     of the group) and Established False(Installing) or
//     False(NotAccepted) (naming_controller.go);
//   - Established True(InitialNamesAccepted) once the names are accepted
//     (establishing_controller.go);
//   - for a CRD being deleted: Terminating True(InstanceDeletionInProgress),
//     every instance deleted, Terminating False(InstanceDeletionCompleted)
//     and the customresourcecleanup finalizer removed, which lets the
//     store remove the CRD (crd_finalizer.go).
//
// All writes go through /status as manager kube-apiserver.
type crdController struct {
	crds      *Informer
	writer    rest.ObjectWriter
	instances crdInstanceDeleter
	logger    *slog.Logger
	now       func() time.Time
	kick      chan struct{}
}

// newCRDController registers its handler on crds (before the informer
// runs). instances may be nil.
func newCRDController(crds *Informer, store *registry.Store, instances crdInstanceDeleter, logger *slog.Logger, now func() time.Time) *crdController {
	c := &crdController{
		crds: crds, writer: rest.ObjectWriter{Store: store, Manager: "kube-apiserver"},
		instances: instances, logger: logger, now: now, kick: make(chan struct{}, 1),
	}
	if c.now == nil {
		c.now = time.Now
	}
	crds.AddHandler(func(_, _ meta.Object) { c.trigger() })
	return c
}

// crdResyncPeriod is how often the CRD controllers make a pass without a
// change to act on.
const crdResyncPeriod = 2 * time.Second

func (c *crdController) trigger() {
	select {
	case c.kick <- struct{}{}:
	default: // a pass is pending already
	}
}

// Run syncs every CRD after each change until ctx ends; a pass that
// failed is retried after a second.
func (c *crdController) Run(ctx context.Context) {
	runPasses(ctx, c.kick, time.Second, func() bool { return c.syncAll(ctx) })
}

// runPasses calls pass after each kick, every crdResyncPeriod, and once
// more retryAfter after a pass that failed (returned false), until ctx
// ends: the run loop of both CRD controllers. The periodic pass plays an
// informer's resync: a change whose kick was coalesced into a pass that
// ran before the change was visible is still acted on (a pass with
// nothing to do is cheap).
func runPasses(ctx context.Context, kick <-chan struct{}, retryAfter time.Duration, pass func() bool) {
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	resync := time.NewTicker(crdResyncPeriod)
	defer resync.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-kick:
		case <-retry.C:
		case <-resync.C:
		}
		if !pass() && ctx.Err() == nil {
			retry.Reset(retryAfter)
		}
	}
}

// syncAll takes one step for every CRD that needs one; false when a write
// failed.
func (c *crdController) syncAll(ctx context.Context) bool {
	var all []*apiextensions.CustomResourceDefinition
	for _, o := range c.crds.List() {
		if crd, ok := o.(*apiextensions.CustomResourceDefinition); ok {
			all = append(all, crd)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	used := acceptedNamesByGroup(all)
	ok := true
	for _, crd := range all {
		if err := c.sync(ctx, crd, used[crd.Spec.Group]); err != nil {
			var se *meta.StatusError
			if errors.As(err, &se) && se.Status.Code == 404 {
				continue // deleted meanwhile
			}
			c.logger.Warn("sync CustomResourceDefinition", "name", crd.Name, "err", err)
			ok = false
		}
	}
	return ok
}

// sync takes the next step for crd (a copy is changed and written); used
// holds the names accepted in its group at the start of the pass.
func (c *crdController) sync(ctx context.Context, live *apiextensions.CustomResourceDefinition, used groupNames) error {
	crd := copyCRD(live)
	now := c.now()
	if crd.DeletionTimestamp != nil {
		if !slices.Contains(crd.Finalizers, apiextensions.CustomResourceCleanupFinalizer) {
			return nil
		}
		return c.finalize(ctx, crd)
	}
	if apiextensions.IsProtectedCommunityGroup(crd.Spec.Group) {
		cond := approvalCondition(crd)
		if old := apiextensions.FindCondition(crd.Status.Conditions, cond.Type); old == nil || old.Status != cond.Status || old.Reason != cond.Reason || old.Message != cond.Message {
			registry.SetCRDCondition(crd, cond, now)
			_, err := c.writer.UpdateStatus(ctx, crd)
			return err
		}
	}
	names, namesCond, estCond := calculateNamesAndConditions(crd, used)
	oldNames := apiextensions.FindCondition(crd.Status.Conditions, apiextensions.NamesAccepted)
	oldEst := apiextensions.FindCondition(crd.Status.Conditions, apiextensions.Established)
	if !sameNames(names, crd.Status.AcceptedNames) || !sameCondition(oldNames, namesCond) || !sameCondition(oldEst, estCond) {
		crd.Status.AcceptedNames = names
		registry.SetCRDCondition(crd, namesCond, now)
		registry.SetCRDCondition(crd, estCond, now)
		_, err := c.writer.UpdateStatus(ctx, crd)
		return err
	}
	if namesCond.Status == apiextensions.ConditionTrue && (oldEst == nil || oldEst.Status != apiextensions.ConditionTrue) {
		registry.SetCRDCondition(crd, apiextensions.CustomResourceDefinitionCondition{
			Type: apiextensions.Established, Status: apiextensions.ConditionTrue,
			Reason: "InitialNamesAccepted", Message: "the initial names have been accepted",
		}, now)
		// served before anyone can see Established, so that a create
		// right after it finds the resource (upstream's handler serves
		// whatever its informer shows Established)
		establisher, _ := c.instances.(crdEstablisher)
		if establisher != nil {
			if err := establisher.ServeEstablishing(ctx, crd); err != nil {
				c.logger.Debug("serve an establishing CustomResourceDefinition", "name", crd.Name, "err", err)
			}
		}
		_, err := c.writer.UpdateStatus(ctx, crd)
		// A conflict means the store holds a newer copy than this pass's
		// snapshot, often this controller's own Established write of an
		// earlier pass that the informer has not delivered yet: keep
		// serving until the informer shows that newer copy (crdServing
		// then serves from it, or stops). Un-serving here answered 404
		// after Established (TestCRDServedWhenEstablished, 3 in 30 -race
		// runs).
		if err != nil && establisher != nil && !errors.Is(err, meta.ErrConflict) {
			establisher.CancelEstablishing(crd.Name)
		}
		return err
	}
	return nil
}

// finalize runs upstream's CRD finalizer: Terminating
// True(InstanceDeletionInProgress), delete the instances, then
// Terminating False(InstanceDeletionCompleted) — or NeverEstablished for
// a CRD never served — and remove the finalizer.
func (c *crdController) finalize(ctx context.Context, crd *apiextensions.CustomResourceDefinition) error {
	if t := apiextensions.FindCondition(crd.Status.Conditions, apiextensions.Terminating); t == nil || t.Reason != "InstanceDeletionInProgress" {
		if apiextensions.IsEstablished(crd) {
			registry.SetCRDCondition(crd, apiextensions.CustomResourceDefinitionCondition{
				Type: apiextensions.Terminating, Status: apiextensions.ConditionTrue,
				Reason: "InstanceDeletionInProgress", Message: "CustomResource deletion is in progress",
			}, c.now())
			_, err := c.writer.UpdateStatus(ctx, crd)
			return err
		}
	}
	var cond apiextensions.CustomResourceDefinitionCondition
	if apiextensions.IsEstablished(crd) {
		remaining := 0
		if c.instances != nil {
			var err error
			if remaining, err = c.instances.DeleteInstances(ctx, crd); err != nil {
				registry.SetCRDCondition(crd, apiextensions.CustomResourceDefinitionCondition{
					Type: apiextensions.Terminating, Status: apiextensions.ConditionTrue,
					Reason: "InstanceDeletionFailed", Message: fmt.Sprintf("could not issue all deletes: %v", err),
				}, c.now())
				_, _ = c.writer.UpdateStatus(ctx, crd)
				return err
			}
		}
		if remaining > 0 {
			// objects with finalizers of their own: checked again at the
			// next change or retry
			return fmt.Errorf("%d custom resources of %s remain", remaining, crd.Name)
		}
		cond = apiextensions.CustomResourceDefinitionCondition{
			Type: apiextensions.Terminating, Status: apiextensions.ConditionFalse,
			Reason: "InstanceDeletionCompleted", Message: "removed all instances",
		}
	} else {
		cond = apiextensions.CustomResourceDefinitionCondition{
			Type: apiextensions.Terminating, Status: apiextensions.ConditionFalse,
			Reason: "NeverEstablished", Message: "resource was never established",
		}
	}
	registry.SetCRDCondition(crd, cond, c.now())
	crd.Finalizers = slices.DeleteFunc(crd.Finalizers, func(f string) bool { return f == apiextensions.CustomResourceCleanupFinalizer })
	_, err := c.writer.UpdateStatus(ctx, crd)
	return err
}

// approvalCondition is the KubernetesAPIApprovalPolicyConformant
// condition of a CRD in a protected group (upstream
// apiapproval_controller.go calculateCondition).
func approvalCondition(crd *apiextensions.CustomResourceDefinition) apiextensions.CustomResourceDefinitionCondition {
	state, reason := apiextensions.GetAPIApprovalState(crd.Annotations)
	cond := apiextensions.CustomResourceDefinitionCondition{Type: apiextensions.KubernetesAPIApprovalPolicyConformant, Message: reason}
	switch state {
	case apiextensions.APIApprovalInvalid:
		cond.Status, cond.Reason = apiextensions.ConditionFalse, "InvalidAnnotation"
	case apiextensions.APIApprovalMissing:
		cond.Status, cond.Reason = apiextensions.ConditionFalse, "MissingAnnotation"
	case apiextensions.APIApproved:
		cond.Status, cond.Reason = apiextensions.ConditionTrue, "ApprovedAnnotation"
	case apiextensions.APIApprovalBypassed:
		cond.Status, cond.Reason = apiextensions.ConditionFalse, "UnapprovedAnnotation"
	}
	return cond
}

// groupNames are the names the CRDs of one group have accepted: plurals,
// singulars and short names (resources), kinds and list kinds.
type groupNames struct {
	resources, kinds map[string]bool
}

// acceptedNamesByGroup collects the accepted names of all by group, once
// per pass (upstream's getAcceptedNamesForGroup, which the naming
// controller asks for each CRD).
func acceptedNamesByGroup(all []*apiextensions.CustomResourceDefinition) map[string]groupNames {
	out := map[string]groupNames{}
	for _, o := range all {
		g, ok := out[o.Spec.Group]
		if !ok {
			g = groupNames{resources: map[string]bool{}, kinds: map[string]bool{}}
			out[o.Spec.Group] = g
		}
		a := o.Status.AcceptedNames
		g.resources[a.Plural], g.resources[a.Singular] = true, true
		for _, s := range a.ShortNames {
			g.resources[s] = true
		}
		g.kinds[a.Kind], g.kinds[a.ListKind] = true, true
	}
	return out
}

// calculateNamesAndConditions mirrors upstream's naming controller: each
// requested name is accepted unless it is already accepted by a CRD of
// the group (used; this one included, unless it is the same name it
// accepted: a short name equal to its own singular conflicts once the
// singular is accepted) (the last conflict found names the reason);
// Established is False(Installing) once the names are accepted and not
// yet established, False(NotAccepted) while they are not, and kept as it
// is otherwise.
func calculateNamesAndConditions(crd *apiextensions.CustomResourceDefinition, used groupNames) (apiextensions.CustomResourceDefinitionNames, apiextensions.CustomResourceDefinitionCondition, apiextensions.CustomResourceDefinitionCondition) {
	resources, kinds := used.resources, used.kinds
	cond := apiextensions.CustomResourceDefinitionCondition{Type: apiextensions.NamesAccepted, Status: apiextensions.ConditionUnknown}
	conflict := func(reason string, err error) {
		cond.Status, cond.Reason, cond.Message = apiextensions.ConditionFalse, reason, err.Error()
	}
	req, acc := crd.Spec.Names, crd.Status.AcceptedNames
	names := acc
	names.ShortNames = slices.Clone(acc.ShortNames)
	if err := acceptedOrFresh(req.Plural, acc.Plural, resources); err != nil {
		conflict("PluralConflict", err)
	} else {
		names.Plural = req.Plural
	}
	if err := acceptedOrFresh(req.Singular, acc.Singular, resources); err != nil {
		conflict("SingularConflict", err)
	} else {
		names.Singular = req.Singular
	}
	if !slices.Equal(req.ShortNames, acc.ShortNames) {
		var errs []string
		for _, s := range req.ShortNames {
			if slices.Contains(acc.ShortNames, s) {
				continue
			}
			if err := acceptedOrFresh(s, "", resources); err != nil {
				errs = append(errs, err.Error())
			}
		}
		switch len(errs) {
		case 0:
			names.ShortNames = req.ShortNames
		case 1:
			conflict("ShortNamesConflict", errors.New(errs[0]))
		default: // utilerrors.NewAggregate's text
			conflict("ShortNamesConflict", errors.New("["+strings.Join(errs, ", ")+"]"))
		}
	}
	if err := acceptedOrFresh(req.Kind, acc.Kind, kinds); err != nil {
		conflict("KindConflict", err)
	} else {
		names.Kind = req.Kind
	}
	if err := acceptedOrFresh(req.ListKind, acc.ListKind, kinds); err != nil {
		conflict("ListKindConflict", err)
	} else {
		names.ListKind = req.ListKind
	}
	names.Categories = req.Categories
	if cond.Status == apiextensions.ConditionUnknown {
		cond.Status, cond.Reason, cond.Message = apiextensions.ConditionTrue, "NoConflicts", "no conflicts found"
	}
	est := apiextensions.CustomResourceDefinitionCondition{
		Type: apiextensions.Established, Status: apiextensions.ConditionFalse,
		Reason: "NotAccepted", Message: "not all names are accepted",
	}
	if old := apiextensions.FindCondition(crd.Status.Conditions, apiextensions.Established); old != nil {
		est = *old
	}
	if est.Status != apiextensions.ConditionTrue && cond.Status == apiextensions.ConditionTrue {
		est = apiextensions.CustomResourceDefinitionCondition{
			Type: apiextensions.Established, Status: apiextensions.ConditionFalse,
			Reason: "Installing", Message: "the initial names have been accepted",
		}
	}
	return names, cond, est
}

// acceptedOrFresh is upstream's equalToAcceptedOrFresh.
func acceptedOrFresh(requested, accepted string, used map[string]bool) error {
	if requested == accepted || !used[requested] {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}

func sameNames(a, b apiextensions.CustomResourceDefinitionNames) bool {
	return a.Plural == b.Plural && a.Singular == b.Singular && a.Kind == b.Kind && a.ListKind == b.ListKind &&
		slices.Equal(a.ShortNames, b.ShortNames) && slices.Equal(a.Categories, b.Categories)
}

func sameCondition(old *apiextensions.CustomResourceDefinitionCondition, c apiextensions.CustomResourceDefinitionCondition) bool {
	return old != nil && old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message
}

// copyCRD returns a deep copy of crd (status and metadata slices cloned;
// spec is not changed by the controller).
func copyCRD(crd *apiextensions.CustomResourceDefinition) *apiextensions.CustomResourceDefinition {
	c := *crd
	c.Finalizers = slices.Clone(crd.Finalizers)
	c.ManagedFields = slices.Clone(crd.ManagedFields)
	c.Status.Conditions = slices.Clone(crd.Status.Conditions)
	c.Status.StoredVersions = slices.Clone(crd.Status.StoredVersions)
	c.Status.AcceptedNames.ShortNames = slices.Clone(crd.Status.AcceptedNames.ShortNames)
	return &c
}
