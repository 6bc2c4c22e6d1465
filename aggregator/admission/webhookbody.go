package admission

import (
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// WebhookScheme is what the scheme of one of upstream's webhook clients
// (k8s.io/apiserver/pkg/util/webhook.NewClientManager with the review
// group's AddToScheme funcs) can decode: TypeName returns the Go type
// name ("v1.AdmissionReview", "v1.Status") registered for group,
// version and kind, and false when none is.
type WebhookScheme interface {
	TypeName(group, version, kind string) (string, bool)
}

// reviewScheme is the scheme of a review group (admission.k8s.io or
// apiextensions.k8s.io) with versions v1 and v1beta1: its kinds, the
// kinds metav1.AddToGroupVersion adds to each version, and the
// unversioned metav1 kinds under "v1".
type reviewScheme struct {
	group string
	kinds []string
}

// AdmissionScheme is the admission webhook client's scheme
// (admission.k8s.io v1 and v1beta1).
var AdmissionScheme WebhookScheme = reviewScheme{group: "admission.k8s.io", kinds: []string{"AdmissionReview"}}

// ConversionScheme is the CRD conversion webhook client's scheme
// (apiextensions.k8s.io v1 and v1beta1; webhook_converter.go).
var ConversionScheme WebhookScheme = reviewScheme{group: "apiextensions.k8s.io", kinds: []string{"ConversionReview", "CustomResourceDefinition", "CustomResourceDefinitionList"}}

// TypeName implements WebhookScheme.
func (s reviewScheme) TypeName(group, version, kind string) (string, bool) {
	switch {
	case group == s.group && (version == "v1" || version == "v1beta1"):
		for _, k := range s.kinds {
			if k == kind {
				return version + "." + kind, true
			}
		}
		switch kind {
		case "WatchEvent", "ListOptions", "GetOptions", "DeleteOptions", "CreateOptions", "UpdateOptions", "PatchOptions":
			return "v1." + kind, true
		}
	case group == "" && version == "v1":
		switch kind {
		case "Status", "APIVersions", "APIGroupList", "APIGroup", "APIResourceList":
			return "v1." + kind, true
		}
	}
	return "", false
}

// WebhookBody is a webhook's 2xx answer as upstream's webhook client
// decodes it into the review type it asked for: Top holds the top-level
// fields of its JSON form (YAML converted), by their exact names, as
// upstream's case-sensitive decoder reads them.
type WebhookBody struct {
	Top map[string]json.RawMessage
}

// DecodeWebhookBody reads a webhook's 2xx answer (status code,
// Content-Type header, body) as upstream's rest client decodes it into
// the review type group/version/kind of scheme, and returns its fields.
// Errors carry upstream's texts: `0-length response with status code:
// 200 and content type: application/json`, `couldn't get version/kind;
// json parse error: ...`, `unexpected GroupVersion string: a/b/c`, `no
// kind "X" is registered for version "g/v" in scheme
// "pkg/runtime/scheme.go:110"`, `converting (v1beta1.AdmissionReview) to
// (v1.AdmissionReview): unknown conversion`. A missing apiVersion or
// kind defaults to the requested type's (upstream gvkWithDefaults); the
// review's own apiVersion/kind check is the caller's.
func DecodeWebhookBody(statusCode int, contentType string, body []byte, scheme WebhookScheme, group, version, kind string) (*WebhookBody, error) {
	if len(body) == 0 {
		if contentType == "" {
			contentType = "application/json" // the client's own content type
		}
		return nil, fmt.Errorf("0-length response with status code: %d and content type: %s", statusCode, contentType)
	}
	jb := body
	if !json.Valid(jb) { // the universal deserializer reads YAML too
		var err error
		if jb, err = yaml.YAMLToJSON(body); err != nil {
			return nil, fmt.Errorf("couldn't get version/kind; json parse error: %w", err)
		}
	}
	var tm struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
	}
	if err := json.Unmarshal(jb, &tm); err != nil {
		return nil, fmt.Errorf("couldn't get version/kind; json parse error: %w", err)
	}
	var top map[string]json.RawMessage
	_ = json.Unmarshal(jb, &top)
	// what the body says, by exact key (the decode above ignored case)
	g, v, err := ParseGroupVersion(RawString(top["apiVersion"]))
	if err != nil {
		return nil, err
	}
	k := RawString(top["kind"])
	if k == "" {
		k = kind
	}
	if v == "" && g == "" {
		g, v = group, version
	}
	if v == "" && g == group {
		v = version
	}
	typeName, ok := scheme.TypeName(g, v, k)
	if !ok {
		gv := v
		if g != "" {
			gv = g + "/" + v
		}
		return nil, fmt.Errorf("no kind %q is registered for version %q in scheme \"pkg/runtime/scheme.go:110\"", k, gv)
	}
	if want := version + "." + kind; typeName != want {
		return nil, fmt.Errorf("converting (%s) to (%s): unknown conversion", typeName, want)
	}
	return &WebhookBody{Top: top}, nil
}

// GVKString is the review's own apiVersion and kind as
// schema.GroupVersionKind.String prints them ("group/version,
// Kind=kind"; "/, Kind=" when absent), for the caller's check.
func (b *WebhookBody) GVKString() string {
	g, v, _ := ParseGroupVersion(RawString(b.Top["apiVersion"]))
	return gvkString(g, v, RawString(b.Top["kind"]))
}

// RawString decodes a JSON string; "" when raw is absent or not one.
func RawString(raw json.RawMessage) string {
	var s string
	if raw == nil || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// ParseGroupVersion splits an apiVersion as apimachinery's
// schema.ParseGroupVersion: "" (or "/") is empty, "v1" is the core
// group, more than one "/" is an error (`unexpected GroupVersion string:
// <s>`).
func ParseGroupVersion(s string) (group, version string, err error) {
	if s == "" || s == "/" {
		return "", "", nil
	}
	switch strings.Count(s, "/") {
	case 0:
		return "", s, nil
	case 1:
		g, v, _ := strings.Cut(s, "/")
		return g, v, nil
	}
	return "", "", fmt.Errorf("unexpected GroupVersion string: %v", s)
}
