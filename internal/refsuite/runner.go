package refsuite

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// stepTimeout bounds one kubectl invocation or one HTTPS request
// (watches end earlier: scenarios give them timeoutSeconds).
const stepTimeout = 30 * time.Second

// maxBody bounds how many bytes of one response body a transcript keeps
// (the reference's /openapi/v2 is about 4 MiB before filtering).
const maxBody = 32 << 20

// maxTitleBody bounds how much of a request body a step's title shows.
const maxTitleBody = 400

// capturedHeaders is the fixed allow-list of response headers a
// transcript records, in this order. Date, Audit-Id, Content-Length and the
// flow-control uid headers are left out: they differ on every request.
var capturedHeaders = []string{"Content-Type", "Warning", "X-Content-Type-Options", "Cache-Control", "Retry-After"}

// Target is one server the suite plays scenarios against.
type Target struct {
	// Name names the server in messages ("reference", "aggsim").
	Name string
	// URL is the server's base URL, https://127.0.0.1:<port>.
	URL string
	// Kubeconfig is the path kubectl is given with --kubeconfig.
	Kubeconfig string
	// CAFile, CertFile and KeyFile are PEM files: the server's CA and the
	// admin's client certificate and key used by raw HTTPS requests.
	CAFile, CertFile, KeyFile string
	// Kubectl is the kubectl binary (see FindKubectl).
	Kubectl string
	// HomeDir is this target's own HOME for kubectl; its discovery cache
	// lives in HomeDir/cache, so the two servers' caches never mix.
	HomeDir string

	client *http.Client
	admin  string
}

// Prepare reads the target's certificates, builds its HTTPS client and
// learns the admin's user name (the CommonName of CertFile), which the
// normaliser replaces with <admin>. It returns an error when a file is
// missing or unreadable.
func (t *Target) Prepare() error {
	caPEM, err := os.ReadFile(t.CAFile)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return fmt.Errorf("%s: no certificate in %s", t.Name, t.CAFile)
	}
	pair, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
	if err != nil {
		return err
	}
	certPEM, err := os.ReadFile(t.CertFile)
	if err != nil {
		return err
	}
	blk, _ := pem.Decode(certPEM)
	if blk == nil {
		return fmt.Errorf("%s: no PEM block in %s", t.Name, t.CertFile)
	}
	leaf, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		return err
	}
	t.admin = leaf.Subject.CommonName
	tr := &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}},
		ForceAttemptHTTP2: true,
		MaxIdleConns:      64,
	}
	t.client = &http.Client{Transport: tr, Timeout: stepTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if t.HomeDir == "" {
		return fmt.Errorf("%s: HomeDir is empty", t.Name)
	}
	return os.MkdirAll(filepath.Join(t.HomeDir, "cache"), 0o755)
}

// Close drops the target's idle connections.
func (t *Target) Close() {
	if t.client != nil {
		t.client.CloseIdleConnections()
	}
}

// FindKubectl returns the kubectl the suite runs: kubectl.1.33 beside the
// kubectl found on PATH when it exists (the installed kubectl may be a
// version dispatcher), else kubectl itself. It returns an error when no
// kubectl is on PATH.
func FindKubectl() (string, error) {
	k, err := exec.LookPath("kubectl")
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(k)
	if err != nil {
		real = k
	}
	if p := filepath.Join(filepath.Dir(real), "kubectl.1.33"); isFile(p) {
		return p, nil
	}
	return k, nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// Scenario is one client story: a name (unique, lower case, dashes; it
// also names the scenario's namespace "rs-<name>" and its cluster-scoped
// objects), a theme for the report, and ordered steps.
type Scenario struct {
	Name  string
	Theme string
	Steps []Step
}

// Namespace is the namespace a scenario owns: "rs-" and its name.
func (s Scenario) Namespace() string { return "rs-" + s.Name }

// Step is either a kubectl invocation (Kubectl set) or a raw HTTPS request
// (Method set). In Args, Path, Body and Stdin, ${ns} stands for the
// scenario's namespace, ${sc} for its name, ${admin} for the admin's user
// name on the target, and ${var} for a value an
// earlier step saved.
type Step struct {
	// Kubectl holds kubectl's arguments (without --kubeconfig).
	Kubectl []string
	// Stdin is fed to kubectl.
	Stdin string

	// Method, Path, Header and Body describe a raw HTTPS request.
	Method string
	Path   string
	Header [][2]string
	Body   string

	// Quiet steps are setup: the transcript records only their exit code or
	// status, not their output.
	Quiet bool
	// Save maps a variable name to a dot path (metadata.resourceVersion)
	// in the step's JSON answer (HTTP body or kubectl stdout); an empty path
	// saves the whole trimmed output.
	Save map[string]string
}

// Outcome is what one step answered, before normalisation.
type Outcome struct {
	// Title is the step as written (variables not substituted).
	Title string
	// Exit is kubectl's exit code; Status the HTTP status code.
	Exit, Status int
	// Headers are the allow-listed response headers, "Name: value".
	Headers []string
	// Stdout and Stderr are kubectl's; Body is the HTTP response body.
	Stdout, Stderr, Body []byte
	// Path is the request path of an HTTP step (query removed), which
	// selects path-specific normalisation (OpenAPI documents).
	Path string
	// Kubectl is set for kubectl steps.
	Kubectl bool
	// Quiet copies Step.Quiet.
	Quiet bool
	// Err records a failure to run the step at all (not a server answer).
	Err string
}

// Run plays s against t step by step and returns every step's outcome. A
// step that could not be run at all (no kubectl, connection refused)
// records Err and the scenario goes on.
func Run(ctx context.Context, t *Target, s Scenario) []Outcome {
	vars := map[string]string{"ns": s.Namespace(), "sc": s.Name, "admin": t.admin}
	out := make([]Outcome, 0, len(s.Steps))
	for _, st := range s.Steps {
		var o Outcome
		if st.Kubectl != nil {
			o = runKubectl(ctx, t, st, vars)
		} else {
			o = runHTTP(ctx, t, st, vars)
		}
		o.Quiet = st.Quiet
		for name, path := range st.Save {
			src := o.Body
			if o.Kubectl {
				src = o.Stdout
			}
			vars[name] = extract(src, path)
		}
		out = append(out, o)
	}
	return out
}

func expand(s string, vars map[string]string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return os.Expand(s, func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return "${" + k + "}"
	})
}

// extract returns the string at dot path p of a JSON document, or the
// trimmed document when p is empty; "" when absent.
func extract(doc []byte, p string) string {
	if p == "" {
		return strings.TrimSpace(string(doc))
	}
	var v any
	if json.Unmarshal(doc, &v) != nil {
		return ""
	}
	for _, part := range strings.Split(p, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[part]
	}
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

func runKubectl(ctx context.Context, t *Target, st Step, vars map[string]string) Outcome {
	o := Outcome{Kubectl: true, Title: "kubectl " + shellJoin(st.Kubectl)}
	args := []string{"--kubeconfig", t.Kubeconfig, "--cache-dir", filepath.Join(t.HomeDir, "cache")}
	for _, a := range st.Kubectl {
		args = append(args, expand(a, vars))
	}
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, t.Kubectl, args...)
	cmd.Env = []string{"HOME=" + t.HomeDir, "PATH=" + os.Getenv("PATH"), "LANG=C", "KUBECTL_KUBERC=false"}
	if st.Stdin != "" {
		cmd.Stdin = strings.NewReader(expand(st.Stdin, vars))
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		o.Exit = ee.ExitCode()
	default:
		o.Err = err.Error()
	}
	if ctx.Err() != nil {
		o.Err = "timed out after " + stepTimeout.String()
	}
	o.Stdout, o.Stderr = stdout.Bytes(), stderr.Bytes()
	return o
}

func runHTTP(ctx context.Context, t *Target, st Step, vars map[string]string) Outcome {
	o := Outcome{Title: st.Method + " " + st.Path}
	for _, h := range st.Header {
		o.Title += "\n  " + h[0] + ": " + h[1]
	}
	if st.Body != "" {
		b := st.Body
		if len(b) > maxTitleBody {
			b = fmt.Sprintf("%s... (%d bytes)", b[:maxTitleBody], len(b))
		}
		o.Title += "\n  " + strings.ReplaceAll(strings.TrimRight(b, "\n"), "\n", "\n  ")
	}
	path := expand(st.Path, vars)
	if u, err := url.Parse(path); err == nil {
		o.Path = u.Path
	}
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	var body io.Reader
	if st.Body != "" {
		body = strings.NewReader(expand(st.Body, vars))
	}
	req, err := http.NewRequestWithContext(ctx, st.Method, t.URL+path, body)
	if err != nil {
		o.Err = err.Error()
		return o
	}
	for _, h := range st.Header {
		req.Header.Add(h[0], expand(h[1], vars))
	}
	resp, err := t.client.Do(req)
	if err != nil {
		o.Err = strings.ReplaceAll(err.Error(), t.URL, "<server>")
		return o
	}
	defer resp.Body.Close()
	o.Status = resp.StatusCode
	for _, name := range capturedHeaders {
		for _, v := range resp.Header.Values(name) {
			o.Headers = append(o.Headers, name+": "+v)
		}
	}
	o.Body, err = io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		o.Err = "reading body: " + err.Error()
	}
	return o
}

// shellJoin quotes args as a POSIX shell would need them, for titles.
func shellJoin(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,${}@%+", r))
		}) < 0 {
			b.WriteString(a)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String()
}
