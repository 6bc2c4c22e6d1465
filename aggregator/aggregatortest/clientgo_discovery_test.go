package aggregatortest_test

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/demo"
)

// Issue 3 ("client-go's discovery client (both legacy and aggregated
// paths) and a restmapper.NewDeferredDiscoveryRESTMapper map every
// resource kind to the right group/version/resource in an in-process
// test"), against the whole aggsim server with two aggregated backends:
//   - the demo wardle.example.com backend, registered as `aggsim serve
//     --demo` registers it (demo.Registration: groupPriorityMinimum 1000,
//     v1alpha1 versionPriority 15 above v1beta1's 10, so v1alpha1 is
//     preferred although kube-aware order puts v1beta1 first);
//   - zoo.example.com, one backend per version: v1 (versionPriority 5)
//     and v2beta1 (versionPriority 20, so preferred over GA v1), with
//     groupPriorityMinimum 1500, so the group sorts before wardle.

const cgZooGroup = "zoo.example.com"

// cgZooResources is what each zoo backend serves at
// /apis/zoo.example.com/<version>: animals in both versions, keepers only
// in v1 and cages only in v2beta1.
var cgZooResources = map[string]string{
	"v1": `[
		{"name":"animals","singularName":"animal","namespaced":true,"kind":"Animal","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["an"],"categories":["all"]},
		{"name":"animals/status","singularName":"","namespaced":true,"kind":"Animal","verbs":["get","patch","update"]},
		{"name":"keepers","singularName":"keeper","namespaced":false,"kind":"Keeper","verbs":["get","list"]}]`,
	"v2beta1": `[
		{"name":"animals","singularName":"animal","namespaced":true,"kind":"Animal","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["an"],"categories":["all"]},
		{"name":"animals/status","singularName":"","namespaced":true,"kind":"Animal","verbs":["get","patch","update"]},
		{"name":"cages","singularName":"cage","namespaced":true,"kind":"Cage","verbs":["get","list","watch"],"shortNames":["cg"]}]`,
}

// cgZooHandler serves the discovery document of one zoo version; anything
// else is 404.
func cgZooHandler(version string) http.Handler {
	gv := cgZooGroup + "/" + version
	body := `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"` + gv + `","resources":` + cgZooResources[version] + "}\n"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis/"+gv {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	})
}

// cgStartDemo starts the demo backend on a loopback port with a serving
// certificate for api.wardle.svc, trusting the Server's front-proxy CA,
// registers it with demo.Registration and waits until both APIServices
// are Available and listed in aggregated discovery.
func cgStartDemo(t *testing.T, srv *aggregatortest.Server) {
	t.Helper()
	bc, err := certs.IssueBackend(certs.BackendOptions{Service: demo.ServiceName, Namespace: demo.Namespace})
	if err != nil {
		t.Fatal(err)
	}
	serving, err := bc.Serving.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	frontProxyCA := srv.PKI().FrontProxyCAPool
	b, err := demo.NewBackend(demo.Options{
		GetCertificate:        demo.StaticCertificate(serving),
		RequestHeaderClientCA: func() *x509.CertPool { return frontProxyCA },
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), cgWait)
	defer cancel()
	api := srv.Aggregator().API()
	if err := demo.Apply(ctx, api, demo.Registration(int32(b.Addr().Port), bc.CA.CertPEM)); err != nil {
		t.Fatal(err)
	}
	if err := demo.WaitAvailable(ctx, api, demo.APIServiceNames(), cgWait, 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	cgPoll(t, "wardle.example.com in aggregated discovery", func() (bool, error) {
		versions, err := srv.AggregatedVersions(t.Context(), demo.Group)
		return slices.Equal(versions, []string{"v1alpha1 Current", "v1beta1 Current"}), err
	})
}

// cgDiscoverySetup starts a Server with the demo and zoo backends.
func cgDiscoverySetup(t *testing.T) *aggregatortest.Server {
	t.Helper()
	srv := aggregatortest.Start(t)
	cgStartDemo(t, srv)
	for _, v := range []struct {
		version string
		vp      int32
	}{{"v1", 5}, {"v2beta1", 20}} {
		srv.RegisterBackend(t, aggregatortest.BackendOptions{
			Handler:              srv.RequireFrontProxy(cgZooHandler(v.version)),
			Group:                cgZooGroup,
			Versions:             []string{v.version},
			GroupPriorityMinimum: 1500,
			VersionPriority:      v.vp,
			Service:              "zoo-" + v.version,
		})
	}
	return srv
}

// cgRoundTrips records, per path, the Accept header sent and the
// Content-Type received by a client-go client.
type cgRoundTrips struct {
	next http.RoundTripper

	mu    sync.Mutex // guards trips
	trips []string   // "<path> <accept> -> <code> <content-type>"
}

func (c *cgRoundTrips) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err == nil {
		c.mu.Lock()
		c.trips = append(c.trips, fmt.Sprintf("%s %s -> %d %s", r.URL.Path, r.Header.Get("Accept"), resp.StatusCode, resp.Header.Get("Content-Type")))
		c.mu.Unlock()
	}
	return resp, err
}

func (c *cgRoundTrips) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.trips
	c.trips = nil
	return out
}

// cgDiscoveryClient returns a discovery client for srv whose round trips
// are recorded.
func cgDiscoveryClient(t *testing.T, srv *aggregatortest.Server) (*discovery.DiscoveryClient, *cgRoundTrips) {
	t.Helper()
	cfg := cgRESTConfig(t, srv)
	rec := &cgRoundTrips{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec })
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dc, rec
}

// cgResource describes an APIResource in one line, leaving out what the
// two discovery paths legitimately fill differently (group and version of
// the kind, storageVersionHash, and a subresource's singularName, which
// client-go copies from the parent on the aggregated path).
func cgResource(r metav1.APIResource) string {
	scope := "cluster"
	if r.Namespaced {
		scope = "namespaced"
	}
	s := fmt.Sprintf("%s %s %s verbs=%s", r.Name, r.Kind, scope, strings.Join(r.Verbs, ","))
	if !strings.Contains(r.Name, "/") {
		s += " singular=" + r.SingularName
	}
	if len(r.ShortNames) > 0 {
		s += " short=" + strings.Join(r.ShortNames, ",")
	}
	if len(r.Categories) > 0 {
		s += " categories=" + strings.Join(r.Categories, ",")
	}
	return s
}

const (
	cgAllVerbs  = "verbs=create,delete,deletecollection,get,list,patch,update,watch"
	cgStatusVbs = "verbs=get,patch,update"
)

// cgWantResources is every group version's resources as aggsim and its
// backends serve them, in discovery order. v1's are what kube-apiserver
// 1.33.13 lists for these resources (curl /api/v1 and the aggregated /api,
// subresources finalize, proxy and status included).
var cgWantResources = map[string][]string{
	"v1": {
		"configmaps ConfigMap namespaced " + cgAllVerbs + " singular=configmap short=cm",
		"endpoints Endpoints namespaced " + cgAllVerbs + " singular=endpoints short=ep",
		"events Event namespaced " + cgAllVerbs + " singular=event short=ev",
		"limitranges LimitRange namespaced " + cgAllVerbs + " singular=limitrange short=limits",
		"namespaces Namespace cluster verbs=create,delete,get,list,patch,update,watch singular=namespace short=ns",
		"namespaces/finalize Namespace cluster verbs=update",
		"namespaces/status Namespace cluster " + cgStatusVbs,
		"resourcequotas ResourceQuota namespaced " + cgAllVerbs + " singular=resourcequota short=quota",
		"resourcequotas/status ResourceQuota namespaced " + cgStatusVbs,
		"serviceaccounts ServiceAccount namespaced " + cgAllVerbs + " singular=serviceaccount short=sa",
		"serviceaccounts/token TokenRequest namespaced verbs=create",
		"services Service namespaced " + cgAllVerbs + " singular=service short=svc categories=all",
		"services/proxy ServiceProxyOptions namespaced verbs=create,delete,get,patch,update",
		"services/status Service namespaced " + cgStatusVbs,
	},
	"apiregistration.k8s.io/v1": {
		"apiservices APIService cluster " + cgAllVerbs + " singular=apiservice categories=api-extensions",
		"apiservices/status APIService cluster " + cgStatusVbs,
	},
	"authentication.k8s.io/v1": {
		"selfsubjectreviews SelfSubjectReview cluster verbs=create singular=selfsubjectreview",
		"tokenreviews TokenReview cluster verbs=create singular=tokenreview",
	},
	"authorization.k8s.io/v1": {
		"localsubjectaccessreviews LocalSubjectAccessReview namespaced verbs=create singular=localsubjectaccessreview",
		"selfsubjectaccessreviews SelfSubjectAccessReview cluster verbs=create singular=selfsubjectaccessreview",
		"selfsubjectrulesreviews SelfSubjectRulesReview cluster verbs=create singular=selfsubjectrulesreview",
		"subjectaccessreviews SubjectAccessReview cluster verbs=create singular=subjectaccessreview",
	},
	"rbac.authorization.k8s.io/v1": {
		"clusterrolebindings ClusterRoleBinding cluster " + cgAllVerbs + " singular=clusterrolebinding",
		"clusterroles ClusterRole cluster " + cgAllVerbs + " singular=clusterrole",
		"rolebindings RoleBinding namespaced " + cgAllVerbs + " singular=rolebinding",
		"roles Role namespaced " + cgAllVerbs + " singular=role",
	},
	"admissionregistration.k8s.io/v1": {
		"mutatingwebhookconfigurations MutatingWebhookConfiguration cluster " + cgAllVerbs + " singular=mutatingwebhookconfiguration categories=api-extensions",
		"validatingadmissionpolicies ValidatingAdmissionPolicy cluster " + cgAllVerbs + " singular=validatingadmissionpolicy categories=api-extensions",
		"validatingadmissionpolicies/status ValidatingAdmissionPolicy cluster " + cgStatusVbs,
		"validatingadmissionpolicybindings ValidatingAdmissionPolicyBinding cluster " + cgAllVerbs + " singular=validatingadmissionpolicybinding categories=api-extensions",
		"validatingwebhookconfigurations ValidatingWebhookConfiguration cluster " + cgAllVerbs + " singular=validatingwebhookconfiguration categories=api-extensions",
	},
	"apiextensions.k8s.io/v1": {
		"customresourcedefinitions CustomResourceDefinition cluster " + cgAllVerbs + " singular=customresourcedefinition short=crd,crds categories=api-extensions",
		"customresourcedefinitions/status CustomResourceDefinition cluster " + cgStatusVbs,
	},
	"coordination.k8s.io/v1": {
		"leases Lease namespaced " + cgAllVerbs + " singular=lease",
	},
	"flowcontrol.apiserver.k8s.io/v1": {
		"flowschemas FlowSchema cluster " + cgAllVerbs + " singular=flowschema",
		"flowschemas/status FlowSchema cluster " + cgStatusVbs,
		"prioritylevelconfigurations PriorityLevelConfiguration cluster " + cgAllVerbs + " singular=prioritylevelconfiguration",
		"prioritylevelconfigurations/status PriorityLevelConfiguration cluster " + cgStatusVbs,
	},
	"zoo.example.com/v2beta1": {
		"animals Animal namespaced verbs=create,delete,get,list,patch,update,watch singular=animal short=an categories=all",
		"animals/status Animal namespaced " + cgStatusVbs,
		"cages Cage namespaced verbs=get,list,watch singular=cage short=cg",
	},
	"zoo.example.com/v1": {
		"animals Animal namespaced verbs=create,delete,get,list,patch,update,watch singular=animal short=an categories=all",
		"animals/status Animal namespaced " + cgStatusVbs,
		"keepers Keeper cluster verbs=get,list singular=keeper",
	},
	"wardle.example.com/v1alpha1": {
		"fischers Fischer cluster " + cgAllVerbs + " singular=fischer",
		"flunders Flunder namespaced " + cgAllVerbs + " singular=flunder short=fl categories=all",
		"flunders/status Flunder namespaced " + cgStatusVbs,
	},
	"wardle.example.com/v1beta1": {
		"flunders Flunder namespaced " + cgAllVerbs + " singular=flunder short=fl categories=all",
		"flunders/status Flunder namespaced " + cgStatusVbs,
	},
}

// cgWantGroups is the group order (the legacy core group first, then
// /apis by groupPriorityMinimum: aggsim's built-in groups at upstream's
// priorities, zoo at 1500, wardle at 1000), each with its versions in
// order, the preferred version first in the line.
var cgWantGroups = []string{
	"core: v1 (preferred v1)",
	"apiregistration.k8s.io: v1 (preferred v1)",
	"authentication.k8s.io: v1 (preferred v1)",
	"authorization.k8s.io: v1 (preferred v1)",
	"rbac.authorization.k8s.io: v1 (preferred v1)",
	"admissionregistration.k8s.io: v1 (preferred v1)",
	"apiextensions.k8s.io: v1 (preferred v1)",
	"coordination.k8s.io: v1 (preferred v1)",
	"flowcontrol.apiserver.k8s.io: v1 (preferred v1)",
	"zoo.example.com: v2beta1,v1 (preferred v2beta1)",
	"wardle.example.com: v1alpha1,v1beta1 (preferred v1alpha1)",
}

func cgGroups(groups []*metav1.APIGroup) []string {
	var out []string
	for _, g := range groups {
		name := g.Name
		if name == "" {
			name = "core"
		}
		var vs []string
		for _, v := range g.Versions {
			vs = append(vs, v.Version)
			if want := (schema.GroupVersion{Group: g.Name, Version: v.Version}).String(); v.GroupVersion != want {
				vs = append(vs, "(groupVersion "+v.GroupVersion+")")
			}
		}
		out = append(out, fmt.Sprintf("%s: %s (preferred %s)", name, strings.Join(vs, ","), g.PreferredVersion.Version))
	}
	return out
}

// cgResourceLists returns the group versions in order and each one's
// resources.
func cgResourceLists(lists []*metav1.APIResourceList) ([]string, map[string][]string) {
	var order []string
	out := map[string][]string{}
	for _, l := range lists {
		order = append(order, l.GroupVersion)
		var rs []string
		for _, r := range l.APIResources {
			rs = append(rs, cgResource(r))
		}
		out[l.GroupVersion] = rs
	}
	return order, out
}

// cgWantGVOrder is every group version served, in discovery order (groups
// as cgWantGroups, versions in each group by priority).
var cgWantGVOrder = []string{
	"v1", "apiregistration.k8s.io/v1", "authentication.k8s.io/v1", "authorization.k8s.io/v1",
	"rbac.authorization.k8s.io/v1", "admissionregistration.k8s.io/v1", "apiextensions.k8s.io/v1", "coordination.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1",
	"zoo.example.com/v2beta1", "zoo.example.com/v1", "wardle.example.com/v1alpha1", "wardle.example.com/v1beta1",
}

// TestClientGoDiscovery checks what client-go's discovery client sees on
// both paths: the aggregated one (its default; two requests, /api and
// /apis, answered as apidiscovery.k8s.io/v2 APIGroupDiscoveryList) and
// the legacy one (WithLegacy: APIVersions, APIGroupList, then one
// APIResourceList per group version). Both must give the same groups in
// kube-aggregator's order, the same preferred versions and the same
// resources (short names, scope, verbs, categories, subresources), and
// ServerPreferredResources must pick each resource from its group's
// preferred version (or the only version that has it).
func TestClientGoDiscovery(t *testing.T) {
	t.Parallel()
	srv := cgDiscoverySetup(t)
	dc, rec := cgDiscoveryClient(t, srv)

	for _, mode := range []string{"aggregated", "legacy"} {
		t.Run(mode, func(t *testing.T) {
			var d discovery.DiscoveryInterface = dc
			if mode == "legacy" {
				d = dc.WithLegacy()
			}
			rec.take()
			groups, lists, err := d.ServerGroupsAndResources()
			if err != nil {
				t.Fatalf("ServerGroupsAndResources: %v", err)
			}
			trips := rec.take()
			if got := cgGroups(groups); !slices.Equal(got, cgWantGroups) {
				t.Errorf("groups:\n got %q\nwant %q", got, cgWantGroups)
			}
			// client-go returns the resource lists in no stable order (it
			// goes through a map on both paths); the group order is above.
			order, got := cgResourceLists(lists)
			slices.Sort(order)
			wantOrder := slices.Sorted(slices.Values(cgWantGVOrder))
			if !slices.Equal(order, wantOrder) {
				t.Errorf("group versions with resources:\n got %q\nwant %q", order, wantOrder)
			}
			for _, gv := range cgWantGVOrder {
				if !slices.Equal(got[gv], cgWantResources[gv]) {
					t.Errorf("%s resources:\n got %q\nwant %q", gv, got[gv], cgWantResources[gv])
				}
			}

			// The path really taken: aggregated answers /api and /apis
			// with the v2 document; legacy asks for plain JSON and then
			// every group version.
			const v2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
			var want []string
			if mode == "aggregated" {
				for _, p := range []string{"/api", "/apis"} {
					want = append(want, p+" "+discovery.AcceptV2+","+discovery.AcceptV1+" -> 200 "+v2)
				}
			} else {
				for _, p := range []string{"/api", "/apis"} {
					want = append(want, p+" "+discovery.AcceptV1+" -> 200 application/json")
				}
				for _, gv := range wantOrder {
					p := "/apis/" + gv
					if gv == "v1" {
						p = "/api/v1"
					}
					want = append(want, p+" application/json, */* -> 200 application/json")
				}
			}
			slices.Sort(trips)
			slices.Sort(want)
			if !slices.Equal(trips, want) {
				t.Errorf("requests:\n got %q\nwant %q", trips, want)
			}

			preferred, err := discovery.ServerPreferredResources(d)
			if err != nil {
				t.Fatalf("ServerPreferredResources: %v", err)
			}
			var gotPreferred []string
			for _, l := range preferred {
				var names []string
				for _, r := range l.APIResources {
					names = append(names, r.Name)
				}
				slices.Sort(names) // client-go groups them through a map
				gotPreferred = append(gotPreferred, l.GroupVersion+": "+strings.Join(names, ","))
			}
			wantPreferred := []string{
				"v1: configmaps,endpoints,events,limitranges,namespaces,resourcequotas,serviceaccounts,services",
				"apiregistration.k8s.io/v1: apiservices",
				"authentication.k8s.io/v1: selfsubjectreviews,tokenreviews",
				"authorization.k8s.io/v1: localsubjectaccessreviews,selfsubjectaccessreviews,selfsubjectrulesreviews,subjectaccessreviews",
				"rbac.authorization.k8s.io/v1: clusterrolebindings,clusterroles,rolebindings,roles",
				"admissionregistration.k8s.io/v1: mutatingwebhookconfigurations,validatingadmissionpolicies,validatingadmissionpolicybindings,validatingwebhookconfigurations",
				"apiextensions.k8s.io/v1: customresourcedefinitions",
				"coordination.k8s.io/v1: leases",
				"flowcontrol.apiserver.k8s.io/v1: flowschemas,prioritylevelconfigurations",
				"zoo.example.com/v2beta1: animals,cages",
				"zoo.example.com/v1: keepers",
				"wardle.example.com/v1alpha1: fischers,flunders",
				"wardle.example.com/v1beta1: ",
			}
			if !slices.Equal(gotPreferred, wantPreferred) {
				t.Errorf("ServerPreferredResources:\n got %q\nwant %q", gotPreferred, wantPreferred)
			}
		})
	}
}

// cgMapping is what a RESTMapping resolves a kind to.
func cgMapping(m *meta.RESTMapping) string {
	return fmt.Sprintf("%s %s %s", m.GroupVersionKind, m.Resource, m.Scope.Name())
}

// TestClientGoRESTMapper checks that a DeferredDiscoveryRESTMapper over a
// memory-cached discovery client maps every kind aggsim and its backends
// serve to the right group/version/resource and scope (preferred version
// by default, another when asked), resolves short names through the
// shortcut expander, and, after an APIService is deleted and the mapper
// Reset, no longer knows a kind only that APIService served while the
// group's remaining versions take over; aggregated discovery drops the
// version.
func TestClientGoRESTMapper(t *testing.T) {
	t.Parallel()
	srv := cgDiscoverySetup(t)
	dc, _ := cgDiscoveryClient(t, srv)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	expander := restmapper.NewShortcutExpander(mapper, dc, func(w string) { t.Logf("shortcut expander: %s", w) })

	type kindCase struct {
		gk       schema.GroupKind
		versions []string
		want     string
	}
	kinds := []kindCase{
		{schema.GroupKind{Kind: "Namespace"}, nil, "/v1, Kind=Namespace /v1, Resource=namespaces root"},
		{schema.GroupKind{Kind: "Service"}, nil, "/v1, Kind=Service /v1, Resource=services namespace"},
		{schema.GroupKind{Kind: "Endpoints"}, nil, "/v1, Kind=Endpoints /v1, Resource=endpoints namespace"},
		{schema.GroupKind{Kind: "ConfigMap"}, nil, "/v1, Kind=ConfigMap /v1, Resource=configmaps namespace"},
		{schema.GroupKind{Group: "apiregistration.k8s.io", Kind: "APIService"}, nil, "apiregistration.k8s.io/v1, Kind=APIService apiregistration.k8s.io/v1, Resource=apiservices root"},
		{schema.GroupKind{Group: "authentication.k8s.io", Kind: "TokenReview"}, nil, "authentication.k8s.io/v1, Kind=TokenReview authentication.k8s.io/v1, Resource=tokenreviews root"},
		{schema.GroupKind{Group: "authentication.k8s.io", Kind: "SelfSubjectReview"}, nil, "authentication.k8s.io/v1, Kind=SelfSubjectReview authentication.k8s.io/v1, Resource=selfsubjectreviews root"},
		{schema.GroupKind{Group: "authorization.k8s.io", Kind: "SubjectAccessReview"}, nil, "authorization.k8s.io/v1, Kind=SubjectAccessReview authorization.k8s.io/v1, Resource=subjectaccessreviews root"},
		{schema.GroupKind{Group: "authorization.k8s.io", Kind: "LocalSubjectAccessReview"}, nil, "authorization.k8s.io/v1, Kind=LocalSubjectAccessReview authorization.k8s.io/v1, Resource=localsubjectaccessreviews namespace"},
		{schema.GroupKind{Group: "authorization.k8s.io", Kind: "SelfSubjectAccessReview"}, nil, "authorization.k8s.io/v1, Kind=SelfSubjectAccessReview authorization.k8s.io/v1, Resource=selfsubjectaccessreviews root"},
		{schema.GroupKind{Group: "authorization.k8s.io", Kind: "SelfSubjectRulesReview"}, nil, "authorization.k8s.io/v1, Kind=SelfSubjectRulesReview authorization.k8s.io/v1, Resource=selfsubjectrulesreviews root"},
		{schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}, nil, "admissionregistration.k8s.io/v1, Kind=MutatingWebhookConfiguration admissionregistration.k8s.io/v1, Resource=mutatingwebhookconfigurations root"},
		{schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}, nil, "admissionregistration.k8s.io/v1, Kind=ValidatingWebhookConfiguration admissionregistration.k8s.io/v1, Resource=validatingwebhookconfigurations root"},
		{schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}, nil, "admissionregistration.k8s.io/v1, Kind=ValidatingAdmissionPolicy admissionregistration.k8s.io/v1, Resource=validatingadmissionpolicies root"},
		{schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}, nil, "admissionregistration.k8s.io/v1, Kind=ValidatingAdmissionPolicyBinding admissionregistration.k8s.io/v1, Resource=validatingadmissionpolicybindings root"},
		{schema.GroupKind{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"}, nil, "flowcontrol.apiserver.k8s.io/v1, Kind=FlowSchema flowcontrol.apiserver.k8s.io/v1, Resource=flowschemas root"},
		{schema.GroupKind{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"}, nil, "flowcontrol.apiserver.k8s.io/v1, Kind=PriorityLevelConfiguration flowcontrol.apiserver.k8s.io/v1, Resource=prioritylevelconfigurations root"},
		// Preferred versions: versionPriority beats kube-aware order.
		{schema.GroupKind{Group: demo.Group, Kind: "Flunder"}, nil, "wardle.example.com/v1alpha1, Kind=Flunder wardle.example.com/v1alpha1, Resource=flunders namespace"},
		{schema.GroupKind{Group: demo.Group, Kind: "Flunder"}, []string{"v1beta1"}, "wardle.example.com/v1beta1, Kind=Flunder wardle.example.com/v1beta1, Resource=flunders namespace"},
		{schema.GroupKind{Group: demo.Group, Kind: "Fischer"}, nil, "wardle.example.com/v1alpha1, Kind=Fischer wardle.example.com/v1alpha1, Resource=fischers root"},
		{schema.GroupKind{Group: cgZooGroup, Kind: "Animal"}, nil, "zoo.example.com/v2beta1, Kind=Animal zoo.example.com/v2beta1, Resource=animals namespace"},
		{schema.GroupKind{Group: cgZooGroup, Kind: "Animal"}, []string{"v1"}, "zoo.example.com/v1, Kind=Animal zoo.example.com/v1, Resource=animals namespace"},
		{schema.GroupKind{Group: cgZooGroup, Kind: "Cage"}, nil, "zoo.example.com/v2beta1, Kind=Cage zoo.example.com/v2beta1, Resource=cages namespace"},
		{schema.GroupKind{Group: cgZooGroup, Kind: "Keeper"}, nil, "zoo.example.com/v1, Kind=Keeper zoo.example.com/v1, Resource=keepers root"},
	}
	for _, k := range kinds {
		m, err := mapper.RESTMapping(k.gk, k.versions...)
		if err != nil {
			t.Errorf("RESTMapping(%s, %q): %v", k.gk, k.versions, err)
			continue
		}
		if got := cgMapping(m); got != k.want {
			t.Errorf("RESTMapping(%s, %q) = %s; want %s", k.gk, k.versions, got, k.want)
		}
	}

	// KindFor from a (partial) resource, and ResourceFor from short names
	// and singular names through the shortcut expander.
	resources := []struct {
		in       schema.GroupVersionResource
		wantKind string
		wantGVR  string
	}{
		{schema.GroupVersionResource{Resource: "flunders"}, "wardle.example.com/v1alpha1, Kind=Flunder", "wardle.example.com/v1alpha1, Resource=flunders"},
		{schema.GroupVersionResource{Resource: "fl"}, "wardle.example.com/v1alpha1, Kind=Flunder", "wardle.example.com/v1alpha1, Resource=flunders"},
		{schema.GroupVersionResource{Resource: "flunder"}, "wardle.example.com/v1alpha1, Kind=Flunder", "wardle.example.com/v1alpha1, Resource=flunders"},
		{schema.GroupVersionResource{Group: demo.Group, Resource: "fl"}, "wardle.example.com/v1alpha1, Kind=Flunder", "wardle.example.com/v1alpha1, Resource=flunders"},
		// (client-go's shortcut expander drops the version of a short
		// name, so a version is asked for with the full name.)
		{schema.GroupVersionResource{Version: "v1beta1", Resource: "flunders"}, "wardle.example.com/v1beta1, Kind=Flunder", "wardle.example.com/v1beta1, Resource=flunders"},
		{schema.GroupVersionResource{Resource: "fischers"}, "wardle.example.com/v1alpha1, Kind=Fischer", "wardle.example.com/v1alpha1, Resource=fischers"},
		{schema.GroupVersionResource{Resource: "an"}, "zoo.example.com/v2beta1, Kind=Animal", "zoo.example.com/v2beta1, Resource=animals"},
		{schema.GroupVersionResource{Resource: "cg"}, "zoo.example.com/v2beta1, Kind=Cage", "zoo.example.com/v2beta1, Resource=cages"},
		{schema.GroupVersionResource{Resource: "keepers"}, "zoo.example.com/v1, Kind=Keeper", "zoo.example.com/v1, Resource=keepers"},
		{schema.GroupVersionResource{Resource: "svc"}, "/v1, Kind=Service", "/v1, Resource=services"},
		{schema.GroupVersionResource{Resource: "ep"}, "/v1, Kind=Endpoints", "/v1, Resource=endpoints"},
		{schema.GroupVersionResource{Resource: "cm"}, "/v1, Kind=ConfigMap", "/v1, Resource=configmaps"},
		{schema.GroupVersionResource{Resource: "ns"}, "/v1, Kind=Namespace", "/v1, Resource=namespaces"},
		{schema.GroupVersionResource{Resource: "apiservices"}, "apiregistration.k8s.io/v1, Kind=APIService", "apiregistration.k8s.io/v1, Resource=apiservices"},
		{schema.GroupVersionResource{Resource: "apiservice"}, "apiregistration.k8s.io/v1, Kind=APIService", "apiregistration.k8s.io/v1, Resource=apiservices"},
	}
	for _, r := range resources {
		gvk, err := expander.KindFor(r.in)
		if err != nil || gvk.String() != r.wantKind {
			t.Errorf("KindFor(%q) = %s, %v; want %s", r.in.String(), gvk, err, r.wantKind)
		}
		gvr, err := expander.ResourceFor(r.in)
		if err != nil || gvr.String() != r.wantGVR {
			t.Errorf("ResourceFor(%q) = %s, %v; want %s", r.in.String(), gvr, err, r.wantGVR)
		}
	}

	// Delete v1.zoo.example.com (the only version with keepers) and
	// v1alpha1.wardle.example.com (the preferred version, the only one
	// with fischers).
	apis := cgDynamic(t, srv).Resource(cgAPIServicesGVR)
	for _, name := range []string{"v1.zoo.example.com", "v1alpha1.wardle.example.com"} {
		if err := apis.Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cgPoll(t, "aggregated discovery drops the deleted versions", func() (bool, error) {
		zoo, err := srv.AggregatedVersions(t.Context(), cgZooGroup)
		if err != nil {
			return false, err
		}
		wardle, err := srv.AggregatedVersions(t.Context(), demo.Group)
		return slices.Equal(zoo, []string{"v2beta1 Current"}) && slices.Equal(wardle, []string{"v1beta1 Current"}), err
	})
	groups, _, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	wantGroups := slices.Clone(cgWantGroups)
	wantGroups[len(wantGroups)-2] = "zoo.example.com: v2beta1 (preferred v2beta1)"
	wantGroups[len(wantGroups)-1] = "wardle.example.com: v1beta1 (preferred v1beta1)"
	if got := cgGroups(groups); !slices.Equal(got, wantGroups) {
		t.Errorf("groups after delete:\n got %q\nwant %q", got, wantGroups)
	}

	// Until Reset the mapper answers from its cache.
	if m, err := mapper.RESTMapping(schema.GroupKind{Group: cgZooGroup, Kind: "Keeper"}); err != nil || cgMapping(m) != kinds[len(kinds)-1].want {
		t.Errorf("cached RESTMapping(Keeper) = %v, %v", m, err)
	}
	mapper.Reset()
	for _, gk := range []schema.GroupKind{{Group: cgZooGroup, Kind: "Keeper"}, {Group: demo.Group, Kind: "Fischer"}} {
		m, err := mapper.RESTMapping(gk)
		if !meta.IsNoMatchError(err) {
			t.Errorf("RESTMapping(%s) after delete = %v, %v; want a no-match error", gk, m, err)
		}
	}
	for _, r := range []string{"keepers", "fischers"} {
		gvk, err := mapper.KindFor(schema.GroupVersionResource{Resource: r})
		if !meta.IsNoMatchError(err) {
			t.Errorf("KindFor(%s) after delete = %s, %v; want a no-match error", r, gvk, err)
		}
	}
	after := []kindCase{
		{schema.GroupKind{Group: demo.Group, Kind: "Flunder"}, nil, "wardle.example.com/v1beta1, Kind=Flunder wardle.example.com/v1beta1, Resource=flunders namespace"},
		{schema.GroupKind{Group: cgZooGroup, Kind: "Animal"}, nil, "zoo.example.com/v2beta1, Kind=Animal zoo.example.com/v2beta1, Resource=animals namespace"},
		{schema.GroupKind{Group: cgZooGroup, Kind: "Cage"}, nil, "zoo.example.com/v2beta1, Kind=Cage zoo.example.com/v2beta1, Resource=cages namespace"},
	}
	for _, k := range after {
		m, err := mapper.RESTMapping(k.gk, k.versions...)
		if err != nil || cgMapping(m) != k.want {
			t.Errorf("RESTMapping(%s) after delete = %v, %v; want %s", k.gk, m, err, k.want)
		}
	}
	if _, err := mapper.RESTMapping(schema.GroupKind{Group: cgZooGroup, Kind: "Animal"}, "v1"); !meta.IsNoMatchError(err) {
		t.Errorf("RESTMapping(Animal, v1) after delete: %v; want a no-match error", err)
	}
}

var _ http.RoundTripper = (*cgRoundTrips)(nil)
