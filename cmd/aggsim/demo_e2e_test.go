package main

// Tests of issue 6's demo: the banner and helpers of `serve --demo`, the
// `demo-backend` command in-process, and the end-to-end walkthrough: the
// real kubectl (installed, 1.27, 1.33) and curl against `aggsim serve
// --demo` run as a separate process.
//
// Invariants checked:
//   - the commands run are exactly the ```sh blocks of
//     the walkthrough section of README.md, and every
//     expectation below names a command that is in it;
//   - flunders and fischers appear in api-resources with their short names,
//     are created, read (also through v1beta1), watched (ADDED, MODIFIED,
//     DELETED) and deleted through aggsim;
//   - a read --as=jane reaches the backend as X-Remote-User jane (the
//     backend's /debug/requests says so);
//   - the curl commands the banner printed succeed.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/demo"
)

// The walkthrough lives in README.md between these markers: README shows
// it and this test runs it, so the two cannot drift apart.
const (
	walkthroughPath  = "../../README.md"
	walkthroughBegin = "<!-- walkthrough:begin -->"
	walkthroughEnd   = "<!-- walkthrough:end -->"
)

// readWalkthrough returns README's walkthrough section.
func readWalkthrough(t *testing.T) string {
	t.Helper()
	md, err := os.ReadFile(walkthroughPath)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(md), walkthroughBegin)
	section, _, ok2 := strings.Cut(rest, walkthroughEnd)
	if !ok || !ok2 {
		t.Fatalf("%s has no %s ... %s section", walkthroughPath, walkthroughBegin, walkthroughEnd)
	}
	return section
}

// walkCommand is one command line of the walkthrough.
type walkCommand struct {
	line       string
	export     bool // "export NAME=..." sets up the later commands
	background bool // ends with "&": runs until "kill %1"
	kill       bool // "kill %1"
}

// parseWalkthrough returns the lines of every ```sh block of md, in order.
func parseWalkthrough(md string) []walkCommand {
	var out []walkCommand
	in := false
	for _, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case !in && t == "```sh":
			in = true
		case in && t == "```":
			in = false
		case in && t != "" && !strings.HasPrefix(t, "#"):
			c := walkCommand{line: t}
			switch {
			case strings.HasPrefix(t, "export "):
				c.export = true
			case strings.HasSuffix(t, " &"):
				c.background = true
				c.line = strings.TrimSpace(strings.TrimSuffix(t, "&"))
			case t == "kill %1":
				c.kill = true
			}
			out = append(out, c)
		}
	}
	return out
}

// walkExpect is what the output (stdout+stderr, whitespace-normalised for
// JSON) of a walkthrough command must contain.
type walkExpect struct {
	contains []string
	regexps  []*regexp.Regexp
	// ready (background commands only) must appear before the next command
	// runs, so the watch has listed before anything changes.
	ready string
	// exit is the exit code the command must end with (a refusal: kubectl
	// auth can-i answering no, a 403); 0 when not set.
	exit int
}

// walkExpectations maps each walkthrough command (as written) to its
// checks. Commands not listed only have to exit 0.
var walkExpectations = map[string]walkExpect{
	"kubectl wait --for=condition=Available apiservice/v1alpha1.wardle.example.com apiservice/v1beta1.wardle.example.com --timeout=60s": {
		contains: []string{"apiservice.apiregistration.k8s.io/v1alpha1.wardle.example.com condition met", "apiservice.apiregistration.k8s.io/v1beta1.wardle.example.com condition met"},
	},
	"kubectl get apiservices v1alpha1.wardle.example.com v1beta1.wardle.example.com": {
		regexps: []*regexp.Regexp{
			regexp.MustCompile(`(?m)^v1alpha1\.wardle\.example\.com\s+wardle/api\s+True\s`),
			regexp.MustCompile(`(?m)^v1beta1\.wardle\.example\.com\s+wardle/api\s+True\s`),
		},
	},
	"kubectl api-resources --api-group=wardle.example.com": {
		regexps: []*regexp.Regexp{
			regexp.MustCompile(`(?m)^fischers\s+wardle\.example\.com/v1alpha1\s+false\s+Fischer\s*$`),
			regexp.MustCompile(`(?m)^flunders\s+fl\s+wardle\.example\.com/v1alpha1\s+true\s+Flunder\s*$`),
		},
	},
	"kubectl explain flunders.spec":                {contains: []string{"KIND: Flunder", "FIELD: spec <FlunderSpec>", "reference <string>", "referenceType <string>"}},
	"kubectl create -f testdata/demo/fischer.yaml": {contains: []string{"fischer.wardle.example.com/my-fischer created"}},
	"kubectl get fischers":                         {regexps: []*regexp.Regexp{regexp.MustCompile(`(?m)^NAME\s+AGE\n+my-fischer\s+\d+s\s*$`)}},
	"kubectl create -f testdata/demo/flunder.yaml": {contains: []string{"flunder.wardle.example.com/my-first-flunder created"}},
	"kubectl get fl":                               {regexps: []*regexp.Regexp{regexp.MustCompile(`(?m)^NAME\s+AGE\n+my-first-flunder\s+\d+s\s*$`)}},
	`kubectl get flunders.v1beta1.wardle.example.com my-first-flunder -o jsonpath='{.apiVersion} {.spec.referenceType}{"\n"}'`: {
		contains: []string{"wardle.example.com/v1beta1 Fischer\n"},
	},
	"kubectl get fl --output-watch-events --watch": {
		ready:   "my-first-flunder",
		regexps: []*regexp.Regexp{regexp.MustCompile(`(?s)ADDED\s+my-first-flunder.*MODIFIED\s+my-first-flunder.*DELETED\s+my-first-flunder`)},
	},
	"kubectl get flunders":                                    {contains: []string{"No resources found in default namespace."}},
	"kubectl create namespace tmpns":                          {contains: []string{"namespace/tmpns created"}},
	"kubectl create -f testdata/demo/flunder.yaml -n tmpns":   {contains: []string{"flunder.wardle.example.com/my-first-flunder created"}},
	"kubectl delete namespace tmpns":                          {contains: []string{`namespace "tmpns" deleted`}},
	"kubectl create namespace stuckns":                        {contains: []string{"namespace/stuckns created"}},
	"kubectl create -f testdata/demo/flunder.yaml -n stuckns": {contains: []string{"flunder.wardle.example.com/my-first-flunder created"}},
	"kubectl wait --for=condition=NamespaceDeletionDiscoveryFailure namespace/stuckns --timeout=30s": {contains: []string{"namespace/stuckns condition met"}},
	"kubectl get namespace stuckns": {regexps: []*regexp.Regexp{regexp.MustCompile(`(?m)^stuckns\s+Terminating\s+\d+s\s*$`)}},
	"bin/aggsim explain namespace stuckns": {contains: []string{
		"Phase:        Terminating\n",
		"  NamespaceDeletionDiscoveryFailure=True DiscoveryFailed: Discovery failed for some groups, 2 failing: unable to retrieve the complete list of server APIs: wardle.example.com/v1alpha1: stale GroupVersion discovery: wardle.example.com/v1alpha1, wardle.example.com/v1beta1: stale GroupVersion discovery: wardle.example.com/v1beta1\n",
		"Blocked by APIService v1alpha1.wardle.example.com (wardle.example.com/v1alpha1):\n",
		"  Available:  False (FailedDiscoveryCheck)\n",
		"  - or delete the APIService (kubectl delete apiservice v1alpha1.wardle.example.com)",
	}},
	"kubectl wait --for=delete namespace/stuckns --timeout=30s": {regexps: []*regexp.Regexp{regexp.MustCompile(`\A(?:namespace/stuckns condition met\n)?\z`)}},
	`curl -sS --cacert $AGGSIM_DATA/demo/ca.crt --cert $AGGSIM_DATA/pki/front-proxy-client.crt --key $AGGSIM_DATA/pki/front-proxy-client.key -H 'X-Remote-User: inspector' "$DEMO_URL/debug/requests?user=system:serviceaccount:kube-system:namespace-controller"`: {
		contains: []string{`"method":"DELETE","path":"/apis/wardle.example.com/v1alpha1/namespaces/tmpns/flunders"`, `"user":"system:serviceaccount:kube-system:namespace-controller"`},
	},
	// The RBAC part: kube-apiserver 1.33.13 answers the kubectl commands
	// with the same bytes and exit codes (compared with flunders served by a
	// CRD, the demo's ClusterRoles applied and view's aggregated rules set
	// as kube-controller-manager sets them).
	"kubectl auth can-i list flunders --as=bob": {exit: 1, regexps: []*regexp.Regexp{regexp.MustCompile(`\Ano\n\z`)}},
	"kubectl get flunders --as=bob": {exit: 1, regexps: []*regexp.Regexp{regexp.MustCompile(
		`\AError from server \(Forbidden\): flunders\.wardle\.example\.com is forbidden: User "bob" cannot list resource "flunders" in API group "wardle\.example\.com" in the namespace "default"\n\z`)}},
	"bin/aggsim explain access --as=bob list flunders": {contains: []string{
		"Request:      list flunders.wardle.example.com in namespace \"default\"\n",
		"Decision:     denied (NoOpinion)\n",
		"Response:     403 Forbidden: flunders.wardle.example.com is forbidden: User \"bob\" cannot list resource \"flunders\" in API group \"wardle.example.com\" in the namespace \"default\"\n",
		"  - kubectl create rolebinding <name> --clusterrole=view --user=bob -n default (ClusterRole \"view\" allows it)\n",
	}},
	"kubectl create rolebinding flunder-readers --clusterrole=view --user=bob --group=devs": {contains: []string{"rolebinding.rbac.authorization.k8s.io/flunder-readers created"}},
	"kubectl auth can-i list flunders --as=bob --namespace=default":                         {regexps: []*regexp.Regexp{regexp.MustCompile(`\Ayes\n\z`)}},
	"kubectl get fl --as=bob": {regexps: []*regexp.Regexp{regexp.MustCompile(`(?m)^NAME\s+AGE\n+my-first-flunder\s+\d+s\s*$`)}},
	"bin/aggsim explain access --as=bob list flunders --namespace=default": {contains: []string{
		"Decision:     allowed (by RBAC)\n",
		"Reason:       RBAC: allowed by RoleBinding \"flunder-readers/default\" of ClusterRole \"view\" to User \"bob\"\n",
		`{APIGroups:["wardle.example.com"], Resources:["flunders" "fischers"], Verbs:["get" "list" "watch"]}`,
	}},
	"bin/aggsim explain access --as=bob delete flunders my-first-flunder": {contains: []string{
		"Decision:     denied (NoOpinion)\n",
		"  - [verb] RoleBinding \"flunder-readers/default\" of ClusterRole \"view\" to User \"bob\" has a rule for [\"get\" \"list\" \"watch\"] of [\"flunders\" \"fischers\"] but not \"delete\"\n",
	}},
	"kubectl delete rolebinding flunder-readers":                {contains: []string{`rolebinding.rbac.authorization.k8s.io "flunder-readers" deleted`}},
	"kubectl label fl my-first-flunder color=blue":              {contains: []string{"flunder.wardle.example.com/my-first-flunder labeled"}},
	"kubectl get fl my-first-flunder --as=jane --as-group=devs": {regexps: []*regexp.Regexp{regexp.MustCompile(`(?m)^my-first-flunder\s+\d+s`)}},
	"kubectl delete fl my-first-flunder":                        {contains: []string{`flunder.wardle.example.com "my-first-flunder" deleted`}},
	"kubectl delete -f testdata/demo/fischer.yaml":              {contains: []string{`fischer.wardle.example.com "my-fischer" deleted`}},
	`curl -sS --cacert $AGGSIM_DATA/demo/ca.crt --cert $AGGSIM_DATA/pki/front-proxy-client.crt --key $AGGSIM_DATA/pki/front-proxy-client.key -H 'X-Remote-User: inspector' "$DEMO_URL/debug/requests?user=jane"`: {
		contains: []string{
			`"path":"/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/my-first-flunder"`,
			`"authenticated":true,`, `"user":"jane","groups":["devs","system:authenticated"]`, `"X-Remote-User":["jane"]`,
		},
	},
	`curl -sS --cacert $AGGSIM_DATA/demo/ca.crt $DEMO_URL/apis/wardle.example.com/v1alpha1/flunders`: {
		contains: []string{`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`},
	},
	// run once (walkEnv.export), as pasted: kubectl prints the warning
	// kube-apiserver 1.33.13 sends for v1 Endpoints (`curl -D -
	// .../api/v1/namespaces/default/endpoints/nope` answers `warning: 299 -
	// "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1
	// EndpointSlice"`), once; the commands after it print none.
	`export DEMO_URL=https://127.0.0.1:$(kubectl get endpoints api -n wardle -o jsonpath='{.subsets[0].ports[0].port}')`: {regexps: []*regexp.Regexp{
		regexp.MustCompile(`\AWarning: v1 Endpoints is deprecated in v1\.33\+; use discovery\.k8s\.io/v1 EndpointSlice\n\z`)}},
	// the demo CRD (README: "The other way to extend the API")
	"kubectl wait --for=condition=Established crd/toppings.restaurant.example.com --timeout=60s": {contains: []string{"customresourcedefinition.apiextensions.k8s.io/toppings.restaurant.example.com condition met"}},
	"kubectl api-resources --api-group=restaurant.example.com": {
		regexps: []*regexp.Regexp{regexp.MustCompile(`(?m)^toppings\s+tp\s+restaurant\.example\.com/v1\s+true\s+Topping\s*$`)},
	},
	"kubectl get --raw /apis": {
		regexps: []*regexp.Regexp{regexp.MustCompile(`"name":"apiextensions\.k8s\.io".*"name":"restaurant\.example\.com".*"name":"wardle\.example\.com"`)},
	},
	"kubectl explain toppings.spec":                                 {contains: []string{"KIND:       Topping", "FIELD: spec <Object>", "weightGrams\t<integer>"}},
	"kubectl create --validate=false -f testdata/demo/topping.yaml": {contains: []string{"topping.restaurant.example.com/basil created"}},
	"kubectl get toppings":                                          {regexps: []*regexp.Regexp{regexp.MustCompile(`(?m)^NAME\s+VEGETARIAN\s+WEIGHT\s+AGE\n+basil\s+true\s+50\s`)}},
	// spiciness pruned, weightGrams and vegetarian defaulted by the schema
	`kubectl get topping basil -o jsonpath='{.spec}{"\n"}'`:   {contains: []string{`{"origin":"Liguria","vegetarian":true,"weightGrams":50}`}},
	"bin/aggsim explain apiservice v1.restaurant.example.com": {contains: []string{"Service:      Local", "a Local APIService managed for CustomResourceDefinition toppings.restaurant.example.com"}},
	"kubectl delete -f testdata/demo/topping.yaml":            {contains: []string{`topping.restaurant.example.com "basil" deleted`}},
	// the two-version Pizza CRD and the demo backend's conversion webhook
	"kubectl wait --for=condition=Established crd/pizzas.restaurant.example.com --timeout=60s":  {contains: []string{"customresourcedefinition.apiextensions.k8s.io/pizzas.restaurant.example.com condition met"}},
	"kubectl create -f testdata/demo/pizza.yaml":                                                {regexps: []*regexp.Regexp{regexp.MustCompile(`\Apizza\.restaurant\.example\.com/margherita created\n\z`)}},
	`kubectl get pizzas.v1alpha1.restaurant.example.com margherita -o jsonpath='{.spec}{"\n"}'`: {regexps: []*regexp.Regexp{regexp.MustCompile(`\A\{"toppings":\["tomato","mozzarella","mozzarella"\]\}\n\z`)}},
	`kubectl get pizzas.v1beta1.restaurant.example.com margherita -o jsonpath='{.spec}{"\n"}'`:  {regexps: []*regexp.Regexp{regexp.MustCompile(`\A\{"toppings":\[\{"name":"tomato","quantity":1\},\{"name":"mozzarella","quantity":2\}\]\}\n\z`)}},
	"kubectl delete -f testdata/demo/pizza.yaml":                                                {contains: []string{`pizza.restaurant.example.com "margherita" deleted`}},
	// the demo's admission webhooks (demo/pizza_admission.go) and aggsim explain crd
	"kubectl create -f testdata/demo/pizza-plain.yaml":                                     {regexps: []*regexp.Regexp{regexp.MustCompile(`\Apizza\.restaurant\.example\.com/plain created\n\z`)}},
	`kubectl get pizzas.v1alpha1.restaurant.example.com plain -o jsonpath='{.spec}{"\n"}'`: {regexps: []*regexp.Regexp{regexp.MustCompile(`\A\{"toppings":\["tomato","mozzarella"\]\}\n\z`)}},
	`kubectl get pizzas.v1beta1.restaurant.example.com plain -o jsonpath='{.spec}{"\n"}'`:  {regexps: []*regexp.Regexp{regexp.MustCompile(`\A\{"toppings":\[\{"name":"tomato","quantity":1\},\{"name":"mozzarella","quantity":1\}\]\}\n\z`)}},
	// kube-apiserver 1.33 answers a webhook's denial with code 403 as a Status
	// without reason (testdata/admission/webhooks/ref/create-deny.body), which
	// kubectl prints as "Error from server: ..."
	"kubectl create -f testdata/demo/pizza-hawaii.yaml": {exit: 1, regexps: []*regexp.Regexp{regexp.MustCompile(
		`\AError from server: error when creating "testdata/demo/pizza-hawaii\.yaml": admission webhook "no-pineapple\.restaurant\.example\.com" denied the request: pineapple does not belong on a pizza\n\z`)}},
	"bin/aggsim explain webhook --last-denied": {contains: []string{
		"refused by webhook no-pineapple.restaurant.example.com (ValidatingWebhookConfiguration no-pineapple.restaurant.example.com; denied)\n  Request:  CREATE pizzas.restaurant.example.com default/hawaii by ",
		"  Answer:   403 admission webhook \"no-pineapple.restaurant.example.com\" denied the request: pineapple does not belong on a pizza\n  Explain:  aggsim explain webhook no-pineapple.restaurant.example.com/no-pineapple.restaurant.example.com\n",
	}},
	"bin/aggsim explain crd pizzas.restaurant.example.com": {
		contains: []string{
			"CustomResourceDefinition: pizzas.restaurant.example.com\nKind:            Pizza (Namespaced) in group restaurant.example.com\nVersions:\n" +
				"  v1alpha1: served; APIService v1alpha1.restaurant.example.com Available=True\n" +
				"  v1beta1: served, storage; APIService v1beta1.restaurant.example.com Available=True\n",
			"  Established=True (InitialNamesAccepted): the initial names have been accepted\nStoredVersions:  [v1beta1]\nConversion:      Webhook (ConversionReview v1)\n" +
				"  Calls:         POST https://api.wardle.svc:443/convert?timeout=30s\n  Service:       wardle/api:443\n",
			"  Verification:  ok\n  Reachable:     yes\n",
			"Last failure:    none recorded\n",
		},
		regexps: []*regexp.Regexp{regexp.MustCompile(`Last conversions \(newest first\):\n(?:  \S+  restaurant\.example\.com/v1(?:alpha1|beta1) -> restaurant\.example\.com/v1(?:alpha1|beta1), 1 object in \d+\.\d ms: ok\n)+Last failure`)},
	},
	"kubectl delete -f testdata/demo/pizza-plain.yaml": {contains: []string{`pizza.restaurant.example.com "plain" deleted`}},
	`curl -sS --cacert $AGGSIM_DATA/pki/ca.crt --cert $AGGSIM_DATA/pki/admin.crt --key $AGGSIM_DATA/pki/admin.key $AGGSIM_URL/apis/wardle.example.com`: {
		contains: []string{`"kind":"APIGroup"`, `"name":"wardle.example.com"`, `"preferredVersion":{"groupVersion":"wardle.example.com/v1alpha1","version":"v1alpha1"}`},
	},
	`curl -sS --cacert $AGGSIM_DATA/pki/ca.crt --cert $AGGSIM_DATA/pki/admin.crt --key $AGGSIM_DATA/pki/admin.key -H 'Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' $AGGSIM_URL/apis`: {
		contains: []string{`"kind":"APIGroupDiscoveryList"`, `"name":"wardle.example.com"`, `"resource":"flunders"`, `"shortNames":["fl"]`, `"resource":"fischers"`},
	},
}

// TestWalkthroughParses keeps README's walkthrough and walkExpectations in step
// without running anything.
func TestWalkthroughParses(t *testing.T) {
	cmds := parseWalkthrough(readWalkthrough(t))
	seen := map[string]bool{}
	var bg, kills int
	for _, c := range cmds {
		if _, ok := walkExpectations[c.line]; ok && seen[c.line] {
			t.Errorf("command with expectations appears twice (the checks cannot tell them apart): %s", c.line)
		}
		seen[c.line] = true
		if c.background {
			bg++
		}
		if c.kill {
			kills++
		}
	}
	if bg != 1 || kills != 1 {
		t.Errorf("walkthrough has %d background commands and %d `kill %%1`; want 1 and 1", bg, kills)
	}
	for line := range walkExpectations {
		if !seen[line] {
			t.Errorf("expectation for a command that is not in the walkthrough: %s", line)
		}
	}
	if len(cmds) < 20 {
		t.Errorf("only %d commands parsed", len(cmds))
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/x/ca.crt":  "/tmp/x/ca.crt",
		"/tmp/a b/c.crt": "'/tmp/a b/c.crt'",
		"it's":           `'it'\''s'`,
		"":               "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestDemoBanner(t *testing.T) {
	got := demoBanner(demoBannerInput{
		Kubeconfig: "/d/kubeconfig", Server: "https://127.0.0.1:6443", PKIDir: "/d/pki",
		BackendURL: "https://127.0.0.1:40000", BackendCA: "/d/demo/ca.crt",
	})
	want := `demo: try next (walkthrough: README.md):
  export KUBECONFIG=/d/kubeconfig
  kubectl get apiservices
  kubectl get flunders
  kubectl create -f testdata/demo/flunder.yaml
  kubectl auth can-i list flunders --as=jane
  kubectl create rolebinding jane-view --clusterrole=view --user=jane
  kubectl get fl --as=jane
  curl -sS --cacert /d/pki/ca.crt --cert /d/pki/admin.crt --key /d/pki/admin.key https://127.0.0.1:6443/apis
  curl -sS --cacert /d/pki/ca.crt --cert /d/pki/admin.crt --key /d/pki/admin.key -H 'Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' https://127.0.0.1:6443/apis
  curl -sS --cacert /d/pki/ca.crt --cert /d/pki/admin.crt --key /d/pki/admin.key https://127.0.0.1:6443/apis/wardle.example.com/v1alpha1
  curl -sS --cacert /d/demo/ca.crt --cert /d/pki/front-proxy-client.crt --key /d/pki/front-proxy-client.key -H 'X-Remote-User: inspector' 'https://127.0.0.1:40000/debug/requests?user=jane'
`
	if got != want {
		t.Errorf("banner:\n%s\nwant:\n%s", got, want)
	}
}

func TestEnsureDemoCertsKeepsCA(t *testing.T) {
	dir := t.TempDir()
	first, err := ensureDemoCerts(dir, "api", "wardle")
	if err != nil {
		t.Fatal(err)
	}
	second, err := ensureDemoCerts(dir, "api", "wardle")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.CA.CertPEM, second.CA.CertPEM) {
		t.Error("the demo CA changed on the second start; caBundle must stay stable")
	}
	if second.ServerName != "api.wardle.svc" {
		t.Errorf("ServerName = %q", second.ServerName)
	}
	for _, f := range []string{"ca.crt", "ca.key", "tls.crt", "tls.key"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls cond every 20 ms until it holds or limit passes.
func waitFor(limit time.Duration, cond func() bool) bool {
	end := time.Now().Add(limit)
	for time.Now().Before(end) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}

// TestDemoBackendCommand runs `aggsim demo-backend` in-process with a
// front-proxy CA of its own and talks to it as the aggregator would.
func TestDemoBackendCommand(t *testing.T) {
	dir := t.TempDir()
	fpCA, err := certs.NewCA("front-proxy-ca", certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "front-proxy-ca.crt")
	if err := os.WriteFile(caFile, fpCA.CertPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	client, err := fpCA.IssueClient("front-proxy-client", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	cmd := newDemoBackendCommand()
	cmd.SetOut(out)
	cmd.SetErr(io.Discard)
	cmd.SetArgs([]string{"--cert-dir", filepath.Join(dir, "certs"), "--requestheader-client-ca-file", caFile})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	re := regexp.MustCompile(`(?m)^demo-backend serving wardle\.example\.com on (https://127\.0\.0\.1:\d+)\ncaBundle: (\S+)\n`)
	var m []string
	if !waitFor(30*time.Second, func() bool { m = re.FindStringSubmatch(out.String()); return m != nil }) {
		t.Fatalf("no banner; output:\n%s", out)
	}
	caPEM, err := os.ReadFile(filepath.Join(dir, "certs", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := base64.StdEncoding.EncodeToString(caPEM); m[2] != want {
		t.Errorf("caBundle %s, want base64 of certs/ca.crt", m[2])
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	tc, err := client.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: "api.wardle.svc", Certificates: []tls.Certificate{tc}}}}
	req, _ := http.NewRequest("GET", m[1]+"/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", nil)
	req.Header.Set("X-Remote-User", "alice")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"kind":"FlunderList","apiVersion":"wardle.example.com/v1alpha1"`) {
		t.Errorf("list as alice: %d %s", resp.StatusCode, body)
	}
	// Without the front-proxy certificate: 401.
	anon := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: "api.wardle.svc"}}}
	resp, err = anon.Get(m[1] + "/apis")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}` + "\n"; resp.StatusCode != 401 || string(body) != want {
		t.Errorf("anonymous /apis: %d %q, want 401 %q", resp.StatusCode, body, want)
	}
}

// --- end to end -----------------------------------------------------------

// demoServe is one `aggsim serve --demo` process.
type demoServe struct {
	cmd        *exec.Cmd
	url        string
	kubeconfig string
	banner     []string // every stdout line up to the KUBECONFIG line
	stderr     *syncBuffer
	done       chan struct{}
}

// startDemoServe runs `aggsim serve --demo --secure-port 0 --data-dir
// dataDir` with the binary aggsimBinary built (the walkthrough's
// bin/aggsim lines run it too: one build per test run, not two); it
// returns once the banner's KUBECONFIG line is printed. The process is
// killed by its PID at cleanup.
func startDemoServe(t *testing.T, dataDir string) *demoServe {
	t.Helper()
	cmd := exec.Command(aggsimBinary(t), "serve", "--demo", "--secure-port", "0", "--data-dir", dataDir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &demoServe{cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-s.done
		if t.Failed() {
			t.Logf("aggsim serve --demo stderr (tail):\n%s", tail(s.stderr.String(), 4000))
		}
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	serving := regexp.MustCompile(`^aggsim .* serving on (https://\S+)$`)
	deadline := time.After(120 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				<-s.done
				t.Fatalf("aggsim serve --demo exited (%v) before its banner; stdout:\n%s\nstderr (tail):\n%s", cmd.ProcessState, strings.Join(s.banner, "\n"), tail(s.stderr.String(), 4000))
			}
			s.banner = append(s.banner, l)
			if m := serving.FindStringSubmatch(l); m != nil {
				s.url = m[1]
			}
			if k, ok := strings.CutPrefix(l, "export KUBECONFIG="); ok {
				s.kubeconfig = k
				go func() {
					for range lines {
					}
				}()
				if s.url == "" {
					t.Fatalf("the banner does not name the serving address:\n%s", strings.Join(s.banner, "\n"))
				}
				return s
			}
		case <-deadline:
			t.Fatalf("no KUBECONFIG line within 120s; stdout so far:\n%s\nstderr (tail):\n%s", strings.Join(s.banner, "\n"), tail(s.stderr.String(), 4000))
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// demoKubectls returns the kubectl binaries to run the walkthrough with:
// the installed one, kubectl.1.27 and kubectl.1.33 from its folder.
func demoKubectls(t *testing.T) [][2]string {
	k, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH")
	}
	real, err := filepath.EvalSymlinks(k)
	if err != nil {
		t.Fatal(err)
	}
	out := [][2]string{{"kubectl", real}}
	for _, v := range []string{"kubectl.1.27", "kubectl.1.33"} {
		p := filepath.Join(filepath.Dir(real), v)
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s not found beside %s", v, real)
			continue
		}
		out = append(out, [2]string{v, p})
	}
	return out
}

// normalise removes all whitespace: JSON from curl is pretty-printed
// (aggsim and the backend indent for curl's User-Agent), the checks are
// compact.
func normalise(s string) string {
	return strings.Join(strings.Fields(s), "")
}

func checkOutput(t *testing.T, line, out string) {
	t.Helper()
	exp, ok := walkExpectations[line]
	if !ok {
		return
	}
	for _, c := range exp.contains {
		if !strings.Contains(out, c) && !strings.Contains(normalise(out), normalise(c)) {
			t.Errorf("%s\n  output does not contain %q; output:\n%s", line, c, out)
		}
	}
	for _, re := range exp.regexps {
		if !re.MatchString(out) {
			t.Errorf("%s\n  output does not match %s; output:\n%s", line, re, out)
		}
	}
}

// walkEnv is the environment the walkthrough's commands run in.
type walkEnv struct {
	env  []string // os.Environ plus PATH, HOME, XDG_STATE_HOME and the exports so far
	repo string   // working directory: the repository root
}

func (w *walkEnv) command(ctx context.Context, line string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "bash", "-c", "set -e\n"+line)
	cmd.Env, cmd.Dir = w.env, w.repo
	return cmd
}

// export runs an "export NAME=..." line once, as a user pasting it does,
// and adds NAME with its value to the environment of later commands. It
// returns what the line printed (a Warning from kubectl in $(...)).
func (w *walkEnv) export(ctx context.Context, line string) (string, error) {
	name, _, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
	if !ok {
		return "", fmt.Errorf("not an export NAME=value line")
	}
	cmd := w.command(ctx, line+"\nprintf %s \"$"+name+"\"")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	value, err := cmd.Output()
	if err != nil {
		return stderr.String(), err
	}
	w.env = append(w.env, name+"="+string(value))
	return stderr.String(), nil
}

// runWalkthrough runs cmds as a user would paste them, with kubectl
// resolving to the kubectl binary.
func runWalkthrough(t *testing.T, cmds []walkCommand, kubectl, xdg string) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	binDir := t.TempDir()
	if err := os.Symlink(kubectl, filepath.Join(binDir, "kubectl")); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	w := &walkEnv{repo: repo, env: append(os.Environ(),
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+home, "XDG_STATE_HOME="+xdg, "KUBECONFIG=")}
	type bgJob struct {
		line   string
		cmd    *exec.Cmd
		out    *syncBuffer
		cancel context.CancelFunc
	}
	var bg *bgJob
	defer func() {
		if bg != nil {
			bg.cancel()
			_ = bg.cmd.Wait()
		}
	}()
	for i, c := range cmds {
		if t.Failed() {
			t.Logf("stopping after the first failing command; %d commands not run", len(cmds)-i)
			return
		}
		switch {
		case c.export:
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			out, err := w.export(ctx, c.line)
			cancel()
			if err != nil {
				t.Errorf("%s: %v\n%s", c.line, err, out)
				continue
			}
			checkOutput(t, c.line, out)
		case c.background:
			ctx, cancel := context.WithCancel(context.Background())
			cmd := w.command(ctx, "exec "+c.line)
			out := &syncBuffer{}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				cancel()
				t.Fatalf("%s: %v", c.line, err)
			}
			bg = &bgJob{line: c.line, cmd: cmd, out: out, cancel: cancel}
			if r := walkExpectations[c.line].ready; r != "" && !waitFor(60*time.Second, func() bool { return strings.Contains(out.String(), r) }) {
				t.Errorf("%s: %q not printed within 60s; output:\n%s", c.line, r, out)
			}
		case c.kill:
			if bg == nil {
				t.Fatalf("kill %%1 without a background command")
			}
			job := bg
			bg = nil
			// Let the watch print the events of the commands before.
			want := walkExpectations[job.line]
			waitFor(30*time.Second, func() bool {
				for _, re := range want.regexps {
					if !re.MatchString(job.out.String()) {
						return false
					}
				}
				return true
			})
			job.cancel()
			_ = job.cmd.Wait()
			checkOutput(t, job.line, job.out.String())
		default:
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			line := c.line
			if rest, ok := strings.CutPrefix(line, "bin/aggsim "); ok { // what make run builds: this test's binary
				line = aggsimBinary(t) + " " + rest
			}
			out, err := w.command(ctx, line).CombinedOutput()
			cancel()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				code = -1
			}
			if want := walkExpectations[c.line].exit; code != want {
				t.Errorf("%s: exit code %d (%v), want %d\n%s", c.line, code, err, want, out)
				continue
			}
			checkOutput(t, c.line, string(out))
		}
	}
}

// TestDemoWalkthroughE2E is issue 6's "done when": aggsim serve --demo as a
// separate process, driven by the walkthrough's commands with each kubectl,
// then the curl commands its banner printed.
func TestDemoWalkthroughE2E(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not on PATH")
	}
	kubectls := demoKubectls(t)
	cmds := parseWalkthrough(readWalkthrough(t))
	_, curlErr := exec.LookPath("curl")
	if curlErr != nil {
		t.Log("curl is not on PATH: skipping the curl commands")
		kept := cmds[:0]
		for _, c := range cmds {
			if !strings.HasPrefix(c.line, "curl ") {
				kept = append(kept, c)
			}
		}
		cmds = kept
	}

	xdg := t.TempDir()
	dataDir := filepath.Join(xdg, "aggsim") // the walkthrough's default data dir under XDG_STATE_HOME
	srv := startDemoServe(t, dataDir)
	if srv.kubeconfig != filepath.Join(dataDir, certs.KubeconfigName) {
		t.Errorf("KUBECONFIG line names %s, want %s", srv.kubeconfig, filepath.Join(dataDir, certs.KubeconfigName))
	}
	for _, k := range kubectls {
		t.Run(k[0], func(t *testing.T) { runWalkthrough(t, cmds, k[1], xdg) })
	}

	t.Run("strict-validation", func(t *testing.T) {
		// kubectl's default validation: the aggregated OpenAPI tells each
		// kubectl that flunders take fieldValidation, so it sends
		// fieldValidation=Strict and the backend refuses an unknown field.
		manifest := filepath.Join(t.TempDir(), "bogus-flunder.yaml")
		body := "apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata:\n  name: bogus\nspec:\n  bogus: 1\n  reference: my-fischer\n  referenceType: Fischer\n"
		if err := os.WriteFile(manifest, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`Error from server (BadRequest): error when creating %q: Flunder in version "v1alpha1" cannot be handled as a Flunder: strict decoding error: unknown field "spec.bogus"`+"\n", manifest)
		for _, k := range kubectls {
			cmd := exec.Command(k[1], "--kubeconfig", srv.kubeconfig, "create", "-f", manifest)
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "KUBECONFIG=")
			out, err := cmd.CombinedOutput()
			if err == nil || string(out) != want {
				t.Errorf("%s create -f %s: err %v, output\n%s\nwant\n%s", k[0], manifest, err, out, want)
			}
		}
	})

	t.Run("banner-curl", func(t *testing.T) {
		if curlErr != nil {
			t.Skip("curl is not on PATH")
		}
		var curls []string
		for _, l := range srv.banner {
			if c, ok := strings.CutPrefix(l, "  curl "); ok {
				curls = append(curls, "curl "+c)
			}
		}
		if len(curls) != 4 {
			t.Fatalf("banner has %d curl commands, want 4:\n%s", len(curls), strings.Join(srv.banner, "\n"))
		}
		wants := []string{
			`"kind":"APIGroupList"`,
			`"kind":"APIGroupDiscoveryList"`,
			`"groupVersion":"wardle.example.com/v1alpha1"`,
			`"user":"jane"`,
		}
		for i, c := range curls {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			out, err := exec.CommandContext(ctx, "bash", "-c", c).CombinedOutput()
			cancel()
			if err != nil {
				t.Errorf("%s: %v\n%s", c, err, out)
				continue
			}
			if !strings.Contains(normalise(string(out)), wants[i]) {
				t.Errorf("%s\n  output does not contain %s:\n%s", c, wants[i], tail(string(out), 2000))
			}
		}
	})

	t.Run("recorder", func(t *testing.T) {
		// The same check as the walkthrough's curl, in Go: the backend saw
		// jane, with her groups, behind the front-proxy certificate.
		recs := debugRequests(t, dataDir, "jane")
		if len(recs) == 0 {
			t.Fatal("the backend recorded no request of jane")
		}
		r := recs[0]
		if r.ClientCertCN != certs.FrontProxyClientCN || !r.Authenticated || strings.Join(r.Groups, ",") != "devs,system:authenticated" {
			t.Errorf("jane's request: %+v", r)
		}
		if got := r.Header.Values("X-Remote-Group"); strings.Join(got, ",") != "devs,system:authenticated" {
			t.Errorf("X-Remote-Group headers %q", got)
		}
		if h := r.Header.Get("Authorization"); h != "" {
			t.Errorf("Authorization reached the backend: %q", h)
		}
	})
}

// debugRequests reads the demo backend's /debug/requests?user=user with
// the front-proxy client certificate of dataDir's PKI; the backend's
// address comes from the Endpoints aggsim's demo wrote.
func debugRequests(t *testing.T, dataDir, user string) []demo.RequestRecord {
	t.Helper()
	req, _ := http.NewRequest("GET", fmt.Sprintf("https://127.0.0.1:%d%s?user=%s", endpointsPort(t, dataDir), demo.DebugRequestsPath, user), nil)
	req.Header.Set("X-Remote-User", "inspector")
	resp, err := demoBackendClient(t, dataDir).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list demo.RequestList
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/debug/requests: %d %v", resp.StatusCode, err)
	}
	return list.Items
}

// demoBackendClient returns a client for the demo backend of dataDir
// (called directly, as the walkthrough's curl does): it verifies the
// backend against the demo CA as api.wardle.svc and presents the
// front-proxy client certificate of dataDir's PKI, which the backend's
// debug endpoints require.
func demoBackendClient(t *testing.T, dataDir string) *http.Client {
	t.Helper()
	pki := filepath.Join(dataDir, "pki")
	kp, err := tls.LoadX509KeyPair(filepath.Join(pki, certs.FrontProxyClientCertName), filepath.Join(pki, certs.FrontProxyClientKeyName))
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(filepath.Join(dataDir, "demo", certs.CACertName))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: demo.ServiceName + "." + demo.Namespace + ".svc", Certificates: []tls.Certificate{kp}}}}
}

// endpointsPort reads the port of Endpoints wardle/api through kubectl.
func endpointsPort(t *testing.T, dataDir string) int {
	t.Helper()
	// stdout only: kubectl prints the server's Endpoints deprecation
	// warning on stderr.
	cmd := exec.Command("kubectl", "--kubeconfig", filepath.Join(dataDir, certs.KubeconfigName),
		"get", "endpoints", "api", "-n", "wardle", "-o", "jsonpath={.subsets[0].ports[0].port}")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl get endpoints: %v\n%s%s", err, out, stderr.Bytes())
	}
	var port int
	if _, err := fmt.Sscanf(string(out), "%d", &port); err != nil {
		t.Fatalf("endpoints port %q: %v", out, err)
	}
	return port
}
