package rest

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Server-side apply merges Service ports by (port, protocol), the
// +listMapKey fields of spec.ports, not by the strategic-merge-patch key
// port alone: two ports 53, one TCP and one UDP, stay two elements when
// they are applied again. kube-apiserver 1.33.13 answered these three
// applies (kubectl apply --server-side -f a1.yaml; -f a2.yaml;
// --field-manager=other --force-conflicts -f b1.yaml; then kubectl get svc
// dns -o yaml --show-managed-fields) with the ports and managedFields
// asserted below; aggsim answered the second apply with 422
// `spec.ports[1].name: Duplicate value: "dns-udp"`, the UDP element having
// been merged into the TCP one.
func TestApplyMergesServicePortsByPortAndProtocol(t *testing.T) {
	a := coreAPI(t)
	const svc = "/api/v1/namespaces/default/services/dns"
	head := "apiVersion: v1\nkind: Service\nmetadata:\n  name: dns\n  namespace: default\nspec:\n  ports:\n"
	tcp := "  - name: dns-tcp\n    port: 53\n    protocol: TCP\n    targetPort: 5353\n"
	udp := func(target string) string {
		return "  - name: dns-udp\n    port: 53\n    protocol: UDP\n    targetPort: " + target + "\n"
	}
	steps := []struct{ query, body string }{
		{"fieldManager=kubectl", head + tcp + udp("5353")},
		{"fieldManager=kubectl", head + tcp + udp("5454")},
		{"fieldManager=other&force=true", head + udp("6000")},
	}
	var body []byte
	for i, s := range steps {
		w := do(t, a, "PATCH", svc+"?"+s.query, PatchApply, s.body)
		if w.Code != 200 && w.Code != 201 {
			t.Fatalf("apply %d: %d %s", i+1, w.Code, w.Body)
		}
		body = w.Body.Bytes()
	}
	var got struct {
		Spec struct {
			Ports []map[string]any `json:"ports"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	wantPorts := []map[string]any{
		{"name": "dns-tcp", "port": 53.0, "protocol": "TCP", "targetPort": 5353.0},
		{"name": "dns-udp", "port": 53.0, "protocol": "UDP", "targetPort": 6000.0},
	}
	if !reflect.DeepEqual(got.Spec.Ports, wantPorts) {
		t.Errorf("ports %v, want %v", got.Spec.Ports, wantPorts)
	}
	wantFields := []string{
		`kubectl Apply  {"f:spec":{"f:ports":{"k:{\"port\":53,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}},"k:{\"port\":53,\"protocol\":\"UDP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{}}}}}`,
		`other Apply  {"f:spec":{"f:ports":{"k:{\"port\":53,\"protocol\":\"UDP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}}}}`,
	}
	if f := fieldsOf(t, body); !reflect.DeepEqual(f, wantFields) {
		t.Errorf("managedFields\n%q\nwant\n%q", f, wantFields)
	}
}
