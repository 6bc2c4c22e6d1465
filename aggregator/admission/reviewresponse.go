package admission

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// parseResponse decodes a webhook's 2xx answer (status code,
// Content-Type, body) as upstream's webhook client decodes it into the
// AdmissionReview version it sent (DecodeWebhookBody: YAML or JSON,
// apiVersion and kind first, keys matched case-sensitively) and verifies
// it (verifyResponse). Errors read `failed to call webhook: ...` or
// `received invalid webhook response: ...`.
func parseResponse(statusCode int, contentType string, body []byte, version, uid string, mutating bool) (*admissionResponse, error) {
	_, v, _ := strings.Cut(version, "/")
	wb, err := DecodeWebhookBody(statusCode, contentType, body, AdmissionScheme, "admission.k8s.io", v, "AdmissionReview")
	if err != nil {
		return nil, fmt.Errorf("failed to call webhook: %w", err)
	}
	out := admissionReviewResponse{APIVersion: RawString(wb.Top["apiVersion"]), Kind: RawString(wb.Top["kind"])}
	if raw, ok := wb.Top["response"]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if out.Response, err = decodeAdmissionResponse(raw); err != nil {
			return nil, fmt.Errorf("failed to call webhook: %w", err)
		}
	}
	if err := verifyResponse(version, uid, mutating, &out); err != nil {
		return nil, fmt.Errorf("received invalid webhook response: %w", err)
	}
	return out.Response, nil
}

// decodeAdmissionResponse decodes an AdmissionResponse by its fields'
// exact names (a webhook answering "UID" or "Allowed" has answered
// neither, as upstream reads it).
func decodeAdmissionResponse(raw json.RawMessage) (*admissionResponse, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	r := &admissionResponse{}
	for _, f := range []struct {
		name string
		into any
	}{
		{"uid", &r.UID}, {"allowed", &r.Allowed}, {"status", &r.Result}, {"patch", &r.Patch},
		{"patchType", &r.PatchType}, {"auditAnnotations", &r.AuditAnnotations}, {"warnings", &r.Warnings},
	} {
		if v, ok := fields[f.name]; ok {
			if err := json.Unmarshal(v, f.into); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// verifyResponse mirrors upstream's VerifyAdmissionResponse
// (request/admissionreview.go). For v1: a response, its uid, the
// review's apiVersion/kind, and for a mutating webhook patch and
// patchType together (a patchType other than JSONPatch is refused later,
// when the patch is applied); a validating webhook may return neither.
// For v1beta1 only a response: uid and apiVersion/kind are not checked,
// a mutating webhook's patch is a JSONPatch whatever its patchType, and
// a validating webhook's patch is ignored. r's Patch and PatchType are
// normalised so.
func verifyResponse(version, uid string, mutating bool, r *admissionReviewResponse) error {
	if r.Response == nil {
		return fmt.Errorf("webhook response was absent")
	}
	resp := r.Response
	if version != reviewV1 {
		if !mutating || len(resp.Patch) == 0 {
			resp.Patch, resp.PatchType = nil, nil
			return nil
		}
		jp := "JSONPatch"
		resp.PatchType = &jp
		return nil
	}
	if resp.UID != uid {
		return fmt.Errorf("expected response.uid=%q, got %q", uid, resp.UID)
	}
	if r.APIVersion != reviewV1 || r.Kind != "AdmissionReview" {
		g, v, _ := ParseGroupVersion(r.APIVersion)
		return fmt.Errorf("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got %s", gvkString(g, v, r.Kind))
	}
	if !mutating {
		if len(resp.Patch) > 0 {
			return fmt.Errorf("validating webhook may not return response.patch")
		}
		if resp.PatchType != nil {
			return fmt.Errorf("validating webhook may not return response.patchType")
		}
		return nil
	}
	if len(resp.Patch) > 0 && resp.PatchType == nil {
		return fmt.Errorf("webhook returned response.patch but not response.patchType")
	}
	if resp.PatchType != nil && len(resp.Patch) == 0 {
		return fmt.Errorf("webhook returned response.patchType but not response.patch")
	}
	if resp.PatchType != nil && *resp.PatchType == "" {
		return fmt.Errorf("webhook returned invalid response.patchType of %q", "")
	}
	return nil
}

// patchTypeOf returns the response's patchType ("" when none).
func patchTypeOf(r *admissionResponse) string {
	if r.PatchType == nil {
		return ""
	}
	return *r.PatchType
}
