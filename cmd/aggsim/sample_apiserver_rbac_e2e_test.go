package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sampleRBACScenario is the RBAC scenario of issue 14 (item 9): aggsim
// runs with --authorization-mode=RBAC; sample-apiserver's own
// artifacts/example RBAC manifests (k8s.io/sample-apiserver v0.33.3,
// copied unchanged into testdata/sample-apiserver/artifacts-example) give
// its ServiceAccount wardle/apiserver what a real deployment gives it;
// the backend runs with a kubeconfig holding that ServiceAccount's token,
// written by `aggsim kubeconfig --service-account wardle/apiserver`, as it
// would run in a Pod. bob is then refused by the backend's
// SubjectAccessReview (which aggsim's RBAC answers) with upstream's
// message, and allowed once a RoleBinding grants him flunders.
func sampleRBACScenario(t *testing.T, tools sampleTools, etcdURL string) {
	e := newSampleEnv(t, tools, etcdURL, "--authorization-mode", "RBAC")
	e.startAggsim()
	e.register()
	var args []string
	for _, f := range []string{"ns.yaml", "sa.yaml", "auth-delegator.yaml", "auth-reader.yaml", "rbac.yaml", "rbac-bind.yaml"} {
		args = append(args, "-f", sampleTestdata(filepath.Join("artifacts-example", f)))
	}
	so, se, code := e.k.run("", append([]string{"apply"}, args...)...)
	// register applied the same Namespace already.
	const want = "namespace/wardle unchanged\nserviceaccount/apiserver created\n" +
		"clusterrolebinding.rbac.authorization.k8s.io/wardle:system:auth-delegator created\n" +
		"rolebinding.rbac.authorization.k8s.io/wardle-auth-reader created\n" +
		"clusterrole.rbac.authorization.k8s.io/aggregated-apiserver-clusterrole created\n" +
		"clusterrolebinding.rbac.authorization.k8s.io/sample-apiserver-clusterrolebinding created\n"
	if code != 0 || so != want {
		t.Fatalf("apply artifacts/example: exit %d\nstdout %q\nwant   %q\nstderr %s", code, so, want, se)
	}
	e.backendKubeconfig = filepath.Join(e.backendDir, "apiserver.kubeconfig")
	e.aggsimCLI("kubeconfig", "--kubeconfig", e.k.kubeconfig, "--service-account", "wardle/apiserver", "--duration", "2h", "--file", e.backendKubeconfig)
	e.startBackend()
	e.waitAvailable()
	if ok, last := e.backendReadyz(60 * time.Second); !ok {
		t.Fatalf("backend /readyz with its ServiceAccount's kubeconfig: %s", last)
	}
	e.step(0, "", "get", "flunders", "-o", "name")
	const denied = `flunders.wardle.example.com is forbidden: User "bob" cannot list resource "flunders" in API group "wardle.example.com" in the namespace "default"`
	// Through aggsim, its own RBAC refuses bob before the proxy.
	_, se, code = e.k.run("", "get", "flunders", "--as=bob", "--as-group=devs")
	if code != 1 || !strings.HasPrefix(withoutWarnings(se), "Error from server (Forbidden): "+denied) {
		t.Errorf("kubectl --as=bob: exit %d stderr %q, want %q", code, se, denied)
	}
	// At the backend (as the front proxy), its SubjectAccessReview to
	// aggsim refuses him with upstream's message.
	path := "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders"
	if code, body := e.asFrontProxy(path, "bob", "devs"); code != http.StatusForbidden || !strings.Contains(body, strings.ReplaceAll(denied, `"`, `\"`)) {
		t.Errorf("backend as bob: %d %s, want 403 with %s", code, body, denied)
	}
	e.step(0, "role.rbac.authorization.k8s.io/flunder-reader created\n", "create", "role", "flunder-reader", "-n", "default",
		"--verb=get,list,watch", "--resource=flunders.wardle.example.com")
	e.step(0, "rolebinding.rbac.authorization.k8s.io/bob-flunders created\n", "create", "rolebinding", "bob-flunders", "-n", "default",
		"--role=flunder-reader", "--user=bob")
	// The backend caches a denial for 10 s (its
	// --authorization-webhook-cache-unauthorized-ttl), so it may take
	// that long until the new binding shows.
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := e.asFrontProxy(path, "bob", "devs")
		if code == http.StatusOK && strings.Contains(body, `"kind":"FlunderList"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("backend as bob after the RoleBinding: %d %s", code, body)
		}
		time.Sleep(500 * time.Millisecond)
	}
	e.step(0, "", "get", "flunders", "--as=bob", "--as-group=devs")
	// The Role grants reading only.
	_, se, code = e.k.run("", "create", "-f", sampleTestdata("flunder.yaml"), "--as=bob", "--as-group=devs")
	if want := `flunders.wardle.example.com is forbidden: User "bob" cannot create resource "flunders" in API group "wardle.example.com" in the namespace "default"`; code == 0 || !strings.Contains(se, want) {
		t.Errorf("bob creates a flunder: exit %d %q, want a refusal containing %s", code, se, want)
	}
	if n, exits := e.backend.exitCount(); n != 0 {
		t.Errorf("the backend exited %d times: %q", n, exits)
	}
}
