package registry

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// MutatedDecoder is an optional Strategy extension: DecodeMutated decodes
// an object a mutating admission webhook patched, in place of plain JSON
// decoding (AdmissionAttributes.Decode). Errors that are
// *meta.StatusError are the request's answer as they are.
type MutatedDecoder interface {
	DecodeMutated(b []byte) (meta.Object, error)
}

var _ MutatedDecoder = (*CustomResourceStrategy)(nil)

// DecodeMutated decodes a custom resource a mutating webhook patched as
// kube-apiserver 1.33.13 treats it (measured): an apiVersion that is no
// version of the CRD fails as upstream's converter does (500 without
// reason, `request to convert CR from an invalid group/version: <gv>`),
// another version of the CRD is converted to the served one, a kind other
// than the CRD's is refused as upstream's validation refuses it (422
// `<Kind>.<group> "<name>" is invalid: kind: Invalid value: "<Kind>":
// must be <CRD kind>`); the object is then defaulted (upstream's
// dispatcher defaults after each patch) and pruned of fields its schema
// does not know (upstream prunes when it stores the object, so its
// validating webhooks still see them; aggsim's do not).
func (s *CustomResourceStrategy) DecodeMutated(b []byte) (meta.Object, error) {
	u := &Unstructured{}
	if err := json.Unmarshal(b, u); err != nil {
		return nil, err
	}
	want := s.apiVersionOf(s.version.Name)
	m, err := u.Object()
	if err != nil {
		return nil, err
	}
	if u.APIVersion != want {
		g, v, _ := strings.Cut(u.APIVersion, "/")
		known := false
		for _, cv := range s.crd.Spec.Versions {
			known = known || (g == s.crd.Spec.Group && v == cv.Name)
		}
		if !known {
			return nil, &meta.StatusError{Status: meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status: "Failure", Code: http.StatusInternalServerError,
				Message: fmt.Sprintf("request to convert CR from an invalid group/version: %s", u.APIVersion)}}
		}
		if m, err = s.converter().Convert(m, want); err != nil {
			return nil, err
		}
	}
	if kind := s.crd.Spec.Names.Kind; u.Kind != kind {
		return nil, meta.NewInvalid(s.crd.Spec.Group, u.Kind, u.Name,
			meta.FieldErrors{meta.Invalid("kind", u.Kind, "must be "+kind)})
	}
	s.coerce(m, s.version.Name)
	out := &Unstructured{}
	if err := out.SetObject(m); err != nil {
		return nil, err
	}
	s.Default(out)
	return out, nil
}

// VersionConverter is an optional Strategy extension for a resource
// served in several versions of its group (custom resources), for
// admission's matchPolicy Equivalent: EquivalentVersions lists the other
// served versions in spec.versions order (upstream's equivalent
// resources), ConvertToVersion returns a copy of obj in one of them
// (converted as reads are; a conversion webhook's errors are returned as
// they are).
type VersionConverter interface {
	EquivalentVersions() []string
	ConvertToVersion(obj meta.Object, version string) (meta.Object, error)
}

var _ VersionConverter = (*CustomResourceStrategy)(nil)

// EquivalentVersions lists the CRD's served versions other than this
// store's.
func (s *CustomResourceStrategy) EquivalentVersions() []string {
	var out []string
	for _, v := range s.crd.Spec.Versions {
		if v.Served && v.Name != s.version.Name {
			out = append(out, v.Name)
		}
	}
	return out
}

// ConvertToVersion converts a deep copy of obj to version with the CRD's
// converter.
func (s *CustomResourceStrategy) ConvertToVersion(obj meta.Object, version string) (meta.Object, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	m, err := decodeJSONMap(b)
	if err != nil {
		return nil, err
	}
	if m, err = s.converter().Convert(m, s.apiVersionOf(version)); err != nil {
		return nil, err
	}
	out := &Unstructured{}
	if err := out.SetObject(m); err != nil {
		return nil, err
	}
	return out, nil
}
