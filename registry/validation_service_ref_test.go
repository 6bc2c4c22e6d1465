package registry

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// TestServiceCreateValidationReference pins the causes kube-apiserver
// 1.33.13 answers (reference started by ../shared/reference/up.sh with
// --service-cluster-ip-range=10.96.0.0/16) for
//
//	curl -X POST -H 'Content-Type: application/json' $REF/api/v1/namespaces/default/services -d '{"apiVersion":"v1","kind":"Service","metadata":{"name":"x"},"spec":<spec>}'
//
// want nil means 201 Created.
func TestServiceCreateValidationReference(t *testing.T) {
	tests := []struct {
		name, spec string
		want       []string
	}{
		{"out of range", `{"clusterIP":"10.200.0.5","ports":[{"port":80}]}`, []string{
			`spec.clusterIPs: Invalid value: []string{"10.200.0.5"}: failed to allocate IP 10.200.0.5: the provided network does not match the current range`}},
		// The allocator answers before validation, so the bad protocol is not reported.
		{"out of range first", `{"clusterIP":"10.200.0.5","ports":[{"port":80,"protocol":"XX"}]}`, []string{
			`spec.clusterIPs: Invalid value: []string{"10.200.0.5"}: failed to allocate IP 10.200.0.5: the provided network does not match the current range`}},
		{"outside /16", `{"clusterIP":"10.97.0.5","ports":[{"port":80}]}`, []string{
			`spec.clusterIPs: Invalid value: []string{"10.97.0.5"}: failed to allocate IP 10.97.0.5: the provided network does not match the current range`}},
		{"network address", `{"clusterIP":"10.96.0.0","ports":[{"port":80}]}`, []string{
			`spec.clusterIPs: Invalid value: []string{"10.96.0.0"}: failed to allocate IP 10.96.0.0: the provided network does not match the current range`}},
		{"broadcast address", `{"clusterIP":"10.96.255.255","ports":[{"port":80}]}`, []string{
			`spec.clusterIPs: Invalid value: []string{"10.96.255.255"}: failed to allocate IP 10.96.255.255: the provided network does not match the current range`}},
		{"kubernetes service address", `{"clusterIP":"10.96.0.1","ports":[{"port":80}]}`, []string{
			`spec.clusterIPs: Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated`}},
		{"ipv6", `{"clusterIP":"fd00::1","ports":[{"port":80}]}`, []string{
			`spec.clusterIPs[0]: Invalid value: []string{"fd00::1"}: IPv6 is not configured on this cluster`}},
		{"bad ip", `{"clusterIP":"10.96.0.300","ports":[{"port":80}]}`, []string{
			`spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{"first must match", `{"clusterIP":"10.96.5.5","clusterIPs":["10.96.5.6"],"ports":[{"port":80}]}`, []string{
			"spec.clusterIPs: Invalid value: []string{\"10.96.5.6\"}: first value must match `clusterIP`"}},
		{"clusterIPs alone", `{"clusterIPs":["10.96.5.7"],"ports":[{"port":80}]}`, []string{
			"spec.clusterIPs: Invalid value: []string{\"10.96.5.7\"}: must be empty when `clusterIP` is not specified"}},
		{"related errors alone", `{"clusterIP":"10.96.300.1","clusterIPs":["10.96.5.7","x"],"ports":[{"port":80,"protocol":"XX"}]}`, []string{
			"spec.clusterIPs: Invalid value: []string{\"10.96.5.7\", \"x\"}: first value must match `clusterIP`",
			`spec.clusterIPs[1]: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{"none not alone", `{"clusterIP":"None","clusterIPs":["None","10.96.1.1"],"ports":[{"port":80}]}`, []string{
			`spec.clusterIPs: Invalid value: []string{"None", "10.96.1.1"}: 'None' must be the first and only value`}},
		{"family mismatch", `{"clusterIP":"10.96.5.8","ipFamilies":["IPv6"],"ports":[{"port":80}]}`, []string{
			"spec.clusterIPs[0]: Invalid value: \"10.96.5.8\": expected an IPv6 value as indicated by `ipFamilies[0]`"}},
		{"leading zeros accepted", `{"clusterIP":"010.96.5.8","ports":[{"port":80}]}`, nil},
		{"two of a family", `{"clusterIP":"10.96.5.9","clusterIPs":["10.96.5.9","10.96.5.10"],"ports":[{"port":80}]}`, []string{
			`spec.clusterIPs: Invalid value: []string{"10.96.5.9", "10.96.5.10"}: may specify no more than one IP for each IP family`}},
		{"unsupported family and policy", `{"ipFamilies":["IPv5"],"ipFamilyPolicy":"Foo","ports":[{"port":80}]}`, []string{
			`spec.ipFamilies[0]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"`,
			`spec.ipFamilyPolicy: Unsupported value: "Foo": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"`}},
		{"ipv6 family", `{"ipFamilies":["IPv6"],"ports":[{"port":80}]}`, []string{
			`spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster`}},
		{"require dual stack", `{"ipFamilyPolicy":"RequireDualStack","ports":[{"port":80}]}`, []string{
			`spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services`}},
		{"two families single stack", `{"ipFamilies":["IPv4","IPv6"],"ports":[{"port":80}]}`, []string{
			`spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified`}},
		{"headless selectorless", `{"clusterIP":"None","ports":[{"port":80}]}`, nil},
		{"external name with clusterIP", `{"type":"ExternalName","externalName":"a.b","clusterIP":"10.96.5.5"}`, []string{
			`spec.clusterIPs: Forbidden: may not be set for ExternalName services`}},
		{"duplicate ports", `{"ports":[{"name":"a","port":80},{"name":"b","port":80},{"name":"c","port":80}]}`, []string{
			`spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
			`spec.ports[2]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`}},
		{"duplicate name not port", `{"ports":[{"name":"a","port":80},{"name":"a","port":81},{"name":"c","port":80,"protocol":"UDP"}]}`, []string{
			`spec.ports[1].name: Duplicate value: "a"`}},
		{"special external ips", `{"externalIPs":["127.0.0.1","0.0.0.0","010.1.2.3"],"ports":[{"port":80}]}`, []string{
			`spec.externalIPs[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
			`spec.externalIPs[1]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)`}},
		{"bad selector", `{"selector":{"a b":"c"},"ports":[{"port":80}]}`, []string{
			`spec.selector: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &core.Service{ObjectMeta: meta.ObjectMeta{Name: "x", Namespace: "default"}}
			if err := json.Unmarshal([]byte(tt.spec), &s.Spec); err != nil {
				t.Fatal(err)
			}
			st := ServiceStrategy{}
			st.PrepareForCreate(s)
			var errs meta.FieldErrors
			if st.Allocates(s, nil) { // as the store: the allocator first, alone
				errs = st.Allocate(s, nil, nil, false)
			}
			if len(errs) == 0 {
				errs = st.Validate(s)
			}
			if got := errStrings(errs); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestServiceHeadlessFamiliesReference pins the families the reference
// gives headless Services without a selector on its single-stack cluster:
// `kubectl get svc -o json | jq -c .spec` after creating
// {"clusterIP":"None","ports":[{"port":80}]} and
// {"clusterIP":"None","ipFamilyPolicy":"PreferDualStack"}.
func TestServiceHeadlessFamiliesReference(t *testing.T) {
	for spec, want := range map[string]string{
		`{"clusterIP":"None","ports":[{"port":80}]}`:              `{"ports":[{"protocol":"TCP","port":80,"targetPort":80}],"clusterIP":"None","clusterIPs":["None"],"type":"ClusterIP","sessionAffinity":"None","ipFamilies":["IPv4","IPv6"],"ipFamilyPolicy":"RequireDualStack","internalTrafficPolicy":"Cluster"}`,
		`{"clusterIP":"None","ipFamilyPolicy":"PreferDualStack"}`: `{"clusterIP":"None","clusterIPs":["None"],"type":"ClusterIP","sessionAffinity":"None","ipFamilies":["IPv4","IPv6"],"ipFamilyPolicy":"PreferDualStack","internalTrafficPolicy":"Cluster"}`,
	} {
		s := &core.Service{ObjectMeta: meta.ObjectMeta{Name: "x", Namespace: "default"}}
		if err := json.Unmarshal([]byte(spec), &s.Spec); err != nil {
			t.Fatal(err)
		}
		ServiceStrategy{}.PrepareForCreate(s)
		if errs := (ServiceStrategy{}).Validate(s); len(errs) > 0 {
			t.Fatalf("%s: %v", spec, errStrings(errs))
		}
		b, _ := json.Marshal(s.Spec)
		if string(b) != want {
			t.Errorf("%s:\n got %s\nwant %s", spec, b, want)
		}
	}
}

// TestServiceStatusValidationReference pins the reference's answer to
// `kubectl get svc s1 -o json | jq '.status.loadBalancer={ingress:[{ip:"1.2.3.4"}]}'`
// PUT to /api/v1/namespaces/default/services/s1/status on a ClusterIP Service.
func TestServiceStatusValidationReference(t *testing.T) {
	old := &core.Service{ObjectMeta: meta.ObjectMeta{Name: "s1", Namespace: "default"}, Spec: core.ServiceSpec{Ports: []core.ServicePort{{Port: 80}}}}
	ServiceStrategy{}.PrepareForCreate(old)
	upd := *old
	upd.Status.LoadBalancer.Ingress = []core.LoadBalancerIngress{{IP: "1.2.3.4"}}
	ServiceStrategy{}.PrepareForStatusUpdate(&upd, old)
	want := []string{"status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'"}
	if got := errStrings(ServiceStrategy{}.ValidateStatusUpdate(&upd, old)); !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// TestServiceTypeTransitionsReference pins the spec the reference keeps
// through `kubectl create svc clusterip t1 --tcp=80:8080` and then
// `kubectl patch svc t1 --type=merge -p` with type NodePort, LoadBalancer,
// ExternalName (externalName a.example.com) and ClusterIP again
// (externalName null), each printed with
// `jq -c '.spec|del(.clusterIP,.clusterIPs)|.ports|=(if . then map(del(.nodePort)) else . end)'`.
func TestServiceTypeTransitionsReference(t *testing.T) {
	old := &core.Service{ObjectMeta: meta.ObjectMeta{Name: "t1", Namespace: "default"}}
	if err := json.Unmarshal([]byte(`{"ports":[{"name":"80-8080","port":80,"protocol":"TCP","targetPort":8080}],"selector":{"app":"t1"},"type":"ClusterIP"}`), &old.Spec); err != nil {
		t.Fatal(err)
	}
	ServiceStrategy{}.PrepareForCreate(old)
	steps := []struct{ patch, want string }{
		{`{"type":"NodePort"}`, `{"externalTrafficPolicy":"Cluster","internalTrafficPolicy":"Cluster","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","ports":[{"name":"80-8080","port":80,"protocol":"TCP","targetPort":8080}],"selector":{"app":"t1"},"sessionAffinity":"None","type":"NodePort"}`},
		{`{"type":"LoadBalancer"}`, `{"allocateLoadBalancerNodePorts":true,"externalTrafficPolicy":"Cluster","internalTrafficPolicy":"Cluster","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","ports":[{"name":"80-8080","port":80,"protocol":"TCP","targetPort":8080}],"selector":{"app":"t1"},"sessionAffinity":"None","type":"LoadBalancer"}`},
		{`{"type":"ExternalName","externalName":"a.example.com"}`, `{"externalName":"a.example.com","ports":[{"name":"80-8080","port":80,"protocol":"TCP","targetPort":8080}],"selector":{"app":"t1"},"sessionAffinity":"None","type":"ExternalName"}`},
		{`{"type":"ClusterIP","externalName":null}`, `{"internalTrafficPolicy":"Cluster","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","ports":[{"name":"80-8080","port":80,"protocol":"TCP","targetPort":8080}],"selector":{"app":"t1"},"sessionAffinity":"None","type":"ClusterIP"}`},
	}
	for _, st := range steps {
		// A merge patch of spec, as kubectl sends it.
		b, _ := json.Marshal(old.Spec)
		var spec map[string]any
		_ = json.Unmarshal(b, &spec)
		var p map[string]any
		_ = json.Unmarshal([]byte(st.patch), &p)
		for k, v := range p {
			if v == nil {
				delete(spec, k)
			} else {
				spec[k] = v
			}
		}
		b, _ = json.Marshal(spec)
		upd := &core.Service{ObjectMeta: old.ObjectMeta}
		if err := json.Unmarshal(b, &upd.Spec); err != nil {
			t.Fatal(err)
		}
		ServiceStrategy{}.PrepareForUpdate(upd, old)
		if errs := (ServiceStrategy{}).ValidateUpdate(upd, old); len(errs) > 0 {
			t.Fatalf("%s: %q", st.patch, errStrings(errs))
		}
		b, _ = json.Marshal(upd.Spec)
		var got map[string]any
		_ = json.Unmarshal(b, &got)
		delete(got, "clusterIP")
		delete(got, "clusterIPs")
		if ports, ok := got["ports"].([]any); ok {
			for _, p := range ports {
				delete(p.(map[string]any), "nodePort")
			}
		}
		gb, _ := json.Marshal(got)
		if string(gb) != st.want {
			t.Fatalf("%s:\n got %s\nwant %s", st.patch, gb, st.want)
		}
		old = upd
	}
}
