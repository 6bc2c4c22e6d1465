package main

import (
	"os"
	"path/filepath"
	"testing"
)

// `aggsim serve` refuses bad --feature-gates and --runtime-config values
// with kube-apiserver 1.33.13's texts (`kube-apiserver --feature-gates=Nope=true`
// printed `"command failed" err="unrecognized feature gate: Nope"`), and
// the gate without its API, before it creates anything in --data-dir.
func TestServeFeatureFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--feature-gates=Nope=true"}, "unrecognized feature gate: Nope"},
		{[]string{"--feature-gates=MutatingAdmissionPolicy"}, "missing bool value for MutatingAdmissionPolicy"},
		{[]string{"--runtime-config=foo/v1=true"}, "unknown api groups foo"},
		{[]string{"--feature-gates=MutatingAdmissionPolicy=true"}, "feature gate MutatingAdmissionPolicy needs its API: add --runtime-config=admissionregistration.k8s.io/v1alpha1=true (kube-apiserver 1.33 never becomes ready without it)"},
	} {
		dir := filepath.Join(t.TempDir(), "data")
		_, err := runRoot(t, append([]string{"serve", "--storage", "memory", "--data-dir", dir, "--secure-port", "0"}, tc.args...)...)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v: got %v, want %q", tc.args, err, tc.want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%v: --data-dir created (%v)", tc.args, err)
		}
	}
}
