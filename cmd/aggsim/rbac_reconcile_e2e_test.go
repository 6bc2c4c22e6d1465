package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAuthReconcileKubectlE2E runs `kubectl auth reconcile` (create,
// no-op, a narrower rule kept, --remove-extra-permissions, client dry run,
// the refused server dry run) with kubectl 1.27, 1.33 and the default
// against `aggsim serve --authorization-mode=RBAC`, and compares the
// transcript byte for byte with what kubectl 1.27 and 1.33 printed against
// kube-apiserver 1.33.13 (the same for both; testdata/rbac-reconcile/
// reference.txt, produced by these commands with the namespace and the
// file names replaced by NS and FILE).
func TestAuthReconcileKubectlE2E(t *testing.T) {
	srv := startServe(t, t.TempDir(), "--storage", "memory", "--authorization-mode", "RBAC")
	want, err := os.ReadFile("testdata/rbac-reconcile/reference.txt")
	if err != nil {
		t.Fatal(err)
	}
	for name, bin := range kubectlBinaries(t) {
		t.Run(name, func(t *testing.T) {
			ns := "rec-" + strings.NewReplacer(".", "-", "_", "-").Replace(strings.ToLower(name))
			dir := t.TempDir()
			for i, f := range []string{"rbac.yaml", "rbac2.yaml"} {
				b, err := os.ReadFile(filepath.Join("testdata/rbac-reconcile", f))
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, "FILE"+strconv.Itoa(i+1)+".yaml")
				if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "NS", ns)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f1, f2 := filepath.Join(dir, "FILE1.yaml"), filepath.Join(dir, "FILE2.yaml")
			var b strings.Builder
			for _, args := range [][]string{
				{"create", "namespace", ns},
				{"auth", "reconcile", "-f", f1, "--dry-run=client"},
				{"auth", "reconcile", "-f", f1},
				{"auth", "reconcile", "-f", f1},
				{"auth", "reconcile", "-f", f2},
				{"get", "role", "flunder-reader", "-n", ns, "-o", "jsonpath={.rules}"},
				{"auth", "reconcile", "-f", f2, "--remove-extra-permissions"},
				{"get", "role", "flunder-reader", "-n", ns, "-o", "jsonpath={.rules}"},
				{"auth", "reconcile", "-f", f1, "--dry-run=server"},
				{"auth", "can-i", "list", "configmaps", "-n", ns, "--as=bob"},
			} {
				// stdout and stderr in one pipe, as the reference's 2>&1:
				// reconcile writes its details to stderr between lines
				// of stdout
				cmd := exec.Command(bin, args...)
				cmd.Env = append(os.Environ(), "KUBECONFIG="+srv.Kubeconfig, "HOME="+filepath.Dir(srv.Kubeconfig))
				out, err := cmd.CombinedOutput()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				b.WriteString("$ kubectl " + strings.Join(args, " ") + "\n" + string(out) + "[exit " + strconv.Itoa(code) + "]\n")
			}
			got := strings.NewReplacer(dir+"/", "", ns, "NS").Replace(b.String())
			if got != string(want) {
				t.Errorf("transcript:\n%s\nwant (kube-apiserver 1.33.13):\n%s", got, want)
			}
		})
	}
}
