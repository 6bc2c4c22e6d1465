package rest

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// svcBody is the Service alloc.sh sends: name, the spec members before
// ports, one port 80.
func svcBody(name, spec string) string {
	return `{"apiVersion":"v1","kind":"Service","metadata":{"name":"` + name + `"},"spec":{` + spec + `"ports":[{"port":80}]}}`
}

// clusterIPsOf returns spec.clusterIPs of a Service response.
func clusterIPsOf(t *testing.T, body []byte) []string {
	t.Helper()
	var s struct {
		Spec struct {
			ClusterIPs []string `json:"clusterIPs"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(body, &s); err != nil {
		t.Fatal(err)
	}
	return s.Spec.ClusterIPs
}

// Cluster IPs are allocated as kube-apiserver 1.33.13's allocator answers
// (testdata/registry/services/alloc.sh and alloc2.sh run against the
// reference, answers in ref-alloc.out and ref-alloc2.out): a requested
// address another Service holds is 422 with one cause, also when written
// with leading zeros either way; a dry run does not look; the address is
// free again once its Service is deleted or becomes ExternalName.
// aggsim answered 201 to every one of these creates before (it checked
// only 10.96.0.1).
func TestServiceClusterIPAllocationReference(t *testing.T) {
	a := coreAPI(t)
	const svcs = "/api/v1/namespaces/default/services"
	taken := func(name, ip string) meta.Status {
		msg := "Invalid value: []string{\"" + ip + "\"}: failed to allocate IP " + ip + ": provided IP is already allocated"
		return meta.Status{
			TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Code: 422, Reason: "Invalid",
			Message: "Service \"" + name + "\" is invalid: spec.clusterIPs: " + msg,
			Details: &meta.StatusDetails{Name: name, Kind: "Service", Causes: []meta.StatusCause{{Reason: "FieldValueInvalid", Message: msg, Field: "spec.clusterIPs"}}},
		}
	}
	steps := []struct {
		name, method, path, ct, body string
		code                         int
		status                       *meta.Status
	}{
		{"create a", "POST", svcs, "application/json", svcBody("a", `"clusterIP":"10.96.0.10",`), 201, nil},
		{"b wants a's address", "POST", svcs, "application/json", svcBody("b", `"clusterIP":"10.96.0.10",`), 422, ptr(taken("b", "10.96.0.10"))},
		{"b wants the kubernetes Service's", "POST", svcs, "application/json", svcBody("b", `"clusterIP":"10.96.0.1",`), 422, ptr(taken("b", "10.96.0.1"))},
		{"dry run does not look", "POST", svcs + "?dryRun=All", "application/json", svcBody("b", `"clusterIP":"10.96.0.10",`), 201, nil},
		{"dry run of 10.96.0.1", "POST", svcs + "?dryRun=All", "application/json", svcBody("b", `"clusterIP":"10.96.0.1",`), 201, nil},
		{"delete a", "DELETE", svcs + "/a", "", "", 200, nil},
		{"free after delete", "POST", svcs, "application/json", svcBody("b", `"clusterIP":"10.96.0.10",`), 201, nil},
		{"b becomes ExternalName", "PUT", svcs + "/b", "application/json", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"b"},"spec":{"type":"ExternalName","externalName":"x.example.com","ports":[{"port":80}]}}`, 200, nil},
		{"free after ExternalName", "POST", svcs, "application/json", svcBody("c", `"clusterIP":"10.96.0.10",`), 201, nil},
		{"leading zeros", "POST", svcs, "application/json", svcBody("w", `"clusterIP":"010.96.5.8",`), 201, nil},
		{"held with leading zeros", "POST", svcs, "application/json", svcBody("y", `"clusterIP":"10.96.5.8",`), 422, ptr(taken("y", "10.96.5.8"))},
		{"asked with leading zeros", "POST", svcs, "application/json", svcBody("y2", `"clusterIP":"010.96.5.8",`), 422, ptr(taken("y2", "010.96.5.8"))},
		{"create ExternalName", "POST", svcs, "application/json", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"en"},"spec":{"type":"ExternalName","externalName":"x.example.com"}}`, 201, nil},
		{"ExternalName to a held address", "PUT", svcs + "/en", "application/json", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"en"},"spec":{"type":"ClusterIP","clusterIP":"010.96.5.8","ports":[{"port":80}]}}`, 422, ptr(taken("en", "010.96.5.8"))},
		{"ExternalName to a free address", "PUT", svcs + "/en", "application/json", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"en"},"spec":{"type":"ClusterIP","clusterIP":"010.96.7.7","ports":[{"port":80}]}}`, 200, nil},
	}
	for _, s := range steps {
		w := do(t, a, s.method, s.path, s.ct, s.body)
		if w.Code != s.code {
			t.Fatalf("%s: %d %s", s.name, w.Code, w.Body)
		}
		if s.status != nil {
			if got := statusOf(t, w); !reflect.DeepEqual(got, *s.status) {
				t.Errorf("%s:\n got %+v\nwant %+v", s.name, got, *s.status)
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }

// An automatically allocated address is never one another Service holds:
// "auto" gets, with nothing else stored, some address X; once a Service
// asked for X, a new "auto" gets another (before, the address was a hash
// of the name, and "auto" got X again).
func TestServiceAutomaticClusterIPAvoidsHeld(t *testing.T) {
	a := coreAPI(t)
	const svcs = "/api/v1/namespaces/default/services"
	w := do(t, a, "POST", svcs, "application/json", svcBody("auto", ""))
	if w.Code != 201 {
		t.Fatalf("auto: %d %s", w.Code, w.Body)
	}
	first := clusterIPsOf(t, w.Body.Bytes())
	if len(first) != 1 {
		t.Fatalf("auto: clusterIPs %q", first)
	}
	if w := do(t, a, "DELETE", svcs+"/auto", "", ""); w.Code != 200 {
		t.Fatalf("delete: %d %s", w.Code, w.Body)
	}
	if w := do(t, a, "POST", svcs, "application/json", svcBody("holder", `"clusterIP":"`+first[0]+`",`)); w.Code != 201 {
		t.Fatalf("holder: %d %s", w.Code, w.Body)
	}
	w = do(t, a, "POST", svcs, "application/json", svcBody("auto", ""))
	if w.Code != 201 {
		t.Fatalf("auto again: %d %s", w.Code, w.Body)
	}
	if again := clusterIPsOf(t, w.Body.Bytes()); len(again) != 1 || again[0] == first[0] {
		t.Errorf("auto again got %q, the holder has %q", again, first[0])
	}
}

// The warnings kube-apiserver 1.33.13 answered
// (testdata/registry/services/warn.sh, ref-warn.out, and alloc.sh's
// "warn" steps): one Warning header per non-standard or non-canonical
// address or CIDR, the deprecated annotation and the ignored fields, in
// this order; also on updates (a label patch of a Service whose
// clusterIP has a leading zero warns again), never on reads. aggsim sent
// none before.
func TestServiceWarningsReference(t *testing.T) {
	a := coreAPI(t)
	const svcs = "/api/v1/namespaces/default/services"
	q := func(s string) string { return `299 - "` + s + `"` }
	tests := []struct {
		name, method, path, ct, body string
		want                         []string
	}{
		{"leading zero", "POST", svcs, "application/json", svcBody("w", `"clusterIP":"010.96.5.8",`), []string{
			q(`spec.clusterIPs[0]: non-standard IP address \"010.96.5.8\" will be considered invalid in a future Kubernetes release: use \"10.96.5.8\"`)}},
		{"dry run", "POST", svcs + "?dryRun=All", "application/json", svcBody("w2", `"clusterIP":"010.96.5.9",`), []string{
			q(`spec.clusterIPs[0]: non-standard IP address \"010.96.5.9\" will be considered invalid in a future Kubernetes release: use \"10.96.5.9\"`)}},
		{"label patch", "PATCH", svcs + "/w", PatchMerge, `{"metadata":{"labels":{"x":"y"}}}`, []string{
			q(`spec.clusterIPs[0]: non-standard IP address \"010.96.5.8\" will be considered invalid in a future Kubernetes release: use \"10.96.5.8\"`)}},
		{"get", "GET", svcs + "/w", "", "", nil},
		{"refused", "POST", svcs, "application/json", svcBody("w3", `"clusterIPs":["010.096.5.10"],`), nil},
		{"everything", "POST", svcs + "?dryRun=All", "application/json", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"lb","annotations":{"service.kubernetes.io/topology-aware-hints":"auto"}},"spec":{"type":"LoadBalancer","clusterIP":"10.96.09.9","externalIPs":["010.1.2.3","::ffff:1.2.3.4","2001:DB8::1"],"loadBalancerIP":"01.2.3.4","loadBalancerSourceRanges":["010.0.0.0/8","10.0.0.1/8","::ffff:1.2.3.0/120","2001:DB8::/32"],"externalName":"a.example.com","ports":[{"port":80}]}}`, []string{
			q(`annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead`),
			q(`spec.clusterIPs[0]: non-standard IP address \"10.96.09.9\" will be considered invalid in a future Kubernetes release: use \"10.96.9.9\"`),
			q(`spec.externalIPs[0]: non-standard IP address \"010.1.2.3\" will be considered invalid in a future Kubernetes release: use \"10.1.2.3\"`),
			q(`spec.externalIPs[1]: non-standard IP address \"::ffff:1.2.3.4\" will be considered invalid in a future Kubernetes release: use \"1.2.3.4\"`),
			q(`spec.externalIPs[2]: IPv6 address \"2001:DB8::1\" should be in RFC 5952 canonical format (\"2001:db8::1\")`),
			q(`spec.loadBalancerIP: non-standard IP address \"01.2.3.4\" will be considered invalid in a future Kubernetes release: use \"1.2.3.4\"`),
			q(`spec.loadBalancerSourceRanges[0]: non-standard CIDR value \"010.0.0.0/8\" will be considered invalid in a future Kubernetes release: use \"10.0.0.0/8\"`),
			q(`spec.loadBalancerSourceRanges[1]: CIDR value \"10.0.0.1/8\" is ambiguous in this context (should be \"10.0.0.0/8\" or \"10.0.0.1/32\"?)`),
			q(`spec.loadBalancerSourceRanges[2]: non-standard CIDR value \"::ffff:1.2.3.0/120\" will be considered invalid in a future Kubernetes release: use \"1.2.3.0/24\"`),
			q(`spec.loadBalancerSourceRanges[3]: IPv6 CIDR value \"2001:DB8::/32\" should be in RFC 5952 canonical format (\"2001:db8::/32\")`),
			q(`spec.externalName is ignored when spec.type is not \"ExternalName\"`)}},
		{"ExternalName with externalIPs", "POST", svcs + "?dryRun=All", "application/json", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"en"},"spec":{"type":"ExternalName","externalName":"a.example.com","externalIPs":["1.2.3.4"]}}`, []string{
			q(`spec.externalIPs is ignored when spec.type is \"ExternalName\"`)}},
		{"IPv4-mapped clusterIP", "POST", svcs + "?dryRun=All", "application/json", svcBody("m", `"clusterIP":"::ffff:10.96.9.10",`), []string{
			q(`spec.clusterIPs[0]: non-standard IP address \"::ffff:10.96.9.10\" will be considered invalid in a future Kubernetes release: use \"10.96.9.10\"`)}},
	}
	for _, tt := range tests {
		w := do(t, a, tt.method, tt.path, tt.ct, tt.body)
		if got := w.Header().Values("Warning"); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s (%d):\n got %q\nwant %q", tt.name, w.Code, got, tt.want)
		}
	}
}
