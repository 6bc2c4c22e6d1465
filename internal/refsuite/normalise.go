package refsuite

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// The normaliser replaces only what must differ between two servers
// answering the same requests (README, "The differential suite"):
//
//   - timestamps (RFC 3339) → <time>; ages in tables (5s, 2m3s) → <age>
//   - uids (UUIDs) → <uid>; resourceVersions → <rv>; continue tokens →
//     <continue start=...> (the token's start key kept, its resourceVersion dropped)
//   - the server's port → <port>; PEM blocks → <pem>; certificate
//     fingerprints → <fingerprint>; allocated cluster IPs and node ports
//   - the admin's user name (the CommonName of each server's admin
//     certificate) → <admin>; each target's HOME → <home>
//   - OpenAPI description texts → <description> (documents and kubectl explain),
//     and the names of v2's shared parameters, which hash those texts
//     (<name>-<hash of the normalised parameter>, filter.go)
//   - Table column descriptions → <description> (tableDescriptions)
//   - the reference's built-in groups and core resources aggsim does not serve
//     (filter.go)
//   - names generated from generateName "rsgen-" → rsgen-<suffix>
//   - the order of a SelfSubjectRulesReview's rules (map order upstream)
//   - runs of spaces inside table lines collapse to three, so that column
//     widths that follow an age do not differ
//   - the lines of kube-apiserver's verbose health checks that aggsim
//     cannot have (absentHealthChecks: admission, API priority and
//     fairness, CRDs, identity leases, RBAC and priority-class bootstrap,
//     the kubernetes Service, service IP repair and ServiceCIDRs); README's
//     "How aggsim differs" lists them
var (
	reTime        = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	reUID         = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	reRV          = regexp.MustCompile(`(\\*"?resourceVersion\\*"?:\s*\\*")\d+(\\*")`)
	reRVParam     = regexp.MustCompile(`(resourceVersion(Match)?=)\d+`)
	reRVMessage   = regexp.MustCompile(`(ResourceVersion in (record \(|object meta: |precondition: ))\d+`)
	reTooOld      = regexp.MustCompile(`too old resource version: \d+ \(\d+\)`)
	reContinue    = regexp.MustCompile(`("?continue"?:\s*"?)([A-Za-z0-9_=+/-]{8,})`)
	reFingerprint = regexp.MustCompile(`X509SHA256=[0-9a-f]{64}`)
	rePEM         = regexp.MustCompile(`-----BEGIN ([A-Z ]+)-----[A-Za-z0-9+/=\s\\n]*-----END [A-Z ]+-----(\\n)?`)
	reClusterIP   = regexp.MustCompile(`\b10\.(9[6-9]|10\d|11[01])\.\d{1,3}\.\d{1,3}\b`)
	reNodePort    = regexp.MustCompile(`("?nodePort"?:\s*)3\d{4}\b`)
	reNodePortCol = regexp.MustCompile(`:3\d{4}/(TCP|UDP|SCTP)\b`)
	reHash        = regexp.MustCompile(`hash=[0-9A-F]{32,}`)
	reAgeJSON     = regexp.MustCompile(`"(\d+(s|m|h|d|y)(\d+(s|m|h|d))?)"`)
	reAgeText     = regexp.MustCompile(`(^|[ \t])\d+(s|m|h|d|y)(\d+(s|m|h|d))?([ \t]|$)`)
	reSpaces      = regexp.MustCompile(`(\S)  +`)
	reGenerated   = regexp.MustCompile(`\brsgen-[a-z0-9]{5}\b`)
	reAbsentCheck = regexp.MustCompile(`^\[[+-]\]poststarthook/(` + strings.Join(absentHealthChecks, "|") + `) (ok|excluded: ok|failed: reason withheld)$`)
)

// absentHealthChecks are kube-apiserver 1.33's post-start hooks that have
// no equivalent in aggsim (it runs no admission plugins, no API priority
// and fairness, no CRDs, no identity leases, no service-account tokens,
// no RBAC, no priority classes, no kubernetes Service and no service IP
// allocator): their `[+]poststarthook/<name> ok` lines of /healthz, /livez
// and /readyz?verbose are dropped. Every other check aggsim lists under
// upstream's name and in upstream's order.
var absentHealthChecks = []string{
	"start-apiserver-admission-initializer",
	"priority-and-fairness-config-consumer",
	"priority-and-fairness-filter",
	"storage-object-count-tracker-hook",
	"start-apiextensions-informers",
	"start-apiextensions-controllers",
	"crd-informer-synced",
	"start-kube-apiserver-identity-lease-controller",
	"start-kube-apiserver-identity-lease-garbage-collector",
	"start-legacy-token-tracking-controller",
	"start-service-ip-repair-controllers",
	"rbac/bootstrap-roles",
	"scheduling/bootstrap-system-priority-classes",
	"priority-and-fairness-config-producer",
	"bootstrap-controller",
	"start-kubernetes-service-cidr-controller",
}

// normaliser holds what one target's transcript replaces.
type normaliser struct {
	port, admin, home string
	scenario          string // its own <scenario>.example.com group is kept in discovery
}

func newNormaliser(t *Target, scenario string) normaliser {
	n := normaliser{admin: t.admin, home: t.HomeDir, scenario: scenario}
	if u, err := url.Parse(t.URL); err == nil {
		n.port = u.Port()
	}
	return n
}

// text applies the textual replacements to s.
func (n normaliser) text(s string) string {
	if n.home != "" {
		s = strings.ReplaceAll(s, n.home, "<home>")
	}
	if n.port != "" {
		s = strings.ReplaceAll(s, "127.0.0.1:"+n.port, "127.0.0.1:<port>")
		s = strings.ReplaceAll(s, "localhost:"+n.port, "localhost:<port>")
	}
	if n.admin != "" {
		s = strings.ReplaceAll(s, n.admin, "<admin>")
	}
	s = rePEM.ReplaceAllString(s, "<pem $1>")
	s = reFingerprint.ReplaceAllString(s, "X509SHA256=<fingerprint>")
	s = reTime.ReplaceAllString(s, "<time>")
	s = reUID.ReplaceAllString(s, "<uid>")
	s = reRV.ReplaceAllString(s, "${1}<rv>${2}")
	s = reRVParam.ReplaceAllString(s, "$1<rv>")
	s = reRVMessage.ReplaceAllString(s, "$1<rv>")
	s = reTooOld.ReplaceAllString(s, "too old resource version: <rv> (<rv>)")
	s = reContinue.ReplaceAllStringFunc(s, continueToken)
	s = reClusterIP.ReplaceAllString(s, "<cluster-ip>")
	s = reNodePort.ReplaceAllString(s, "${1}<node-port>")
	s = reNodePortCol.ReplaceAllString(s, ":<node-port>/$1")
	s = reHash.ReplaceAllString(s, "hash=<hash>")
	s = reGenerated.ReplaceAllString(s, "rsgen-<suffix>")
	return s
}

// continueToken replaces a continue token (base64 of
// {"v":"meta.k8s.io/v1","rv":N,"start":"..."}) by <continue start=...>,
// keeping the key the next page starts after; a value that is no such
// token is left alone.
func continueToken(m string) string {
	sm := reContinue.FindStringSubmatch(m)
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(sm[2], "="))
	if err != nil {
		return m
	}
	var tok struct {
		V     string `json:"v"`
		Start string `json:"start"`
	}
	if json.Unmarshal(raw, &tok) != nil || tok.V == "" {
		return m
	}
	start, _ := json.Marshal(tok.Start) // escaped as JSON: the token sits inside a JSON or YAML string
	return sm[1] + "<continue start=" + strings.ReplaceAll(strings.Trim(string(start), `"`), `\"`, "'") + ">"
}

// body renders a response body or kubectl stdout: JSON (one value or a
// watch stream) is filtered structurally, normalised and indented with
// its original form noted; other text is normalised line by line.
func (n normaliser) body(b []byte, path string, kubectlOut, explain bool) (form, text string) {
	if vals, ok := decodeStream(b); ok {
		compact := !bytes.Contains(b, []byte("{\n")) && !bytes.Contains(b, []byte("[\n"))
		changed := false
		for _, v := range vals {
			if filterDiscovery(v, n.scenario) {
				changed = true
			}
			if strings.HasPrefix(path, "/openapi/") && filterOpenAPI(v) {
				changed = true
			}
			if buildFacts(v) {
				changed = true
			}
			if sortRules(v) {
				changed = true
			}
			if tableDescriptions(v) {
				changed = true
			}
		}
		src := b
		if changed {
			var buf bytes.Buffer
			for _, v := range vals {
				encodeOrdered(&buf, v)
				buf.WriteByte('\n')
			}
			src = buf.Bytes()
		}
		s := n.text(string(src))
		s = reAgeJSON.ReplaceAllString(s, `"<age>"`)
		var out bytes.Buffer
		form := "json"
		if len(vals) > 1 {
			form = fmt.Sprintf("json stream of %d values", len(vals))
		}
		if compact {
			form += ", compact"
		} else {
			form += ", indented"
		}
		if !bytes.HasSuffix(b, []byte("\n")) {
			form += ", no final newline"
		}
		dec := json.NewDecoder(strings.NewReader(s))
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				break
			}
			_ = json.Indent(&out, raw, "", "  ")
			out.WriteByte('\n')
		}
		return "(" + form + ")", out.String()
	}
	if bytes.HasPrefix(b, []byte("k8s\x00")) {
		// Protobuf carries uids, resourceVersions and timestamps in binary
		// form the normaliser cannot reach: only the envelope is compared.
		return "(protobuf)", "k8s\\x00 envelope\n"
	}
	if !utf8.Valid(b) {
		return "(binary)", "\n"
	}
	s := n.text(string(b))
	if explain {
		s = explainDescriptions(s)
	}
	lines := strings.Split(s, "\n")
	lines = slices.DeleteFunc(lines, reAbsentCheck.MatchString)
	for i, l := range lines {
		l = reAgeText.ReplaceAllString(l, "$1<age>$5")
		l = reAgeText.ReplaceAllString(l, "$1<age>$5") // adjacent ages share a separator
		if kubectlOut {
			l = reSpaces.ReplaceAllString(l, "$1   ")
			l = strings.TrimRight(l, " ")
		}
		lines[i] = l
	}
	return "(text)", strings.Join(lines, "\n")
}

// buildFacts replaces the build facts of a version.Info (/version, and
// kubectl version's serverVersion and clientVersion): gitVersion,
// gitCommit, gitTreeState, buildDate and goVersion name a build, not a
// behaviour. major, minor, the emulation and compatibility versions,
// compiler and platform stay. It reports whether it changed v.
func buildFacts(v any) bool {
	o, ok := v.(*object)
	if !ok {
		return false
	}
	changed := false
	if _, ok := o.get("gitCommit").(string); ok {
		for _, k := range []string{"gitVersion", "gitCommit", "gitTreeState", "buildDate", "goVersion"} {
			if _, ok := o.get(k).(string); ok {
				o.vals[k] = "<build>"
				changed = true
			}
		}
	}
	for _, k := range []string{"serverVersion", "clientVersion"} {
		if buildFacts(o.get(k)) {
			changed = true
		}
	}
	return changed
}

// sortRules sorts the resourceRules and nonResourceRules of a
// SelfSubjectRulesReview's status by their JSON text: the reference's RBAC
// authorizer lists them in Go map order, which changes from run to run, so
// their order carries no behaviour. It reports whether it changed v.
func sortRules(v any) bool {
	o, ok := v.(*object)
	if !ok || o.get("kind") != "SelfSubjectRulesReview" {
		return false
	}
	st, _ := o.get("status").(*object)
	if st == nil {
		return false
	}
	for _, k := range []string{"resourceRules", "nonResourceRules"} {
		rules := asSlice(st.get(k))
		key := func(r any) string { var b bytes.Buffer; encodeOrdered(&b, r); return b.String() }
		slices.SortStableFunc(rules, func(a, b any) int { return strings.Compare(key(a), key(b)) })
	}
	return true
}

// tableDescriptions replaces the description of every column of a
// Table (a list or object answered as meta.k8s.io Table, also as the
// object of a watch event) by "<description>". Upstream takes them from
// its Go types' doc comments (or its table printers' own sentences), which
// issue 20 lets aggsim say in its own words, as OpenAPI descriptions; an
// empty or missing description is kept, so it still shows. It reports
// whether it changed v.
func tableDescriptions(v any) bool {
	o, ok := v.(*object)
	if !ok {
		return false
	}
	if o.get("kind") != "Table" {
		if _, isEvent := o.get("type").(string); isEvent {
			return tableDescriptions(o.get("object"))
		}
		return false
	}
	changed := false
	for _, c := range asSlice(o.get("columnDefinitions")) {
		col, ok := c.(*object)
		if !ok {
			continue
		}
		if s, ok := col.get("description").(string); ok && s != "" && s != "<description>" {
			col.vals["description"] = "<description>"
			changed = true
		}
	}
	return changed
}

// explainDescriptions replaces the description paragraphs of `kubectl
// explain` output (kubectl 1.33's plaintext template: the text under
// DESCRIPTION: and the deeper-indented lines under each field of FIELDS:)
// by one <description> line each, and drops the blank lines inside those
// sections, whose number follows the paragraphs of the texts.
func explainDescriptions(s string) string {
	const marker = "    <description>"
	var out []string
	section := ""
	fieldIndent := -1
	for _, l := range strings.Split(s, "\n") {
		trim := strings.TrimLeft(l, " \t")
		indent := len(l) - len(trim)
		switch {
		case trim == "":
			if section != "DESCRIPTION" && section != "FIELDS" {
				out = append(out, l)
			}
			continue
		case indent == 0:
			section = strings.TrimSuffix(strings.Fields(trim)[0], ":")
			fieldIndent = -1
			out = append(out, l)
			continue
		}
		switch section {
		case "DESCRIPTION":
		case "FIELDS":
			if fieldIndent < 0 || indent <= fieldIndent {
				fieldIndent = indent
				out = append(out, l)
				continue
			}
		default:
			out = append(out, l)
			continue
		}
		if len(out) == 0 || out[len(out)-1] != marker {
			out = append(out, marker)
		}
	}
	return strings.Join(out, "\n")
}

// Transcript renders the outcomes of one scenario played against t as the
// normalised text the suite compares and captures.
func Transcript(t *Target, s Scenario, outs []Outcome) string {
	n := newNormaliser(t, s.Name)
	var b strings.Builder
	fmt.Fprintf(&b, "# scenario: %s\n# theme: %s\n", s.Name, s.Theme)
	for i, o := range outs {
		fmt.Fprintf(&b, "\n=== step %d: %s\n", i+1, o.Title)
		if o.Err != "" {
			fmt.Fprintf(&b, "error: %s\n", n.text(o.Err))
			continue
		}
		if o.Kubectl {
			fmt.Fprintf(&b, "exit: %d\n", o.Exit)
			if o.Quiet && o.Exit == 0 {
				continue
			}
			explain := strings.HasPrefix(o.Title, "kubectl explain")
			if len(o.Stdout) > 0 {
				form, text := n.body(o.Stdout, "", true, explain)
				fmt.Fprintf(&b, "--- stdout %s\n%s", form, ensureNL(text))
			}
			if len(o.Stderr) > 0 {
				form, text := n.body(o.Stderr, "", true, false)
				fmt.Fprintf(&b, "--- stderr %s\n%s", form, ensureNL(text))
			}
			continue
		}
		fmt.Fprintf(&b, "status: %d\n", o.Status)
		if o.Quiet && o.Status < 300 {
			continue
		}
		for _, h := range o.Headers {
			fmt.Fprintf(&b, "%s\n", n.text(h))
		}
		if len(o.Body) > 0 {
			form, text := n.body(o.Body, o.Path, false, false)
			fmt.Fprintf(&b, "--- body %s\n%s", form, ensureNL(text))
		}
	}
	return b.String()
}

func ensureNL(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n[no newline at end]\n"
}
