package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestServiceAccountTokenKubectlE2E runs `kubectl create token` and
// authenticates with the token, with kubectl 1.27 and 1.33, against
// `aggsim serve`; every expected text is what the same kubectl printed
// against kube-apiserver 1.33.13 (+ kube-controller-manager for the
// default ServiceAccount; ../shared/reference/up.sh with KCM=1):
//
//	kubectl create token robot --duration=5m | nosuch | --bound-object-kind=Pod --bound-object-name=x
//	kubectl --kubeconfig=/dev/null --server=... --certificate-authority=ca.crt --token=$T auth whoami
//	kubectl.1.27 ... --token=$T auth whoami (it asks for v1alpha1/v1beta1, which 1.33 does not serve)
//	echo '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' | kubectl.1.27 ... --token=$T create --validate=false -f - -o jsonpath=...
//	a token of `--audience foo`: kubectl ... get ns, auth whoami (fresh HOME)
func TestServiceAccountTokenKubectlE2E(t *testing.T) {
	srv := startServe(t, t.TempDir(), "--storage", "memory")
	bins := kubectlBinaries(t)
	ca := filepath.Join(srv.DataDir, "pki", "ca.crt")
	jti := regexp.MustCompile(`JTI=[0-9a-f-]{36}`)
	uid := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	for name, bin := range bins {
		t.Run(name, func(t *testing.T) {
			k := kubectlRunner{t: t, bin: bin, kubeconfig: srv.Kubeconfig}
			sa := "robot-" + strings.ReplaceAll(name, ".", "-")
			k.ok("create", "serviceaccount", sa)
			token := strings.TrimSpace(k.ok("create", "token", sa, "--duration=2h"))
			parts := strings.Split(token, ".")
			if len(parts) != 3 {
				t.Fatalf("token %q", token)
			}
			claims, err := base64.RawURLEncoding.DecodeString(parts[1])
			if err != nil {
				t.Fatal(err)
			}
			var c struct {
				Aud      []string `json:"aud"`
				Exp, Iat int64
				Sub      string `json:"sub"`
			}
			if err := json.Unmarshal(claims, &c); err != nil || c.Sub != "system:serviceaccount:default:"+sa || c.Exp-c.Iat != 7200 ||
				len(c.Aud) != 1 || c.Aud[0] != "https://kubernetes.default.svc.cluster.local" {
				t.Errorf("claims %s (%v)", claims, err)
			}
			for _, cc := range []struct{ args, want string }{
				{"create token " + sa + " --duration=5m", `error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes`},
				{"create token nosuch", `error: failed to create token: serviceaccounts "nosuch" not found`},
				{"create token " + sa + " --bound-object-kind=Pod --bound-object-name=x", `error: failed to create token: pods "x" not found`},
			} {
				so, se, code := k.run("", strings.Fields(cc.args)...)
				if code == 0 || strings.TrimSpace(se) != cc.want {
					t.Errorf("kubectl %s: exit %d %q\n%s\nwant %s", cc.args, code, so, se, cc.want)
				}
			}
			asToken := func(tok string, args ...string) (string, string, int) {
				return k.run("", append([]string{"--kubeconfig=/dev/null", "--server=" + srv.URL, "--certificate-authority=" + ca, "--token=" + tok}, args...)...)
			}
			so, se, code := asToken(token, "auth", "whoami")
			if name == "kubectl.1.27" {
				const want = "error: the selfsubjectreviews API is not enabled in the cluster\nenable APISelfSubjectReview feature gate and authentication.k8s.io/v1alpha1 or authentication.k8s.io/v1beta1 API"
				if code == 0 || strings.TrimSpace(se) != want {
					t.Errorf("auth whoami: exit %d %q\n%s\nwant %s", code, so, se, want)
				}
				k2 := kubectlRunner{t: t, bin: bin, kubeconfig: "/dev/null"}
				so, se, code = k2.run(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`, "--kubeconfig=/dev/null", "--server="+srv.URL, "--certificate-authority="+ca, "--token="+token,
					"create", "--validate=false", "-f", "-", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}")
				if want := "system:serviceaccount:default:" + sa + ` ["system:serviceaccounts","system:serviceaccounts:default","system:authenticated"]`; code != 0 || so != want {
					t.Errorf("SelfSubjectReview: exit %d %q %s\nwant %s", code, so, se, want)
				}
			} else {
				want := "ATTRIBUTE                                           VALUE\n" +
					"Username                                            system:serviceaccount:default:" + sa + "\n" +
					"UID                                                 X\n" +
					"Groups                                              [system:serviceaccounts system:serviceaccounts:default system:authenticated]\n" +
					"Extra: authentication.kubernetes.io/credential-id   [JTI=X]\n"
				// The columns are as wide as the longest name (kubectl pads them).
				want = strings.Replace(want, "ATTRIBUTE                                           VALUE", "ATTRIBUTE"+strings.Repeat(" ", 43)+"VALUE", 1)
				if got := uid.ReplaceAllString(jti.ReplaceAllString(so, "JTI=X"), "X"); code != 0 || got != want {
					t.Errorf("auth whoami: exit %d\n%s%s\nwant\n%s", code, so, se, want)
				}
			}
			// A token for another audience: discovery is refused first (a
			// fresh HOME: no cached discovery), whoami's POST directly.
			foo := strings.TrimSpace(k.ok("create", "token", sa, "--audience", "foo"))
			so, se, code = asToken(foo, "get", "ns")
			lines := strings.Split(strings.TrimSpace(se), "\n")
			if want := "error: You must be logged in to the server (the server has asked for the client to provide credentials)"; code == 0 || lines[len(lines)-1] != want {
				t.Errorf("token for audience foo: exit %d %q %s", code, so, se)
			}
			if name != "kubectl.1.27" {
				so, se, code = asToken(foo, "auth", "whoami")
				if want := "error: You must be logged in to the server (Unauthorized)"; code == 0 || strings.TrimSpace(se) != want {
					t.Errorf("whoami, token for audience foo: exit %d %q %s", code, so, se)
				}
			}
		})
	}
}

// TestKubeconfigCommand: `aggsim kubeconfig --service-account NS/NAME`
// writes a kubeconfig (mode 0600) with aggsim's server and CA and a token
// of the ServiceAccount, which kubectl then authenticates with; a missing
// ServiceAccount and a malformed name are errors with the server's and a
// clear message.
func TestKubeconfigCommand(t *testing.T) {
	srv := startServe(t, t.TempDir(), "--storage", "memory")
	bin := aggsimBinary(t)
	file := filepath.Join(t.TempDir(), "sa.kubeconfig")
	run := func(args ...string) (string, error) {
		out, err := exec.Command(bin, append([]string{"kubeconfig", "--kubeconfig", srv.Kubeconfig}, args...)...).CombinedOutput()
		return string(out), err
	}
	bins := kubectlBinaries(t)
	// Its own ServiceAccount: "default" appears only once the
	// serviceaccount controller has run after readiness.
	kubectlRunner{t: t, bin: bins["kubectl"], kubeconfig: srv.Kubeconfig}.ok("create", "serviceaccount", "robot")
	if out, err := run("--service-account", "default/robot", "--duration", "2h", "--file", file); err != nil || out != "" {
		t.Fatalf("aggsim kubeconfig: %v %s", err, out)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig file: %v %v", err, fi)
	}
	k := kubectlRunner{t: t, bin: bins["kubectl"], kubeconfig: file}
	so := k.ok("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
	if so != "system:serviceaccount:default:robot" {
		t.Errorf("whoami with the written kubeconfig: %q", so)
	}
	for _, c := range []struct{ sa, want string }{
		{"default/nosuch", `Error: failed to create token: serviceaccounts "nosuch" not found`},
		{"nosuch", `Error: --service-account: want NAMESPACE/NAME, got "nosuch"`},
	} {
		out, err := run("--service-account", c.sa)
		if err == nil || !strings.HasPrefix(out, c.want+"\n") {
			t.Errorf("--service-account %s: %v %q, want %q", c.sa, err, out, c.want)
		}
	}
}
