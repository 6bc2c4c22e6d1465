package registry

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

func errStrings(errs meta.FieldErrors) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func svc(name string, mutate func(*core.Service)) *core.Service {
	s := &core.Service{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "wardle"}, Spec: core.ServiceSpec{Ports: []core.ServicePort{{Port: 443, TargetPort: core.FromInt(8443)}}}}
	if mutate != nil {
		mutate(s)
	}
	st := ServiceStrategy{}
	st.PrepareForCreate(s)
	if st.Allocates(s, nil) {
		st.Allocate(s, nil, nil, false) // as the store does, with no other Service
	}
	return s
}

func TestValidateService(t *testing.T) {
	const dns1035 = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
	tests := []struct {
		name string
		obj  *core.Service
		want []string
	}{
		{"valid", svc("api", nil), nil},
		{"externalname localhost", svc("api", func(s *core.Service) {
			s.Spec = core.ServiceSpec{Type: core.ServiceTypeExternalName, ExternalName: "localhost"}
		}), nil},
		{"externalname ip", svc("api-ip", func(s *core.Service) {
			s.Spec = core.ServiceSpec{Type: core.ServiceTypeExternalName, ExternalName: "127.0.0.1"}
		}), nil},
		{"headless no ports", svc("h", func(s *core.Service) { s.Spec = core.ServiceSpec{ClusterIP: "None"} }), nil},
		{"bad name", svc("1api", nil), []string{`metadata.name: Invalid value: "1api": ` + dns1035}},
		{"no ports", svc("api", func(s *core.Service) { s.Spec.Ports = nil }), []string{"spec.ports: Required value"}},
		{"externalname missing", svc("api", func(s *core.Service) { s.Spec = core.ServiceSpec{Type: core.ServiceTypeExternalName} }), []string{"spec.externalName: Required value"}},
		{"port range", svc("api", func(s *core.Service) { s.Spec.Ports[0].Port = 70000 }), []string{"spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive"}},
		{"names required", svc("api", func(s *core.Service) {
			s.Spec.Ports = []core.ServicePort{{Name: "https", Port: 443}, {Port: 80}}
		}), []string{"spec.ports[1].name: Required value"}},
		{"duplicate names", svc("api", func(s *core.Service) {
			s.Spec.Ports = []core.ServicePort{{Name: "https", Port: 443}, {Name: "https", Port: 80}}
		}), []string{`spec.ports[1].name: Duplicate value: "https"`}},
		{"bad protocol", svc("api", func(s *core.Service) { s.Spec.Ports[0].Protocol = "HTTP" }), []string{`spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`}},
		{"bad type", svc("api", func(s *core.Service) { s.Spec.Type = "Magic" }), []string{`spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`}},
		{"nodePort on ClusterIP", svc("api", func(s *core.Service) { s.Spec.Ports[0].NodePort = 30001 }), []string{"spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"}},
		// kube-apiserver 1.33.13 (kubectl create -f - --validate=false with these specs):
		{"externalTrafficPolicy on ClusterIP", svc("api", func(s *core.Service) {
			s.Spec.ExternalTrafficPolicy, s.Spec.HealthCheckNodePort = "Local", 31000
		}), []string{`spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services`,
			"spec.healthCheckNodePort: Invalid value: 31000: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"}},
		{"traffic policy values", svc("api", func(s *core.Service) {
			bar := "Bar"
			s.Spec.Type, s.Spec.ExternalTrafficPolicy, s.Spec.InternalTrafficPolicy = core.ServiceTypeNodePort, "Foo", &bar
		}), []string{`spec.externalTrafficPolicy: Unsupported value: "Foo": supported values: "Cluster", "Local"`,
			`spec.internalTrafficPolicy: Unsupported value: "Bar": supported values: "Cluster", "Local"`}},
		{"named targetPort", svc("api", func(s *core.Service) { s.Spec.Ports[0].TargetPort = core.FromString("Bad_Port") }), []string{
			`spec.ports[0].targetPort: Invalid value: "Bad_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errStrings(core.ValidateService(tt.obj)); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestServiceDefaultsAndTable(t *testing.T) {
	s := svc("api", func(s *core.Service) { s.Spec.Selector = map[string]string{"b": "2", "a": "1"} })
	ip := s.Spec.ClusterIP
	if !strings.HasPrefix(ip, "10.") || !reflect.DeepEqual(s.Spec.ClusterIPs, []string{ip}) || s.Spec.Type != "ClusterIP" ||
		s.Spec.SessionAffinity != "None" || *s.Spec.InternalTrafficPolicy != "Cluster" || *s.Spec.IPFamilyPolicy != "SingleStack" ||
		!reflect.DeepEqual(s.Spec.IPFamilies, []string{"IPv4"}) || s.Spec.Ports[0].Protocol != "TCP" {
		t.Fatalf("defaults: %+v", s.Spec)
	}
	if again := svc("api", nil); again.Spec.ClusterIP != ip {
		t.Fatal("clusterIP not deterministic")
	}
	st := ServiceStrategy{Now: func() time.Time { return time.Unix(3600, 0) }}
	s.CreationTimestamp = meta.NewTime(time.Unix(0, 0))
	want := []any{"api", "ClusterIP", ip, "<none>", "443/TCP", "60m", "a=1,b=2"}
	if got := st.TableRow(s); !reflect.DeepEqual(got, want) {
		t.Fatalf("row %q, want %q", got, want)
	}
	ext := svc("api", func(s *core.Service) {
		s.Spec = core.ServiceSpec{Type: core.ServiceTypeExternalName, ExternalName: "localhost"}
	})
	if ext.Spec.ClusterIP != "" || ext.Spec.InternalTrafficPolicy != nil {
		t.Fatalf("externalName got cluster fields: %+v", ext.Spec)
	}
	if got := st.TableRow(ext); got[2] != "<none>" || got[3] != "localhost" || got[4] != "<none>" {
		t.Fatalf("externalName row %q", got)
	}
	np := svc("api", func(s *core.Service) { s.Spec.Type = core.ServiceTypeNodePort })
	if p := np.Spec.Ports[0].NodePort; p < 30000 || p > 32767 {
		t.Fatalf("nodePort %d", p)
	}
	// An update without clusterIP keeps the allocated one; a load-balancer
	// status is dropped from anything but a LoadBalancer (upstream's
	// dropTypeDependentFields).
	upd := &core.Service{ObjectMeta: s.ObjectMeta, Spec: core.ServiceSpec{Ports: []core.ServicePort{{Port: 8443}}}}
	s.Status.LoadBalancer.Ingress = []core.LoadBalancerIngress{{IP: "1.2.3.4"}}
	ServiceStrategy{}.PrepareForUpdate(upd, s)
	if upd.Spec.ClusterIP != ip || len(upd.Status.LoadBalancer.Ingress) != 0 {
		t.Fatalf("update: %+v", upd)
	}
	changed := deepCopyService(upd)
	changed.Spec.ClusterIP, changed.Spec.ClusterIPs = "10.96.0.99", []string{"10.96.0.99"}
	if got := errStrings(core.ValidateServiceUpdate(changed, upd)); len(got) != 1 || got[0] != `spec.clusterIPs[0]: Invalid value: []string{"10.96.0.99"}: may not change once set` {
		t.Fatalf("clusterIP change: %q", got)
	}
}

// deepCopyService copies a Service through JSON.
func deepCopyService(s *core.Service) *core.Service {
	b, _ := json.Marshal(s)
	var out core.Service
	_ = json.Unmarshal(b, &out)
	return &out
}

func TestIntOrString(t *testing.T) {
	for _, in := range []string{`8443`, `"https"`} {
		var v core.IntOrString
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatal(err)
		}
		if out, _ := json.Marshal(v); string(out) != in {
			t.Fatalf("%s round-trips to %s", in, out)
		}
	}
	var v core.IntOrString
	if err := json.Unmarshal([]byte(`true`), &v); err == nil {
		t.Fatal("bool accepted")
	}
}

func TestValidateEndpoints(t *testing.T) {
	ep := func(m func(*core.Endpoints)) *core.Endpoints {
		e := &core.Endpoints{ObjectMeta: meta.ObjectMeta{Name: "api", Namespace: "wardle"}, Subsets: []core.EndpointSubset{{
			Addresses: []core.EndpointAddress{{IP: "127.0.0.1"}}, Ports: []core.EndpointPort{{Name: "https", Port: 8443}},
		}}}
		if m != nil {
			m(e)
		}
		EndpointsStrategy{}.PrepareForCreate(e)
		return e
	}
	tests := []struct {
		name string
		obj  *core.Endpoints
		want []string
	}{
		{"loopback allowed", ep(nil), nil},
		{"ipv6 loopback allowed", ep(func(e *core.Endpoints) { e.Subsets[0].Addresses[0].IP = "::1" }), nil},
		// Reference (kube-apiserver 1.33.13): POST /api/v1/namespaces/default/endpoints with
		// testdata/manifests/invalid/endpoints-bad-ip.yaml answers these two causes.
		{"bad ip", ep(func(e *core.Endpoints) { e.Subsets[0].Addresses[0].IP = "localhost" }), []string{
			`subsets[0].addresses[0].ip: Invalid value: "localhost": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
			`subsets[0].addresses[0].ip: Invalid value: "localhost": must be a valid IP address`}},
		// Reference: addresses 0.0.0.0, 169.254.1.1, 224.0.0.1 and 010.1.1.1 (legacy leading zeros, accepted).
		{"special ips", ep(func(e *core.Endpoints) {
			e.Subsets[0].Addresses = []core.EndpointAddress{{IP: "0.0.0.0"}, {IP: "169.254.1.1"}, {IP: "224.0.0.1"}, {IP: "010.1.1.1"}}
		}), []string{
			`subsets[0].addresses[0].ip: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)`,
			`subsets[0].addresses[1].ip: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)`,
			`subsets[0].addresses[2].ip: Invalid value: "224.0.0.1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)`}},
		{"port range", ep(func(e *core.Endpoints) { e.Subsets[0].Ports[0].Port = 0 }), []string{"subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive"}},
		{"no addresses", ep(func(e *core.Endpoints) { e.Subsets[0].Addresses = nil }), []string{"subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`"}},
		{"no namespace", ep(func(e *core.Endpoints) { e.Namespace = "" }), []string{"metadata.namespace: Required value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errStrings(core.ValidateEndpoints(tt.obj)); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	e := ep(func(e *core.Endpoints) {
		e.Subsets[0].Addresses = []core.EndpointAddress{{IP: "127.0.0.1"}, {IP: "127.0.0.2"}, {IP: "::1"}, {IP: "127.0.0.4"}}
	})
	if e.Subsets[0].Ports[0].Protocol != "TCP" {
		t.Fatal("protocol not defaulted")
	}
	if got := (EndpointsStrategy{}).TableRow(e)[1]; got != "127.0.0.1:8443,127.0.0.2:8443,[::1]:8443 + 1 more..." {
		t.Fatalf("endpoints cell %q", got)
	}
	if got := (EndpointsStrategy{}).TableRow(&core.Endpoints{})[1]; got != "<none>" {
		t.Fatalf("empty endpoints cell %q", got)
	}
}

func TestConfigMapAndNamespace(t *testing.T) {
	cm := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "extension-apiserver-authentication", Namespace: "kube-system"},
		Data: map[string]string{"requestheader-allowed-names": `["front-proxy-client"]`, "bad key": "x", "dup": "1"}, BinaryData: map[string][]byte{"dup": {1}}}
	want := []string{
		`data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
		`data[dup]: Invalid value: "dup": duplicate of key present in binaryData`,
	}
	if got := errStrings(core.ValidateConfigMap(cm)); !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	yes := true
	old := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "c", Namespace: "d"}, Immutable: &yes, Data: map[string]string{"a": "1"}}
	upd := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "c", Namespace: "d"}, Data: map[string]string{"a": "2"}}
	want = []string{"immutable: Forbidden: field is immutable when `immutable` is set", "data: Forbidden: field is immutable when `immutable` is set"}
	if got := errStrings(core.ValidateConfigMapUpdate(upd, old)); !reflect.DeepEqual(got, want) {
		t.Fatalf("immutable: %q", got)
	}
	if got := (ConfigMapStrategy{}).TableRow(cm)[1]; got != int64(4) {
		t.Fatalf("DATA cell %v", got)
	}

	ns := &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "wardle"}}
	NamespaceStrategy{}.PrepareForCreate(ns)
	b, _ := json.Marshal(ns)
	if string(b) != `{"metadata":{"name":"wardle","creationTimestamp":null,"labels":{"kubernetes.io/metadata.name":"wardle"}},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}}` {
		t.Fatalf("namespace %s", b)
	}
	if got := errStrings(core.ValidateNamespace(&core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "a.b"}})); len(got) != 1 || got[0] != `metadata.name: Invalid value: "a.b": must not contain dots` {
		t.Fatalf("namespace name: %q", got)
	}
	if got := (NamespaceStrategy{}).TableRow(ns); got[1] != "Active" {
		t.Fatalf("namespace row %q", got)
	}
}

func FuzzValidateService(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"api","namespace":"wardle"},"spec":{"ports":[{"port":443,"targetPort":8443}]}}`))
	f.Add([]byte(`{"metadata":{"name":"api","namespace":"wardle"},"spec":{"type":"ExternalName","externalName":"localhost."}}`))
	f.Add([]byte(`{"metadata":{"name":"x"},"spec":{"type":"NodePort","clusterIP":"None","ports":[{"name":"a","port":1,"targetPort":"b"},{"port":2}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s core.Service
		if json.Unmarshal(data, &s) != nil {
			return
		}
		st := ServiceStrategy{}
		st.PrepareForCreate(&s)
		_ = st.Validate(&s)
		_ = st.TableRow(&s)
		n := deepCopyService(&s)
		st.PrepareForUpdate(n, &s)
		_ = st.ValidateUpdate(n, &s)
	})
}

func FuzzValidateEndpoints(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"api","namespace":"wardle"},"subsets":[{"addresses":[{"ip":"127.0.0.1"}],"ports":[{"port":8443}]}]}`))
	f.Add([]byte(`{"subsets":[{"notReadyAddresses":[{"ip":"fe80::1%eth0","nodeName":"N"}],"ports":[{"name":"a","port":0},{"port":1}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var e core.Endpoints
		if json.Unmarshal(data, &e) != nil {
			return
		}
		EndpointsStrategy{}.PrepareForCreate(&e)
		_ = core.ValidateEndpoints(&e)
		_ = EndpointsStrategy{}.TableRow(&e)
	})
}

func FuzzValidateConfigMap(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"c","namespace":"d"},"data":{"a":"b","..x":"y"},"binaryData":{"a":"AA=="}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c core.ConfigMap
		if json.Unmarshal(data, &c) != nil {
			return
		}
		_ = core.ValidateConfigMap(&c)
		_ = core.ValidateConfigMapUpdate(&c, &c)
	})
}
