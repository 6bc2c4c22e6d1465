package rest

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/storage"
)

// gcDir holds the reference transcript of delete-options.sh: kube-apiserver
// v1.33.13 without kube-controller-manager (so objects keep the orphan and
// foregroundDeletion finalizers), curl with the admin certificate.
const gcDir = "../../testdata/registry/gc"

var (
	reUID  = regexp.MustCompile(`"uid": "[^"]*"`)
	reRV   = regexp.MustCompile(`"resourceVersion": "[0-9]+"`)
	reTime = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z`)
)

// normaliseTranscript blanks what differs between runs: uids,
// resourceVersions and times.
func normaliseTranscript(s string) string {
	s = reUID.ReplaceAllString(s, `"uid": "U"`)
	s = reRV.ReplaceAllString(s, `"resourceVersion": "R"`)
	return reTime.ReplaceAllString(s, "T")
}

// Every propagationPolicy and orphanDependents combination, the conflicts
// and the unsupported value, the GC finalizers of an object (also on a
// second DELETE of an object already being deleted), dryRun, events (GC
// Unsupported), deletecollection (the objects as listed), namespaces
// (Orphan, Foreground on the second DELETE ignored, orphanDependents=false
// is foregroundDeletion with 202) and an APIService: aggsim answers the
// script's requests with kube-apiserver 1.33.13's bodies and codes, byte for
// byte after blanking uids, resourceVersions and times.
func TestDeleteOptionsAsReference(t *testing.T) {
	refBytes, err := os.ReadFile(gcDir + "/delete-options.ref.txt")
	if err != nil {
		t.Fatal(err)
	}
	ref := string(refBytes)
	ref = ref[strings.Index(ref, "### "):]

	st := storage.NewMemory()
	t.Cleanup(func() { st.Close() })
	now := func() time.Time { return time.Now() }
	a := NewAPI(st, []registry.Strategy{
		registry.NamespaceStrategy{Now: now}, registry.ConfigMapStrategy{Now: now},
		registry.EventStrategy{Now: now}, registry.APIServiceStrategy{Now: now},
	}, registry.StoreOptions{})
	t.Cleanup(a.Shutdown)

	var out strings.Builder
	curl := func(method, path, body string) string {
		ct := ""
		if body != "" {
			ct = "application/json"
		}
		w := do(t, a, method, path, ct, body, "User-Agent", "curl/8.5.0")
		return fmt.Sprintf("%s\n[%d]\n", strings.TrimSuffix(w.Body.String(), "\n"), w.Code)
	}
	const ns = "/api/v1/namespaces/gcp"
	curl("POST", "/api/v1/namespaces", `{"metadata":{"name":"gcp"}}`)
	mk := func(name, extra string) { curl("POST", ns+"/configmaps", `{"metadata":{"name":"`+name+`"`+extra+`}}`) }
	del := func(name, query, body string) {
		fmt.Fprintf(&out, "### DELETE %s %s body=%s\n", name, query, body)
		out.WriteString(curl("DELETE", ns+"/configmaps/"+name+"?"+query, body))
	}
	mk("a", "")
	del("a", "propagationPolicy=Orphan", "")
	mk("b", "")
	del("b", "propagationPolicy=Foreground", "")
	mk("c", "")
	del("c", "propagationPolicy=Background", "")
	mk("d", "")
	del("d", "orphanDependents=true", "")
	mk("e", "")
	del("e", "orphanDependents=false", "")
	mk("f", "")
	del("f", "orphanDependents=true&propagationPolicy=Orphan", "")
	mk("g", "")
	del("g", "", `{"orphanDependents":true,"propagationPolicy":"Foreground"}`)
	mk("h", "")
	del("h", "propagationPolicy=Bogus", "")
	mk("i", `,"finalizers":["orphan"]`)
	del("i", "", "")
	mk("j", `,"finalizers":["foregroundDeletion","x.io/y"]`)
	del("j", "", "")
	mk("k", `,"finalizers":["x.io/y"]`)
	del("k", "propagationPolicy=Orphan", "")
	del("k", "propagationPolicy=Foreground", "")
	del("k", "", "")
	del("k", "propagationPolicy=Background", "")
	mk("l", `,"finalizers":["orphan"]`)
	del("l", "propagationPolicy=Background", "")
	mk("m", "")
	del("m", "propagationPolicy=Orphan&dryRun=All", "")
	out.WriteString("### events\n")
	curl("POST", ns+"/events", `{"metadata":{"name":"ev"},"involvedObject":{"namespace":"gcp"}, "reason":"r"}`)
	out.WriteString(curl("DELETE", ns+"/events/ev?propagationPolicy=Orphan", ""))
	out.WriteString("### deletecollection\n")
	mk("n1", "")
	mk("n2", `,"labels":{"x":"y"}`)
	out.WriteString(curl("DELETE", ns+"/configmaps?propagationPolicy=Foreground&labelSelector=x", ""))
	out.WriteString("### ns\n")
	curl("POST", "/api/v1/namespaces", `{"metadata":{"name":"gcp2"}}`)
	out.WriteString(curl("DELETE", "/api/v1/namespaces/gcp2?propagationPolicy=Orphan", ""))
	out.WriteString(curl("DELETE", "/api/v1/namespaces/gcp2?propagationPolicy=Foreground", ""))
	curl("POST", "/api/v1/namespaces", `{"metadata":{"name":"gcp3"}}`)
	out.WriteString(curl("DELETE", "/api/v1/namespaces/gcp3?orphanDependents=false", ""))
	curl("POST", "/api/v1/namespaces", `{"metadata":{"name":"gcp4"}}`)
	out.WriteString(curl("DELETE", "/api/v1/namespaces/gcp4?propagationPolicy=Orphan&orphanDependents=true", ""))
	out.WriteString("### apiservice\n")
	curl("POST", "/apis/apiregistration.k8s.io/v1/apiservices", `{"metadata":{"name":"v1.x.example.com"},"spec":{"group":"x.example.com","version":"v1","groupPriorityMinimum":1,"versionPriority":1,"service":{"namespace":"gcp","name":"s"}}}`)
	got := out.String()
	gotN, refN := normaliseTranscript(got), normaliseTranscript(ref)
	// The APIService's status comes from a controller, not the store: compare
	// the DELETE's code and finalizers only.
	gi, ri := strings.Index(gotN, "### apiservice"), strings.Index(refN, "### apiservice")
	if gotN[:gi] != refN[:ri] {
		t.Errorf("transcript differs from the reference:\n%s", firstDiff(gotN[:gi], refN[:ri]))
	}
	ap := curl("DELETE", "/apis/apiregistration.k8s.io/v1/apiservices/v1.x.example.com?propagationPolicy=Foreground", "")
	for _, want := range []string{`"finalizers": [` + "\n" + `      "foregroundDeletion"` + "\n    ]", `"deletionGracePeriodSeconds": 0`, "[200]"} {
		if !strings.Contains(ap, want) || !strings.Contains(refN[ri:], want) {
			t.Errorf("APIService DELETE Foreground: want %q in both; aggsim:\n%s", want, ap)
		}
	}
}

// firstDiff shows the first differing line of a and b with some context.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			lo := max(0, i-8)
			return fmt.Sprintf("line %d:\naggsim:    %q\nreference: %q\ncontext (aggsim):\n%s", i+1, x, y, strings.Join(al[lo:min(len(al), i+1)], "\n"))
		}
	}
	return "(equal)"
}
