package aggregatortest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// TestGarbageCollectorKubectlCascade runs `kubectl delete configmap owner
// --cascade=background|foreground|orphan` with kubectl 1.33 (and 1.27 when
// on PATH) against owner, dep-1 (blockOwnerDeletion) and dep-2 from the
// capture's manifest (5-deps.manifest.yaml): kubectl prints what it printed
// against kube-apiserver 1.33.13 with kube-controller-manager (5a, 5b,
// 5c), background and foreground leave no dependent, and orphan leaves both
// without ownerReferences, as `kubectl get -o yaml` showed upstream
// (5c-deps-after.yaml, compared after blanking times, uids and
// resourceVersions).
func TestGarbageCollectorKubectlCascade(t *testing.T) {
	kubectls := []string{"kubectl"}
	if _, err := exec.LookPath("kubectl.1.27"); err == nil {
		kubectls = append(kubectls, "kubectl.1.27")
	}
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl not on PATH")
	}
	manifest, err := os.ReadFile(filepath.Join("..", "testdata", "namespace", "5-deps.manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	srv := aggregatortest.Start(t)
	run := func(kubectl string, stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", srv.KubeconfigPath()}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "KUBECACHEDIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", kubectl, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	norm := regexp.MustCompile(`(creationTimestamp|resourceVersion|uid): .*`)
	for _, kubectl := range kubectls {
		run(kubectl, "", "create", "namespace", "gc")
		for _, c := range []struct {
			cascade, capture string
			wait             bool
		}{
			{"background", "5a-delete-owner-background.txt", true},
			{"foreground", "5b-delete-owner-foreground.txt", false},
			{"orphan", "5c-delete-owner-orphan.txt", true},
		} {
			run(kubectl, "", "create", "configmap", "owner", "-n", "gc", "--from-literal=k=v")
			uid := run(kubectl, "", "get", "configmap", "owner", "-n", "gc", "-o", "jsonpath={.metadata.uid}")
			run(kubectl, strings.ReplaceAll(string(manifest), "1610ee89-4def-4da7-8767-26c08075ac7b", uid), "create", "-f", "-")
			args := []string{"delete", "configmap", "owner", "-n", "gc", "--cascade=" + c.cascade}
			if !c.wait {
				args = append(args, "--wait=false")
			}
			if got, want := run(kubectl, "", args...), nsCapture(t, c.capture); got != want {
				t.Errorf("%s %s: printed %q, want %q", kubectl, strings.Join(args, " "), got, want)
			}
			if c.cascade == "orphan" {
				got := run(kubectl, "", "get", "configmap", "dep-1", "dep-2", "-n", "gc", "-o", "yaml")
				want := nsCapture(t, "5c-deps-after.yaml")
				if norm.ReplaceAllString(got, "$1: X") != norm.ReplaceAllString(want, "$1: X") {
					t.Errorf("%s: dependents after orphaning:\n%s\nwant\n%s", kubectl, got, want)
				}
				run(kubectl, "", "delete", "configmap", "dep-1", "dep-2", "-n", "gc")
				continue
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				left := run(kubectl, "", "get", "configmap", "owner", "dep-1", "dep-2", "-n", "gc", "--ignore-not-found", "-o", "name")
				if left == "" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s --cascade=%s: still there after 10 s:\n%s", kubectl, c.cascade, left)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		run(kubectl, "", "delete", "namespace", "gc")
		deadline := time.Now().Add(10 * time.Second)
		for run(kubectl, "", "get", "namespace", "gc", "--ignore-not-found", "-o", "name") != "" {
			if time.Now().After(deadline) {
				t.Fatal("namespace gc still there")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
