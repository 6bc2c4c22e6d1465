package aggregator_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	flowv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/certs"
)

// normalizePEM re-encodes every CERTIFICATE block, as kube-apiserver writes
// CA bundles into the ConfigMap.
func normalizePEM(t *testing.T, in []byte) string {
	t.Helper()
	var out []byte
	for {
		var b *pem.Block
		b, in = pem.Decode(in)
		if b == nil {
			break
		}
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: b.Bytes})...)
	}
	if len(out) == 0 {
		t.Fatal("no certificate")
	}
	return string(out)
}

func dataKeys(m map[string]string) string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	sort.Strings(k)
	return strings.Join(k, ",")
}

// TestExtensionAuthConfigMap reads kube-system/extension-apiserver-authentication
// the way k8s.io/apiserver does (GET, then an informer LIST+WATCH with
// fieldSelector metadata.name=...), checks every key and value, then
// rotates the front-proxy CA and waits for the informer to see the
// rewritten bundle (old CA kept first, as upstream combines them).
func TestExtensionAuthConfigMap(t *testing.T) {
	var fpOverride atomic.Pointer[[]byte]
	s := aggregatortest.Start(t, aggregatortest.WithAggregatorOptions(func(o *aggregator.Options) {
		orig := o.FrontProxyCAPEM
		o.FrontProxyCAPEM = func() []byte {
			if p := fpOverride.Load(); p != nil {
				return *p
			}
			return orig()
		}
	}))
	core := groupClient(t, s, "", "v1")
	ctx := context.Background()

	var cm corev1.ConfigMap
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := core.Get().Namespace("kube-system").Resource("configmaps").Name("extension-apiserver-authentication").Do(ctx).Into(&cm)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("configmap never written: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	oldFP := normalizePEM(t, s.FrontProxyCAPEM())
	// kube-apiserver 1.33.13 with default --requestheader-uid-headers
	// publishes no requestheader-uid-headers key (kubectl get cm -n
	// kube-system extension-apiserver-authentication against the reference).
	want := map[string]string{
		"client-ca-file":                     normalizePEM(t, s.CAPEM()),
		"requestheader-client-ca-file":       oldFP,
		"requestheader-allowed-names":        `["front-proxy-client"]`,
		"requestheader-username-headers":     `["X-Remote-User"]`,
		"requestheader-group-headers":        `["X-Remote-Group"]`,
		"requestheader-extra-headers-prefix": `["X-Remote-Extra-"]`,
	}
	if dataKeys(cm.Data) != dataKeys(want) {
		t.Fatalf("keys %s, want %s", dataKeys(cm.Data), dataKeys(want))
	}
	for k, v := range want {
		if cm.Data[k] != v {
			t.Errorf("%s = %q, want %q", k, cm.Data[k], v)
		}
	}

	// The informer's requests (client-go's tools/cache needs a module go.mod
	// lacks, so they are made here directly): LIST, then WATCH from the
	// list's resourceVersion, both with the field selector.
	sel := fields.OneTermEqualSelector("metadata.name", "extension-apiserver-authentication").String()
	var list corev1.ConfigMapList
	if err := core.Get().Namespace("kube-system").Resource("configmaps").Param("fieldSelector", sel).Param("limit", "500").Param("resourceVersion", "0").Do(ctx).Into(&list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "extension-apiserver-authentication" || list.ResourceVersion == "" ||
		list.Items[0].Data["requestheader-client-ca-file"] != oldFP {
		t.Fatalf("list: %+v", list)
	}
	w, err := core.Get().Namespace("kube-system").Resource("configmaps").Param("fieldSelector", sel).
		Param("resourceVersion", list.ResourceVersion).Param("allowWatchBookmarks", "true").Param("watch", "true").Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	updates := make(chan *corev1.ConfigMap, 16)
	go func() {
		for ev := range w.ResultChan() {
			if cm, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type == watch.Modified {
				updates <- cm
			}
		}
	}()

	ca, err := certs.NewCA("front-proxy-ca-2", certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	newPEM := ca.CertPEM
	fpOverride.Store(&newPEM)
	wantBundle := oldFP + normalizePEM(t, newPEM)
	timeout := time.After(20 * time.Second)
	for {
		select {
		case got := <-updates:
			if got.Data["requestheader-client-ca-file"] == wantBundle {
				if got.Data["client-ca-file"] != want["client-ca-file"] || got.Data["requestheader-allowed-names"] != `["front-proxy-client"]` {
					t.Fatalf("rotated data %v", got.Data)
				}
				return
			}
		case <-timeout:
			t.Fatal("rotation not seen by the informer")
		}
	}
}

// TestAdmissionAndFlowControlResources lists and watches every resource a
// k8s.io/apiserver backend's admission plugins and APF informers watch
// (empty at first), creates and gets one of each, and checks discovery
// (aggregated and legacy) lists the four groups with upstream's resources.
func TestAdmissionAndFlowControlResources(t *testing.T) {
	s := aggregatortest.Start(t)
	ctx := context.Background()
	adm := groupClient(t, s, "admissionregistration.k8s.io", "v1")
	flow := groupClient(t, s, "flowcontrol.apiserver.k8s.io", "v1")

	lists := []struct {
		group, resource string
		into            any
	}{
		{"adm", "mutatingwebhookconfigurations", &admissionv1.MutatingWebhookConfigurationList{}},
		{"adm", "validatingwebhookconfigurations", &admissionv1.ValidatingWebhookConfigurationList{}},
		{"adm", "validatingadmissionpolicies", &admissionv1.ValidatingAdmissionPolicyList{}},
		{"adm", "validatingadmissionpolicybindings", &admissionv1.ValidatingAdmissionPolicyBindingList{}},
		{"flow", "flowschemas", &flowv1.FlowSchemaList{}},
		{"flow", "prioritylevelconfigurations", &flowv1.PriorityLevelConfigurationList{}},
	}
	for _, l := range lists {
		c := adm
		if l.group == "flow" {
			c = flow
		}
		res := c.Get().Resource(l.resource).Do(ctx)
		raw, err := res.Raw()
		if err != nil {
			t.Fatalf("list %s: %v", l.resource, err)
		}
		// the flowcontrol lists hold the bootstrap objects (exempt first
		// by name after catch-all), the admission lists are empty
		wantItems := `"items":[]`
		if l.group == "flow" {
			wantItems = `"items":[{"metadata":{"name":"catch-all"`
		}
		if !strings.Contains(string(raw), wantItems) || !strings.Contains(string(raw), `"resourceVersion":"`) {
			t.Fatalf("list %s: %s", l.resource, raw)
		}
		// A watch-list request is refused as kube-apiserver 1.33 (WatchList
		// gate off) refuses it; informers then list and watch.
		_, err = c.Get().Resource(l.resource).Param("watch", "true").Param("allowWatchBookmarks", "true").
			Param("sendInitialEvents", "true").Param("resourceVersionMatch", "NotOlderThan").Watch(ctx)
		if !apierrors.IsInvalid(err) {
			t.Fatalf("watch-list %s: %v, want 422 Invalid", l.resource, err)
		}
		var list struct {
			Metadata struct{ ResourceVersion string } `json:"metadata"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatal(err)
		}
		w, err := c.Get().Resource(l.resource).Param("watch", "true").Param("allowWatchBookmarks", "true").
			Param("resourceVersion", list.Metadata.ResourceVersion).Watch(ctx)
		if err != nil {
			t.Fatalf("watch %s: %v", l.resource, err)
		}
		w.Stop()
	}

	vwc := &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "check"}, Webhooks: []admissionv1.ValidatingWebhook{{
		// upstream refuses a webhook without clientConfig, sideEffects or
		// admissionReviewVersions (422), and so does aggsim now
		Name: "check.example.com", ClientConfig: admissionv1.WebhookClientConfig{URL: ptrTo("https://check.example.com/v")},
		SideEffects: ptrTo(admissionv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
	}}}
	var gotVWC admissionv1.ValidatingWebhookConfiguration
	if err := create(adm, "", "validatingwebhookconfigurations", vwc, &gotVWC); err != nil {
		t.Fatal(err)
	}
	if err := adm.Get().Resource("validatingwebhookconfigurations").Name("check").Do(ctx).Into(&gotVWC); err != nil ||
		len(gotVWC.Webhooks) != 1 || gotVWC.Webhooks[0].Name != "check.example.com" || gotVWC.Generation != 1 {
		t.Fatalf("get: %+v %v", gotVWC, err)
	}
	var bad admissionv1.ValidatingAdmissionPolicyBinding
	err := create(adm, "", "validatingadmissionpolicybindings", &admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, &bad)
	if err == nil || err.Error() != `ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "b" is invalid: [spec.policyName: Required value, spec.validationActions: Required value: at least one validation action is required]` {
		t.Fatalf("invalid binding: %v", err)
	}

	fs := &flowv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: "fs"}, Spec: flowv1.FlowSchemaSpec{
		PriorityLevelConfiguration: flowv1.PriorityLevelConfigurationReference{Name: "global-default"}, MatchingPrecedence: 500,
	}, Status: flowv1.FlowSchemaStatus{Conditions: []flowv1.FlowSchemaCondition{{Type: "Dangling", Status: "True"}}}}
	var gotFS flowv1.FlowSchema
	if err := create(flow, "", "flowschemas", fs, &gotFS); err != nil {
		t.Fatal(err)
	}
	if len(gotFS.Status.Conditions) != 0 || gotFS.Spec.MatchingPrecedence != 500 {
		t.Fatalf("create must clear status: %+v", gotFS)
	}
	// the APF consumer writes the Dangling condition meanwhile: retry
	// the read-modify-write on a conflict as a controller would
	var afterStatus flowv1.FlowSchema
	for attempt := 0; ; attempt++ {
		gotFS.Status.Conditions = []flowv1.FlowSchemaCondition{{Type: "Dangling", Status: "False"}}
		err := flow.Put().Resource("flowschemas").Name("fs").SubResource("status").Body(&gotFS).Do(ctx).Into(&afterStatus)
		if apierrors.IsConflict(err) && attempt < 20 {
			if err := flow.Get().Resource("flowschemas").Name("fs").Do(ctx).Into(&gotFS); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err != nil || len(afterStatus.Status.Conditions) != 1 || afterStatus.Status.Conditions[0].Status != "False" {
			t.Fatalf("status update: %+v %v", afterStatus, err)
		}
		break
	}

	dc, err := discovery.NewDiscoveryClientForConfig(restConfig(t, s))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"admissionregistration.k8s.io/v1": "mutatingwebhookconfigurations:create,delete,deletecollection,get,list,patch,update,watch validatingadmissionpolicies:create,delete,deletecollection,get,list,patch,update,watch validatingadmissionpolicies/status:get,patch,update validatingadmissionpolicybindings:create,delete,deletecollection,get,list,patch,update,watch validatingwebhookconfigurations:create,delete,deletecollection,get,list,patch,update,watch",
		"flowcontrol.apiserver.k8s.io/v1": "flowschemas:create,delete,deletecollection,get,list,patch,update,watch flowschemas/status:get,patch,update prioritylevelconfigurations:create,delete,deletecollection,get,list,patch,update,watch prioritylevelconfigurations/status:get,patch,update",
		"authentication.k8s.io/v1":        "selfsubjectreviews:create tokenreviews:create",
		"authorization.k8s.io/v1":         "localsubjectaccessreviews:create selfsubjectaccessreviews:create selfsubjectrulesreviews:create subjectaccessreviews:create",
	}
	for _, d := range []discovery.DiscoveryInterface{dc, dc.WithLegacy()} {
		_, lists, err := d.ServerGroupsAndResources()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, l := range lists {
			var parts []string
			for _, r := range l.APIResources {
				parts = append(parts, r.Name+":"+strings.Join(r.Verbs, ","))
			}
			got[l.GroupVersion] = strings.Join(parts, " ")
		}
		for gv, w := range want {
			if got[gv] != w {
				t.Errorf("%s: %q\nwant %q", gv, got[gv], w)
			}
		}
	}
}

func ptrTo[T any](v T) *T { return &v }
