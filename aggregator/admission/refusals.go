package admission

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// refusalsKept bounds the refusals a Dispatcher keeps.
const refusalsKept = 50

// Refusal is one request that admission refused, as `aggsim explain
// webhook --last-denied` shows it: when, by what (a webhook of a
// configuration, or a ValidatingAdmissionPolicy through a binding), the
// request (user, operation, resource, namespace and name), the HTTP code
// and the message the client received. FailurePolicy is set when the
// webhook call failed and failurePolicy Fail refused the request
// (not a verdict of the webhook). Upstream keeps no such record (only
// audit events and the apiserver_admission_webhook_rejection_count
// metric); this is aggsim's.
type Refusal struct {
	Time          time.Time `json:"time"`
	By            string    `json:"by"` // "webhook" or "policy"
	Webhook       string    `json:"webhook,omitempty"`
	Configuration string    `json:"configuration,omitempty"`
	Mutating      bool      `json:"mutating,omitempty"`
	Policy        string    `json:"policy,omitempty"`
	Binding       string    `json:"binding,omitempty"`
	User          string    `json:"user"`
	Operation     string    `json:"operation"`
	Resource      string    `json:"resource"`
	Namespace     string    `json:"namespace,omitempty"`
	Name          string    `json:"name,omitempty"`
	Code          int32     `json:"code"`
	Message       string    `json:"message"`
	FailurePolicy string    `json:"failurePolicy,omitempty"`
}

// refusals keeps the last refusalsKept refusals, oldest first.
type refusals struct {
	mu    sync.Mutex
	items []Refusal
}

func (r *refusals) add(x Refusal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.items) >= refusalsKept {
		r.items = append(r.items[:0], r.items[1:]...)
	}
	r.items = append(r.items, x)
}

// Refusals returns the last requests admission refused (at most 50),
// newest first.
func (d *Dispatcher) Refusals() []Refusal {
	d.refused.mu.Lock()
	defer d.refused.mu.Unlock()
	out := make([]Refusal, 0, len(d.refused.items))
	for i := len(d.refused.items) - 1; i >= 0; i-- {
		out = append(out, d.refused.items[i])
	}
	return out
}

// refuse records err (the request's answer) as a refusal of a by x and
// returns err unchanged.
func (d *Dispatcher) refuse(ctx context.Context, a *registry.AdmissionAttributes, x Refusal, err error) error {
	if err == nil {
		return nil
	}
	x.Time = time.Now().UTC()
	if u, ok := request.UserFrom(ctx); ok {
		x.User = u.Username
	}
	x.Operation, x.Resource, x.Namespace, x.Name = a.Operation, resourceString(a), a.Namespace, a.Name
	if x.Name == "" && a.Object != nil {
		x.Name = a.Object.GetObjectMeta().Name
	}
	x.Message = err.Error()
	var se *meta.StatusError
	if errors.As(err, &se) {
		x.Code, x.Message = se.Status.Code, se.Status.Message
	}
	d.refused.add(x)
	return err
}

// hookRefusal is the Refusal skeleton of webhook h.
func hookRefusal(h *hook) Refusal {
	return Refusal{By: "webhook", Webhook: h.w.Name, Configuration: h.config, Mutating: h.mutating}
}

// failurePolicyName is the webhook's failurePolicy, "Fail" when unset
// (upstream's default).
func failurePolicyName(h *hook) string {
	if h.failClosed() {
		return "Fail"
	}
	return "Ignore"
}
