package refsuite

import "strings"

// The helpers below keep the catalogue short: each builds one Step.

// kubectl runs kubectl with args.
func kubectl(args ...string) Step { return Step{Kubectl: args} }

// kubectlIn runs kubectl with args and stdin.
func kubectlIn(stdin string, args ...string) Step { return Step{Kubectl: args, Stdin: stdin} }

// request is a raw HTTPS request; hdr holds "Name: value" lines.
func request(method, path, body string, hdr ...string) Step {
	st := Step{Method: method, Path: path, Body: body}
	for _, h := range hdr {
		k, v, _ := strings.Cut(h, ":")
		st.Header = append(st.Header, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	return st
}

func get(path string, hdr ...string) Step { return request("GET", path, "", hdr...) }

// withJSON adds Content-Type: application/json unless hdr names one.
func withJSON(hdr []string) []string {
	for _, h := range hdr {
		if strings.HasPrefix(strings.ToLower(h), "content-type:") {
			return hdr
		}
	}
	return append([]string{"Content-Type: application/json"}, hdr...)
}

func post(path, body string, hdr ...string) Step {
	return request("POST", path, body, withJSON(hdr)...)
}

func put(path, body string, hdr ...string) Step {
	return request("PUT", path, body, withJSON(hdr)...)
}

func del(path string, hdr ...string) Step { return request("DELETE", path, "", hdr...) }

// patch sends body with Content-Type ctype: "merge", "json", "strategic"
// or "apply" name the four patch types.
func patch(path, ctype, body string, hdr ...string) Step {
	switch ctype {
	case "merge":
		ctype = "application/merge-patch+json"
	case "json":
		ctype = "application/json-patch+json"
	case "strategic":
		ctype = "application/strategic-merge-patch+json"
	case "apply":
		ctype = "application/apply-patch+yaml"
	}
	return request("PATCH", path, body, append([]string{"Content-Type: " + ctype}, hdr...)...)
}

// quiet marks a setup step: only its status or exit code is compared.
func quiet(s Step) Step { s.Quiet = true; return s }

// save records values of the step's JSON answer: pairs of variable name
// and dot path.
func save(s Step, pairs ...string) Step {
	s.Save = map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		s.Save[pairs[i]] = pairs[i+1]
	}
	return s
}

// mkns creates the scenario's namespace as setup.
func mkns() Step {
	return quiet(post("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${ns}"}}`))
}

// sc builds a scenario.
func sc(name, theme string, steps ...Step) Scenario {
	return Scenario{Name: name, Theme: theme, Steps: steps}
}

// Accept headers used across the catalogue.
const (
	acceptTable    = "Accept: application/json;as=Table;v=v1;g=meta.k8s.io"
	acceptYAML     = "Accept: application/yaml"
	acceptProtobuf = "Accept: application/vnd.kubernetes.protobuf"
	acceptAggr     = "Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
)
