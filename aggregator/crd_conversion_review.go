package aggregator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aggsim/aggsim/aggregator/admission"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

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
	wb, err := admission.DecodeWebhookBody(statusCode, contentType, body, admission.ConversionScheme, "apiextensions.k8s.io", reviewVersion, "ConversionReview")
	if err != nil {
		return nil, err
	}
	top := wb.Top
	if reviewVersion == "v1" {
		if got := wb.GVKString(); got != "apiextensions.k8s.io/v1, Kind=ConversionReview" {
			return nil, fmt.Errorf("expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got %s", got)
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
	out := &conversionResponse{UID: admission.RawString(resp["uid"])}
	if reviewVersion == "v1" && out.UID != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, out.UID)
	}
	if r, ok := resp["result"]; ok {
		var result map[string]json.RawMessage
		_ = json.Unmarshal(r, &result)
		out.Status, out.Message = admission.RawString(result["status"]), admission.RawString(result["message"])
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
