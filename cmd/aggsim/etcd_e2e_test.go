package main

// The etcd end-to-end test (issue 17, `make e2e-etcd`): one real etcd and
// three `aggsim serve --storage=etcd` replicas on loopback, driven through
// client-go. It needs the etcd binary (Debian's etcd-server), so it only
// runs with AGGSIM_E2E_ETCD=1; the make target installs etcd when missing.

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/aggsim/aggsim/internal/etcdtest"
)

// etcdReplica is one aggsim replica and its clients.
type etcdReplica struct {
	name string
	srv  *servedAggsim
	cs   *kubernetes.Clientset
	dyn  *dynamic.DynamicClient
	cfg  *rest.Config
}

// startEtcdReplica starts a replica on etcdURL sharing dataDir (so the
// replicas share one PKI: the first creates it, the others reuse it).
func startEtcdReplica(t *testing.T, name, dataDir, etcdURL string) *etcdReplica {
	t.Helper()
	s := startServe(t, dataDir, "--storage", "etcd", "--etcd-servers", etcdURL,
		"--etcd-compaction-interval", "1s", "--availability-check-interval", "1s")
	cfg, err := clientcmd.BuildConfigFromFlags(s.URL, s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 1000, 1000
	cfg.Timeout = 10 * time.Second
	return &etcdReplica{name: name, srv: s, cs: kubernetes.NewForConfigOrDie(cfg), dyn: dynamic.NewForConfigOrDie(cfg), cfg: cfg}
}

func cmObj(name string, data string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": data}}
}

// TestEtcdReplicasE2E runs the scenarios of issue 17 in order on one etcd
// and three replicas A, B and C.
func TestEtcdReplicasE2E(t *testing.T) {
	if os.Getenv("AGGSIM_E2E_ETCD") != "1" {
		t.Skip("set AGGSIM_E2E_ETCD=1 (or run `make e2e-etcd`) to run three aggsim replicas on a real etcd")
	}
	etcd := etcdtest.Start(t)
	dataDir := t.TempDir()
	a := startEtcdReplica(t, "A", dataDir, etcd.URL())
	b := startEtcdReplica(t, "B", dataDir, etcd.URL())
	c := startEtcdReplica(t, "C", dataDir, etcd.URL())
	replicas := []*etcdReplica{a, b, c}
	ctx := t.Context()
	const ns = "default"

	t.Run("WritesSpreadReadsEverywhere", func(t *testing.T) {
		for i := 0; i < 30; i++ {
			w := replicas[i%3]
			out, err := w.cs.CoreV1().ConfigMaps(ns).Create(ctx, cmObj(fmt.Sprintf("spread-%02d", i), w.name), metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create on %s: %v", w.name, err)
			}
			for _, r := range replicas {
				got, err := r.cs.CoreV1().ConfigMaps(ns).Get(ctx, out.Name, metav1.GetOptions{})
				if err != nil || got.ResourceVersion != out.ResourceVersion || got.UID != out.UID {
					t.Fatalf("read of %s on %s right after the write on %s: %v rv %q, want rv %s", out.Name, r.name, w.name, err, got.ResourceVersion, out.ResourceVersion)
				}
			}
		}
		// One list, the same on every replica at the same resourceVersion.
		first, err := a.cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range replicas[1:] {
			l, err := r.cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{ResourceVersion: first.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
			if err != nil || len(l.Items) != len(first.Items) || l.ResourceVersion != first.ResourceVersion {
				t.Fatalf("exact list on %s: %v, %d items @%s; want %d @%s", r.name, err, len(l.Items), l.ResourceVersion, len(first.Items), first.ResourceVersion)
			}
		}
	})

	t.Run("WatchOnBSeesWritesOnAInOrder", func(t *testing.T) {
		cm, err := a.cs.CoreV1().ConfigMaps(ns).Create(ctx, cmObj("watched", "0"), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := b.cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: cm.ResourceVersion, FieldSelector: "metadata.name=watched"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		var want []string
		for i := 1; i <= 20; i++ {
			cm.Data["v"] = strconv.Itoa(i)
			if cm, err = a.cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			want = append(want, cm.ResourceVersion+"="+strconv.Itoa(i))
		}
		var got []string
		timeout := time.After(20 * time.Second)
		for len(got) < len(want) {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					t.Fatalf("watch on B closed after %v", got)
				}
				o := ev.Object.(*corev1.ConfigMap)
				got = append(got, o.ResourceVersion+"="+o.Data["v"])
			case <-timeout:
				t.Fatalf("watch on B: %v, want %v", got, want)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("watch on B: %v, want %v", got, want)
		}
	})

	t.Run("APIServiceOnAProxiedThroughC", func(t *testing.T) {
		backend := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch r.URL.Path {
			case "/apis/e2e.example.com/v1":
				fmt.Fprint(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"e2e.example.com/v1","resources":[{"name":"things","singularName":"thing","namespaced":false,"kind":"Thing","verbs":["get","list"]}]}`)
			case "/apis/e2e.example.com/v1/things":
				fmt.Fprintf(w, `{"kind":"ThingList","apiVersion":"e2e.example.com/v1","metadata":{},"items":[],"user":%q}`, r.Header.Get("X-Remote-User"))
			default:
				http.NotFound(w, r)
			}
		}))
		defer backend.Close()
		_, portStr, _ := net.SplitHostPort(backend.Listener.Addr().String())
		port, _ := strconv.Atoi(portStr)
		if _, err := a.cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e"},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromInt32(int32(port))}}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := a.cs.CoreV1().Endpoints(ns).Create(ctx, &corev1.Endpoints{ //nolint:staticcheck // aggsim resolves Endpoints
			ObjectMeta: metav1.ObjectMeta{Name: "e2e"},
			Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "127.0.0.1"}},
				Ports: []corev1.EndpointPort{{Name: "https", Port: int32(port)}}}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		apisvc := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
			"metadata": map[string]any{"name": "v1.e2e.example.com"},
			"spec": map[string]any{"group": "e2e.example.com", "version": "v1", "groupPriorityMinimum": int64(1000),
				"versionPriority": int64(15), "insecureSkipTLSVerify": true,
				"service": map[string]any{"namespace": ns, "name": "e2e", "port": int64(443)}},
		}}
		gvr := schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
		start := time.Now()
		if _, err := a.dyn.Resource(gvr).Create(ctx, apisvc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		var body []byte
		deadline := time.Now().Add(20 * time.Second)
		for {
			var err error
			body, err = c.cs.RESTClient().Get().AbsPath("/apis/e2e.example.com/v1/things").DoRaw(ctx)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET things through C: %v %s", err, body)
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Logf("APIService created on A answered through C after %v (includes the first availability probe)", time.Since(start).Round(time.Millisecond))
		var list struct {
			User string `json:"user"`
		}
		if err := json.Unmarshal(body, &list); err != nil || list.User == "" {
			t.Fatalf("backend answer %s: the proxy must set X-Remote-User", body)
		}
		// Three availability controllers (one per replica, probing every
		// second) agree: the status is written once, not flapping.
		as, err := c.dyn.Resource(gvr).Get(ctx, "v1.e2e.example.com", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Second)
		again, err := a.dyn.Resource(gvr).Get(ctx, "v1.e2e.example.com", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if as.GetResourceVersion() != again.GetResourceVersion() {
			t.Fatalf("APIService rewritten by the availability controllers: resourceVersion %s, 3 s later %s", as.GetResourceVersion(), again.GetResourceVersion())
		}
		groups, err := b.cs.Discovery().ServerGroups()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, g := range groups.Groups {
			found = found || g.Name == "e2e.example.com"
		}
		if !found {
			t.Fatal("e2e.example.com not in B's discovery")
		}
	})

	t.Run("SIGKILLDuringWrites", func(t *testing.T) {
		type ack struct{ name, rv string }
		var (
			mu    sync.Mutex
			acked []ack
			wg    sync.WaitGroup
		)
		stop := make(chan struct{})
		errs := make(chan error, 3)
		for wi, w := range replicas {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 400; i++ {
					select {
					case <-stop:
						return
					default:
					}
					name := fmt.Sprintf("kill-%s-%03d", strings.ToLower(w.name), i)
					out, err := w.cs.CoreV1().ConfigMaps(ns).Create(ctx, cmObj(name, "x"), metav1.CreateOptions{})
					if err != nil {
						if wi == 2 { // C is killed: its errors are expected from then on
							return
						}
						errs <- fmt.Errorf("write on %s (not killed): %w", w.name, err)
						return
					}
					mu.Lock()
					acked = append(acked, ack{out.Name, out.ResourceVersion})
					mu.Unlock()
				}
			}()
		}
		time.Sleep(300 * time.Millisecond)
		c.srv.kill()
		time.Sleep(300 * time.Millisecond)
		close(stop)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		for _, r := range replicas[:2] {
			for _, k := range acked {
				got, err := r.cs.CoreV1().ConfigMaps(ns).Get(ctx, k.name, metav1.GetOptions{})
				if err != nil || got.ResourceVersion != k.rv {
					t.Fatalf("acknowledged %s@%s on %s: %v %q", k.name, k.rv, r.name, err, got.ResourceVersion)
				}
			}
		}
		perReplica := map[string]int{}
		for _, k := range acked {
			perReplica[k.name[len("kill-"):len("kill-")+1]]++
		}
		if perReplica["a"] == 0 || perReplica["b"] == 0 || perReplica["c"] == 0 {
			t.Fatalf("acknowledged writes per replica %v: every replica must have written", perReplica)
		}
		t.Logf("%d acknowledged writes (%v), all readable on A and B after C was killed", len(acked), perReplica)
		replicas = replicas[:2]
	})

	t.Run("EtcdRestart", func(t *testing.T) {
		etcd.Restart()
		for _, r := range replicas {
			deadline := time.Now().Add(30 * time.Second)
			for i := 0; ; i++ {
				_, err := r.cs.CoreV1().ConfigMaps(ns).Create(ctx, cmObj(fmt.Sprintf("after-restart-%s-%d", strings.ToLower(r.name), i), "x"), metav1.CreateOptions{})
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s did not recover within 30 s of the etcd restart: %v", r.name, err)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		// The replicas' watches resumed: a write on A reaches a new watch on B.
		cm, err := a.cs.CoreV1().ConfigMaps(ns).Create(ctx, cmObj("after-restart-watch", "0"), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := b.cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: cm.ResourceVersion, FieldSelector: "metadata.name=after-restart-watch"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		cm.Data["v"] = "1"
		upd, err := a.cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-w.ResultChan():
			if o, ok := ev.Object.(*corev1.ConfigMap); !ok || o.ResourceVersion != upd.ResourceVersion {
				t.Fatalf("event %v %v, want MODIFIED @%s", ev.Type, ev.Object, upd.ResourceVersion)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("no event on B after the etcd restart")
		}
	})

	t.Run("CompactionGives410ThenRelist", func(t *testing.T) {
		old, err := a.cs.CoreV1().ConfigMaps(ns).Create(ctx, cmObj("compacted", "0"), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		oldRV := old.ResourceVersion
		// Every write moves the revision past oldRV; with
		// --etcd-compaction-interval 1s the revision of one round is
		// compacted the next.
		deadline := time.Now().Add(30 * time.Second)
		var expired *metav1.Status
		for expired == nil {
			if _, err := a.cs.CoreV1().ConfigMaps(ns).Create(ctx, cmObj(fmt.Sprintf("compact-%d", time.Now().UnixNano()), "x"), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			w, err := b.cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: oldRV})
			if err != nil {
				t.Fatal(err)
			}
			select {
			case ev := <-w.ResultChan():
				if ev.Type == watch.Error {
					if st, ok := ev.Object.(*metav1.Status); ok {
						expired = st
					}
				}
			case <-time.After(300 * time.Millisecond):
			}
			w.Stop()
			if time.Now().After(deadline) {
				t.Fatal("no 410 for a watch from an old resourceVersion within 30 s")
			}
		}
		if expired.Code != http.StatusGone || expired.Reason != metav1.StatusReasonExpired {
			t.Fatalf("watch from %s: %+v, want 410 Expired", oldRV, expired)
		}
		t.Logf("watch from %s: %d %s %q", oldRV, expired.Code, expired.Reason, expired.Message)
		_, err = b.cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{ResourceVersion: oldRV, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		if !apierrors.IsResourceExpired(err) {
			t.Fatalf("exact list at %s: %v, want 410 Expired", oldRV, err)
		}
		// Relist, then watch from the list's resourceVersion.
		l, err := b.cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := b.cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: l.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		created, err := a.cs.CoreV1().ConfigMaps(ns).Create(ctx, cmObj("after-relist", "x"), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		timeout := time.After(20 * time.Second)
		for {
			select {
			case ev := <-w.ResultChan():
				if o, ok := ev.Object.(*corev1.ConfigMap); ok && o.Name == created.Name && ev.Type == watch.Added {
					return
				}
				if ev.Type == watch.Error {
					t.Fatalf("watch after relist: %v", ev.Object)
				}
			case <-timeout:
				t.Fatal("no event after relist")
			}
		}
	})

	t.Run("LeaseHolder", func(t *testing.T) {
		l, err := a.cs.CoordinationV1().Leases("kube-system").Get(ctx, "kube-controller-manager", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" || l.Spec.LeaseDurationSeconds == nil || *l.Spec.LeaseDurationSeconds != 15 {
			t.Fatalf("lease %+v", l.Spec)
		}
	})
}
