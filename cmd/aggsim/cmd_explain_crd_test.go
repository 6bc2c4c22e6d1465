package main

import "testing"

// TestExplainCRDCommand: `explain crd` of an unknown CRD fails as kubectl
// does (404 NotFound), `-o yaml` is refused, and a name is required.
func TestExplainCRDCommand(t *testing.T) {
	_, path, _ := startExplainAdmin(t)
	_, err := runExplainCmd(t, "crd", "pizzas.nope.example.com", "--kubeconfig", path)
	if want := `Error from server (NotFound): customresourcedefinitions.apiextensions.k8s.io "pizzas.nope.example.com" not found`; err == nil || err.Error() != want {
		t.Errorf("unknown: %v, want %s", err, want)
	}
	_, err = runExplainCmd(t, "crd", "pizzas.nope.example.com", "--kubeconfig", path, "-o", "yaml")
	if want := `--output: unsupported format "yaml" (use json or leave empty)`; err == nil || err.Error() != want {
		t.Errorf("-o yaml: %v, want %s", err, want)
	}
	_, err = runExplainCmd(t, "crd", "--kubeconfig", path)
	if want := "accepts 1 arg(s), received 0"; err == nil || err.Error() != want {
		t.Errorf("no name: %v, want %s", err, want)
	}
}
