package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/proxy"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// DefaultTimeout is a webhook's timeout when timeoutSeconds is unset
// (upstream's default, 10 s).
const DefaultTimeout = 10 * time.Second

// Options configure a Dispatcher.
type Options struct {
	// Source reads the configurations and namespaces. Required.
	Source Source
	// Resolver turns a webhook's clientConfig.service into the address to
	// dial, as for APIServices (proxy.NewEndpointServiceResolver); nil
	// dials <name>.<namespace>.svc.
	Resolver proxy.ServiceResolver
	// Logger receives one debug record per webhook call (request and
	// response); nil discards.
	Logger *slog.Logger
	// RingSize bounds the calls kept for /debug/aggsim/webhooks; 0 means
	// DefaultRingSize.
	RingSize int
	// DialContext, when set, replaces the dialer of webhook connections
	// (tests; fault injection).
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// MutatingAdmissionPolicy enforces MutatingAdmissionPolicies (the
	// feature gate of that name; the Source must be a
	// MutatingPolicySource), before the mutating webhooks.
	MutatingAdmissionPolicy bool
}

// Dispatcher calls the admission webhooks of the current configurations
// for every write it is asked about (registry.Admission). It is safe for
// concurrent use.
type Dispatcher struct {
	opts    Options
	log     *slog.Logger
	clients *clients
	ring    *Ring
	refused refusals // refusals.go
}

var _ registry.Admission = (*Dispatcher)(nil)

// New returns a Dispatcher.
func New(opts Options) *Dispatcher {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var resolve func(namespace, name string, port int32) (string, error)
	if opts.Resolver != nil {
		resolve = func(namespace, name string, port int32) (string, error) {
			u, err := opts.Resolver.ResolveEndpoint(namespace, name, port)
			var nf *proxy.ServiceNotFoundError
			if errors.As(err, &nf) {
				// upstream's service resolver text
				return "", fmt.Errorf("service %q not found", name)
			}
			if err != nil {
				return "", err
			}
			return u.Host, nil
		}
	}
	return &Dispatcher{opts: opts, log: log, clients: newClients(opts.DialContext, resolve), ring: NewRing(opts.RingSize)}
}

// CloseIdleConnections closes the idle connections to webhooks, so the
// next call dials and handshakes again.
func (d *Dispatcher) CloseIdleConnections() { d.clients.closeIdle() }

// Ring returns the record of recent webhook calls.
func (d *Dispatcher) Ring() *Ring { return d.ring }

// hook is one webhook of a configuration, in the validating form, with
// its reinvocation policy when mutating.
type hook struct {
	config   string
	w        admissionregistration.ValidatingWebhook
	reinvoke bool
	mutating bool
	invoked  bool // called in this pass (mutating)
	// version is the other version of the resource the rules matched
	// (matchPolicy Equivalent), "" when they match the request's; sent is
	// what the last call sent (the attributes in that version).
	version string
	sent    *registry.AdmissionAttributes
}

func (h *hook) failClosed() bool {
	return h.w.FailurePolicy == nil || *h.w.FailurePolicy != "Ignore"
}

// Mutate runs the matching mutating webhooks in configuration-name and
// list order, applying each JSONPatch to a.Object, and reinvokes once
// those with reinvocationPolicy IfNeeded that ran before a later change
// (upstream's mutating dispatcher with its reinvocation context).
func (d *Dispatcher) Mutate(ctx context.Context, a *registry.AdmissionAttributes) error {
	if exempt(a.Info) {
		return nil
	}
	pol, err := d.mutatePolicies(ctx, a) // mutating_policy.go
	if err != nil {
		return err
	}
	cfgs, err := d.opts.Source.MutatingWebhookConfigurations(ctx)
	if err != nil {
		return err
	}
	if len(cfgs) == 0 {
		return pol.reinvoke(ctx, d, a, false)
	}
	slices.SortFunc(cfgs, func(x, y *admissionregistration.MutatingWebhookConfiguration) int {
		return strings.Compare(x.Name, y.Name)
	})
	var hooks []*hook
	for _, c := range cfgs {
		for i := range c.Webhooks {
			w := c.Webhooks[i]
			hooks = append(hooks, &hook{config: c.Name, w: w.Validating(), mutating: true,
				reinvoke: w.ReinvocationPolicy != nil && *w.ReinvocationPolicy == "IfNeeded"})
		}
	}
	var prev, again []*hook
	changedAny := false
	vars := &pol.vars // shared by the policies and the webhooks' match conditions
	for _, h := range hooks {
		changed, err := d.callMutating(ctx, h, a, vars)
		if err != nil {
			return err
		}
		if changed {
			changedAny = true
			again = append(again, prev...)
			prev = nil
		}
		if h.reinvoke && h.invoked {
			prev = append(prev, h)
		}
	}
	if err := pol.reinvoke(ctx, d, a, changedAny); err != nil {
		return err
	}
	if !changedAny {
		return nil
	}
	for _, h := range hooks {
		if !slices.Contains(again, h) {
			continue
		}
		if _, err := d.callMutating(ctx, h, a, vars); err != nil {
			return err
		}
	}
	return nil
}

// Validate enforces the ValidatingAdmissionPolicies (when the Source is a
// PolicySource; policy.go), then calls the matching validating webhooks
// in parallel, as upstream's ValidatingAdmissionPolicy and
// ValidatingAdmissionWebhook plugins run in that order, and returns the
// first refusal or failure in webhook order.
func (d *Dispatcher) Validate(ctx context.Context, a *registry.AdmissionAttributes) error {
	if exempt(a.Info) {
		return nil
	}
	var vars celVars // shared by the policies and the webhooks' match conditions
	if err := d.validatePolicies(ctx, a, &vars); err != nil {
		return err
	}
	cfgs, err := d.opts.Source.ValidatingWebhookConfigurations(ctx)
	if err != nil || len(cfgs) == 0 {
		return err
	}
	slices.SortFunc(cfgs, func(x, y *admissionregistration.ValidatingWebhookConfiguration) int {
		return strings.Compare(x.Name, y.Name)
	})
	var hooks []*hook
	for _, c := range cfgs {
		for i := range c.Webhooks {
			hooks = append(hooks, &hook{config: c.Name, w: c.Webhooks[i]})
		}
	}
	// Matching (selectors and match conditions) happens for every hook
	// before any is called: a match condition error with failurePolicy
	// Fail refuses the request without calling anything (as measured).
	var call []*hook
	for _, h := range hooks {
		ok, err := d.matches(ctx, h, a, &vars)
		if err != nil {
			return err
		}
		if ok {
			call = append(call, h)
		}
	}
	if len(call) == 0 {
		return nil
	}
	if a.Kind == "" {
		setTypeMeta(a.Info, a.Object)
	}
	setTypeMeta(a.Info, a.OldObject)
	errs := make([]error, len(call))
	warnings := make([][]string, len(call))
	var wg sync.WaitGroup
	for i, h := range call {
		wg.Add(1)
		go func() {
			defer wg.Done()
			warnings[i], errs[i] = d.callValidating(ctx, h, a)
		}()
	}
	wg.Wait()
	// The request's warning sink is not safe for concurrent use: warnings
	// are passed on here, in webhook order.
	for _, w := range warnings {
		registry.AddWarnings(ctx, w...)
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// callValidating calls h and returns its warnings and verdict.
func (d *Dispatcher) callValidating(ctx context.Context, h *hook, a *registry.AdmissionAttributes) ([]string, error) {
	if err := dryRunCheck(h, a); err != nil {
		return nil, d.refuse(ctx, a, hookRefusal(h), err)
	}
	resp, err := d.call(ctx, h, a)
	if err != nil {
		return nil, d.callFailed(ctx, h, a, err)
	}
	if !resp.Allowed {
		return resp.Warnings, d.refuse(ctx, a, hookRefusal(h), toStatusErr(h.w.Name, resp.Result))
	}
	return resp.Warnings, nil
}

// callFailed applies h's failure policy to err, the error of a call: a
// *callError is nil under Ignore (the call fails open) and a refused
// 500 under Fail; any other error refuses the request as it is.
func (d *Dispatcher) callFailed(ctx context.Context, h *hook, a *registry.AdmissionAttributes, err error) error {
	var ce *callError
	if !errors.As(err, &ce) {
		return err
	}
	if !h.failClosed() {
		d.log.Debug("admission webhook call failed, failing open", "webhook", h.w.Name, "err", err)
		return nil
	}
	x := hookRefusal(h)
	x.FailurePolicy = "Fail"
	return d.refuse(ctx, a, x, meta.NewInternalError(err))
}

// callMutating matches h and, when it matches, calls it and applies its
// patch to a.Object; changed reports whether the object changed. vars
// memoises the match conditions' variables over the pass.
func (d *Dispatcher) callMutating(ctx context.Context, h *hook, a *registry.AdmissionAttributes, vars *celVars) (bool, error) {
	ok, err := d.matches(ctx, h, a, vars)
	if err != nil || !ok {
		return false, err
	}
	if err := dryRunCheck(h, a); err != nil {
		return false, d.refuse(ctx, a, hookRefusal(h), err)
	}
	h.invoked = true
	resp, err := d.call(ctx, h, a)
	if err != nil {
		return false, d.callFailed(ctx, h, a, err)
	}
	registry.AddWarnings(ctx, resp.Warnings...)
	if !resp.Allowed {
		return false, d.refuse(ctx, a, hookRefusal(h), toStatusErr(h.w.Name, resp.Result))
	}
	if len(resp.Patch) == 0 {
		return false, nil
	}
	patch, err := decodeJSONPatch(resp.Patch)
	if err != nil {
		return false, meta.NewInternalError(err)
	}
	if len(patch) == 0 {
		return false, nil
	}
	if a.Object == nil {
		return false, meta.NewInternalError(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", h.w.Name))
	}
	if pt := patchTypeOf(resp); pt != "JSONPatch" {
		return false, d.callFailed(ctx, h, a, &callError{name: h.w.Name, reason: fmt.Errorf("unsupported patch type %q", pt)})
	}
	orig, err := objectJSON(a.Info, a.Object)
	if err != nil {
		return false, meta.NewInternalError(err)
	}
	sent := orig // the object as the webhook saw it (its version's)
	if h.sent != nil && h.sent != a {
		if sent, err = objectJSON(h.sent.Info, h.sent.Object); err != nil {
			return false, meta.NewInternalError(err)
		}
	}
	patched, err := patch.Apply(sent)
	if err != nil {
		return false, meta.NewInternalError(err)
	}
	obj, err := a.Decode(patched)
	if err != nil {
		var se *meta.StatusError
		if errors.As(err, &se) {
			return false, se // the resource's own refusal (registry.MutatedDecoder)
		}
		return false, meta.NewInternalError(err)
	}
	after, _ := objectJSON(a.Info, obj)
	changed := string(after) != string(orig)
	a.Object = obj
	return changed, nil
}

// dryRunCheck refuses a dry run for a webhook with side effects
// (upstream's NewDryRunUnsupportedErr: 400 `admission webhook "<name>"
// does not support dry run`).
func dryRunCheck(h *hook, a *registry.AdmissionAttributes) error {
	if !a.DryRun {
		return nil
	}
	if se := h.w.SideEffects; se != nil && (*se == "None" || *se == "NoneOnDryRun") {
		return nil
	}
	return meta.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", h.w.Name))
}

// toStatusErr mirrors upstream's webhookerrors.ToStatusErr: the webhook's
// status with a code of at least 400, status Failure, and the message
// `admission webhook "<name>" denied the request: <message or reason>`
// (or `... denied the request without explanation`).
func toStatusErr(name string, st *meta.Status) *meta.StatusError {
	s := meta.Status{}
	if st != nil {
		s = *st
	}
	s.TypeMeta = meta.TypeMeta{Kind: "Status", APIVersion: "v1"}
	if s.Code < http.StatusBadRequest {
		s.Code = http.StatusBadRequest
	}
	if s.Status == "" || s.Status == "Success" {
		s.Status = "Failure"
	}
	denied := fmt.Sprintf("admission webhook %q denied the request", name)
	switch {
	case s.Message != "":
		s.Message = denied + ": " + s.Message
	case s.Reason != "":
		s.Message = denied + ": " + string(s.Reason)
	default:
		s.Message = denied + " without explanation"
	}
	return &meta.StatusError{Status: s}
}

// matches applies h's rules, namespaceSelector, objectSelector and match
// conditions to a (upstream's ShouldCallHook and matchconditions); an
// error is the request's answer. The conditions' variables come from
// memo (nil: built for this call).
func (d *Dispatcher) matches(ctx context.Context, h *hook, a *registry.AdmissionAttributes, memo *celVars) (bool, error) {
	ruleOK := false
	for _, r := range h.w.Rules {
		if ruleMatches(r, a) {
			ruleOK = true
			break
		}
	}
	h.version = ""
	if !ruleOK {
		if h.version, ruleOK = equivalentMatch(h, a); !ruleOK {
			return false, nil
		}
	}
	if sel := h.w.NamespaceSelector; sel != nil && !(len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0) {
		isNamespaceObject := a.Info.Group == "" && a.Info.Resource == "namespaces"
		switch {
		case isNamespaceObject:
			o := a.Object
			if o == nil {
				o = a.OldObject
			}
			if o != nil && !sel.Matches(o.GetObjectMeta().Labels) {
				return false, nil
			}
		case a.Namespace == "":
			// cluster-scoped objects always match a namespaceSelector
		default:
			labels, found, err := d.opts.Source.NamespaceLabels(ctx, a.Namespace)
			if err != nil {
				return false, meta.NewInternalError(err)
			}
			if !found {
				return false, meta.NewNotFound(meta.GroupResource{Resource: "namespaces"}, a.Namespace)
			}
			if !sel.Matches(labels) {
				return false, nil
			}
		}
	}
	if sel := h.w.ObjectSelector; sel != nil && !(len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0) {
		m := false
		if a.Object != nil && sel.Matches(a.Object.GetObjectMeta().Labels) {
			m = true
		}
		if a.OldObject != nil && sel.Matches(a.OldObject.GetObjectMeta().Labels) {
			m = true
		}
		if !m {
			return false, nil
		}
	}
	if len(h.w.MatchConditions) > 0 {
		vars, err := memo.of(ctx, a)
		if err != nil {
			return false, meta.NewInternalError(err)
		}
		d.addAuthorizer(ctx, a, vars)
		ok, errs := evalMatchConditions(ctx, envMatch, h.w.MatchConditions, vars)
		if len(errs) > 0 {
			if !h.failClosed() {
				return false, nil
			}
			return false, d.refuse(ctx, a, hookRefusal(h), forbidden(a, errors.Join(errs...)))
		}
		return ok, nil
	}
	return true, nil
}

// forbidden is upstream's admission.NewForbidden: 403 `<resource>[.<group>]
// "<name>" is forbidden: <err>` with the name, group and resource as
// details.
func forbidden(a *registry.AdmissionAttributes, err error) *meta.StatusError {
	gr := meta.GroupResource{Group: a.Info.Group, Resource: a.Info.Resource}
	name := a.Name
	if a.Object != nil && name == "" {
		if m := a.Object.GetObjectMeta(); m.Name != "" {
			name = m.Name
		} else {
			name = m.GenerateName
		}
	}
	e := meta.NewStatusError(http.StatusForbidden, meta.StatusReasonForbidden, fmt.Sprintf("%s %q is forbidden: %v", gr.String(), name, err))
	e.Status.Details = &meta.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}
	return e
}

// objectJSON serialises obj with the resource's kind and apiVersion.
func objectJSON(info registry.ResourceInfo, obj meta.Object) ([]byte, error) {
	setTypeMeta(info, obj)
	if u, ok := obj.(*registry.Unstructured); ok {
		return unstructuredJSON(u)
	}
	return json.Marshal(obj)
}

// unstructuredJSON serialises a custom resource as upstream's
// Unstructured does: metadata holds what was set, so a new object has no
// creationTimestamp (typed objects have "creationTimestamp": null).
func unstructuredJSON(u *registry.Unstructured) ([]byte, error) {
	m, err := u.Object()
	if err != nil {
		return nil, err
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		if v, has := md["creationTimestamp"]; has && v == nil {
			delete(md, "creationTimestamp")
		}
	}
	return json.Marshal(m)
}

// attrsObjectJSON serialises a.Object: a CONNECT's options object as it
// is, any other with the resource's kind and apiVersion.
func attrsObjectJSON(a *registry.AdmissionAttributes) ([]byte, error) {
	if a.Kind != "" {
		return json.Marshal(a.Object)
	}
	return objectJSON(a.Info, a.Object)
}

// setTypeMeta sets obj's kind and apiVersion to the resource's, writing
// only when they differ (validating webhooks read obj in parallel after
// Validate set them).
func setTypeMeta(info registry.ResourceInfo, obj meta.Object) {
	if obj == nil {
		return
	}
	tm := obj.GetTypeMeta()
	if tm.Kind != info.Kind || tm.APIVersion != info.APIVersion() {
		tm.Kind, tm.APIVersion = info.Kind, info.APIVersion()
	}
}

// userOf returns the request's user as AdmissionReview's userInfo.
func userOf(ctx context.Context) any {
	if u, ok := request.UserFrom(ctx); ok && u != nil {
		return u
	}
	return struct{}{}
}
