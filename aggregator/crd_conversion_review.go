package aggregator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// conversionSchemeError is a webhook answer that upstream's webhook
// client cannot decode into the ConversionReview it asked for.
type conversionSchemeError string

func (e conversionSchemeError) Error() string { return string(e) }

// schemeTypeName returns the Go type name ("v1.ConversionReview") that
// the scheme of upstream's conversion webhook client (apiextensions v1
// and v1beta1 with metav1.AddToGroupVersion; webhook_converter.go)
// decodes apiVersion/kind into, and false when nothing is registered.
func schemeTypeName(group, version, kind string) (string, bool) {
	switch {
	case group == "apiextensions.k8s.io" && (version == "v1" || version == "v1beta1"):
		switch kind {
		case "ConversionReview", "CustomResourceDefinition", "CustomResourceDefinitionList":
			return version + "." + kind, true
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

// conversionResponse is what is read of a ConversionReview's response.
type conversionResponse struct {
	UID              string
	ConvertedObjects []json.RawMessage
	Status, Message  string
}

// decodeConversionReview reads a webhook's answer (HTTP status code,
// Content-Type and body) as upstream's webhook client decodes it into a
// ConversionReview of reviewVersion ("v1" or "v1beta1") and checks it as
// upstream's getConvertedObjectsFromResponse does (apiVersion/kind and
// uid for v1 only; response present; result.status Success). Errors
// carry upstream's texts, without the "conversion webhook for ...
// failed: " prefix. Keys are matched case-sensitively, as upstream's JSON
// decoder matches them.
func decodeConversionReview(statusCode int, contentType string, body []byte, reviewVersion, uid string) (*conversionResponse, error) {
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
	// what the body says, exactly (encoding/json above matched keys
	// without regard to case)
	apiVersion, _ := rawString(top["apiVersion"])
	kind, _ := rawString(top["kind"])
	group, version, err := parseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	// missing parts default to the requested type's (upstream gvkWithDefaults)
	dg, dv, dk := "apiextensions.k8s.io", reviewVersion, "ConversionReview"
	if kind == "" {
		kind = dk
	}
	if version == "" && group == "" {
		group, version = dg, dv
	}
	if version == "" && group == dg {
		version = dv
	}
	typeName, ok := schemeTypeName(group, version, kind)
	if !ok {
		gv := version
		if group != "" {
			gv = group + "/" + version
		}
		return nil, conversionSchemeError(fmt.Sprintf("no kind %q is registered for version %q in scheme \"pkg/runtime/scheme.go:110\"", kind, gv))
	}
	if want := reviewVersion + ".ConversionReview"; typeName != want {
		return nil, conversionSchemeError(fmt.Sprintf("converting (%s) to (%s): unknown conversion", typeName, want))
	}
	if reviewVersion == "v1" {
		bg, bv, _ := parseGroupVersion(apiVersion)
		if bg != dg || bv != "v1" || exactString(top["kind"]) != "ConversionReview" {
			return nil, fmt.Errorf("expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got %s/%s, Kind=%s", bg, bv, exactString(top["kind"]))
		}
	}
	raw, ok := top["response"]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, errors.New("no response provided")
	}
	var resp map[string]json.RawMessage
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, err
	}
	out := &conversionResponse{UID: exactString(resp["uid"])}
	if reviewVersion == "v1" && out.UID != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, out.UID)
	}
	if r, ok := resp["result"]; ok {
		var result map[string]json.RawMessage
		_ = json.Unmarshal(r, &result)
		out.Status, out.Message = exactString(result["status"]), exactString(result["message"])
	}
	if out.Status != "Success" {
		if out.Message != "" {
			return nil, errors.New(out.Message)
		}
		return nil, fmt.Errorf("response.result.status was '%s', not 'Success'", out.Status)
	}
	if c, ok := resp["convertedObjects"]; ok {
		if err := json.Unmarshal(c, &out.ConvertedObjects); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rawString decodes a JSON string; false when raw is not one.
func rawString(raw json.RawMessage) (string, bool) {
	var s string
	if raw == nil || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// exactString is rawString without the flag.
func exactString(raw json.RawMessage) string {
	s, _ := rawString(raw)
	return s
}

// parseGroupVersion splits an apiVersion as apimachinery's
// schema.ParseGroupVersion: "" is empty, "v1" is the core group, more
// than one "/" is an error.
func parseGroupVersion(s string) (group, version string, err error) {
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

// decodeConvertedObject decodes one of convertedObjects as upstream's
// getRawExtensionObject does (an Unstructured): null reads as empty
// input, a non-object as a JSON type error, an object without kind as
// `Object 'Kind' is missing in '<json>'`. Numbers are json.Number.
func decodeConvertedObject(raw json.RawMessage) (map[string]any, error) {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = nil
	}
	var probe any
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, err
	}
	if _, isMap := probe.(map[string]any); !isMap {
		var m map[string]any
		return nil, json.Unmarshal(raw, &m) // the type error upstream's decoder reports
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	if k, _ := m["kind"].(string); k == "" {
		return nil, fmt.Errorf("Object 'Kind' is missing in '%s'", raw)
	}
	return m, nil
}

// jsonTypeName is the Go type an Unstructured holds for a decoded JSON
// value (json.Number as int64 or float64), as upstream's messages print
// it with %T.
func jsonTypeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "<nil>"
	case string:
		return "string"
	case bool:
		return "bool"
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return "int64"
		}
		return "float64"
	case map[string]any:
		return "map[string]interface {}"
	case []any:
		return "[]interface {}"
	}
	return fmt.Sprintf("%T", v)
}

// restoreConvertedMeta gives conv the metadata of the original (inMeta)
// with the labels and annotations the webhook returned, checked and
// validated as upstream's restoreObjectMeta does (labels first; values
// must be strings; validated only when changed); errors are its texts.
func restoreConvertedMeta(inMeta, outMeta map[string]any, conv map[string]any) error {
	restored := make(map[string]any, len(inMeta))
	for k, v := range inMeta {
		restored[k] = v
	}
	for _, f := range []string{"labels", "annotations"} {
		v, ok := outMeta[f]
		if !ok || v == nil {
			delete(restored, f)
			continue
		}
		m, isMap := v.(map[string]any)
		if !isMap {
			return fmt.Errorf("invalid metadata.%s of type %s in converted object", f, jsonTypeName(v))
		}
		orig, _ := restored[f].(map[string]any)
		changed := len(orig) != len(m)
		strs := make(map[string]string, len(m))
		for k, x := range m {
			s, isStr := x.(string)
			if !isStr {
				return fmt.Errorf("metadata.%s[%s] must be a string, but is %s in converted object", f, k, jsonTypeName(x))
			}
			if o, _ := orig[k].(string); o != s || orig[k] == nil {
				changed = true
			}
			strs[k] = s
		}
		if changed {
			var errs meta.FieldErrors
			if f == "labels" {
				errs = meta.ValidateLabels(strs, "metadata.labels")
			} else {
				errs = meta.ValidateAnnotations(strs, "metadata.annotation") // sic, upstream's path
			}
			if len(errs) > 0 {
				return errors.New(aggregateText(errs))
			}
		}
		restored[f] = v
	}
	conv["metadata"] = restored
	return nil
}
