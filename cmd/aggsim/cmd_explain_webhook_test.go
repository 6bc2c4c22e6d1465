package main

import "testing"

// TestExplainWebhookCommand: `explain webhook --last-denied` and its alias
// `explain denied` read the refusals, an unknown configuration fails as
// kubectl does, and without a name it lists the configurations and
// policies.
func TestExplainWebhookCommand(t *testing.T) {
	_, path, _ := startExplainAdmin(t)
	const none = "No request was refused by an admission webhook or a ValidatingAdmissionPolicy since aggsim started.\n"
	for _, args := range [][]string{{"webhook", "--last-denied"}, {"denied"}} {
		out, err := runExplainCmd(t, append(args, "--kubeconfig", path)...)
		if err != nil || out != none {
			t.Errorf("%v: %v %q", args, err, out)
		}
	}
	out, err := runExplainCmd(t, "webhook", "--last-denied", "--kubeconfig", path, "-o", "json")
	if err != nil || out != "{\n  \"refusals\": []\n}\n" {
		t.Errorf("json: %v %q", err, out)
	}
	_, err = runExplainCmd(t, "webhook", "nope.example.com/hook.example.com", "--kubeconfig", path)
	if want := `Error from server (NotFound): validatingwebhookconfigurations.admissionregistration.k8s.io "nope.example.com" not found`; err == nil || err.Error() != want {
		t.Errorf("unknown: %v, want %s", err, want)
	}
	out, err = runExplainCmd(t, "webhook", "--kubeconfig", path)
	if want := "No Mutating or ValidatingWebhookConfiguration.\n\nNo ValidatingAdmissionPolicy.\n\nRefusals kept: 0 (aggsim explain webhook --last-denied); one webhook: aggsim explain webhook CONFIGURATION[/WEBHOOK]\n"; err != nil || out != want {
		t.Errorf("no name: %v\n%q\nwant\n%q", err, out, want)
	}
	_, err = runExplainCmd(t, "webhook", "x.example.com", "--last-denied", "--kubeconfig", path)
	if err == nil || err.Error() != "--last-denied takes no CONFIGURATION" {
		t.Errorf("name and --last-denied: %v", err)
	}
}
