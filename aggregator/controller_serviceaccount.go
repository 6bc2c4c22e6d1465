package aggregator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"sync/atomic"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// ServiceAccountControllerName is the canonical kube-controller-manager
// name of the controller that creates each namespace's default
// ServiceAccount (cmd/kube-controller-manager/names:
// ServiceAccountController).
const ServiceAccountControllerName = "serviceaccount-controller"

// defaultServiceAccountName is the ServiceAccount every active namespace
// gets (kube-controller-manager's --service-account... default list:
// serviceaccount.DefaultServiceAccountsControllerOptions).
const defaultServiceAccountName = "default"

// serviceAccountsController mirrors kube-controller-manager's
// serviceaccount controller (pkg/controller/serviceaccount/
// serviceaccounts_controller.go): every Active namespace has a
// ServiceAccount "default"; it is created for new namespaces, for the
// existing ones at start, and again whenever it is deleted. Terminating
// namespaces are left alone (their content is the namespace controller's
// to delete). The object it creates carries only its name and namespace,
// as upstream's (no managedFields: nothing but the name is set).
type serviceAccountsController struct {
	namespaces      *Informer
	serviceAccounts *Informer
	client          loopback
	logger          *slog.Logger
	queue           *nsQueue
	// running: Run has begun; before it the shared namespace informer's
	// events are not queued (Run queues every namespace it lists).
	running atomic.Bool
}

// serviceAccountControllerUserAgent is kube-controller-manager's user
// agent for the controller's client.
var serviceAccountControllerUserAgent = fmt.Sprintf("kube-controller-manager/%s (%s/%s) kubernetes/aggsim/service-account-controller", KubeVersion, runtime.GOOS, runtime.GOARCH)

// newServiceAccountsController registers its handlers on namespaces and
// serviceAccounts (before they run; namespaces is the server's shared
// informer): a namespace added or changed, or a
// ServiceAccount deleted, queues its namespace.
func newServiceAccountsController(namespaces, serviceAccounts *Informer, client loopback, logger *slog.Logger) *serviceAccountsController {
	c := &serviceAccountsController{namespaces: namespaces, serviceAccounts: serviceAccounts, client: client, logger: logger, queue: newNSQueue()}
	namespaces.AddHandler(func(_, cur meta.Object) {
		if cur != nil && c.running.Load() {
			c.queue.add(cur.GetObjectMeta().Name, 0)
		}
	})
	serviceAccounts.AddHandler(func(old, cur meta.Object) {
		if cur == nil && old != nil && old.GetObjectMeta().Name == defaultServiceAccountName {
			c.queue.add(old.GetObjectMeta().Namespace, 0)
		}
	})
	return c
}

// Run runs the ServiceAccount informer and one worker until ctx ends; the
// namespace informer (shared with the namespace controller) is run by the
// server.
func (c *serviceAccountsController) Run(ctx context.Context) {
	go func() { <-ctx.Done(); c.queue.shutdown() }()
	done := make(chan struct{})
	go func() { c.serviceAccounts.Run(ctx); close(done) }()
	c.running.Store(true)
	for _, ch := range []<-chan struct{}{c.namespaces.Synced(), c.serviceAccounts.Synced()} {
		select {
		case <-ch:
		case <-ctx.Done():
		}
	}
	for _, o := range c.namespaces.List() { // those added before Run
		c.queue.add(o.GetObjectMeta().Name, 0)
	}
	for {
		name, ok := c.queue.get()
		if !ok {
			break
		}
		if err := c.sync(ctx, name); err != nil {
			c.logger.Info("create the default ServiceAccount", "namespace", name, "err", err)
			c.queue.done(name, -1)
			continue
		}
		c.queue.done(name, 0)
	}
	<-done
}

// sync creates the default ServiceAccount of namespace ns when ns is
// Active and has none.
func (c *serviceAccountsController) sync(ctx context.Context, ns string) error {
	o, ok := c.namespaces.Get("", ns)
	if !ok {
		return nil
	}
	n := o.(*core.Namespace)
	if n.DeletionTimestamp != nil || n.Status.Phase == core.NamespaceTerminating {
		return nil
	}
	if _, ok := c.serviceAccounts.Get(ns, defaultServiceAccountName); ok {
		return nil
	}
	body, _ := json.Marshal(core.ServiceAccount{
		TypeMeta:   meta.TypeMeta{Kind: "ServiceAccount", APIVersion: "v1"},
		ObjectMeta: meta.ObjectMeta{Name: defaultServiceAccountName},
	})
	err := c.client.do(ctx, http.MethodPost, "/api/v1/namespaces/"+url.PathEscape(ns)+"/serviceaccounts", "", "application/json", body)
	var se *meta.StatusError
	if errors.As(err, &se) && (se.Status.Code == http.StatusConflict || se.Status.Code == http.StatusForbidden) {
		// AlreadyExists (the informer lags), or the namespace began
		// terminating meanwhile: upstream ignores both.
		return nil
	}
	return err
}
