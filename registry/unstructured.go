package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Unstructured is a custom resource: apiVersion, kind and metadata are
// interpreted, everything else is kept as decoded JSON (numbers as
// json.Number). It encodes as upstream's unstructured objects do: one JSON
// object with its keys, metadata's included, in sorted order (upstream
// k8s.io/apimachinery/pkg/apis/meta/v1/unstructured).
type Unstructured struct {
	meta.TypeMeta
	// ObjectMeta is the object's metadata. Its tag names where it sits in
	// the JSON (MarshalJSON writes it there) for the reflection over wire
	// types (MergeKeysOf, AtomicListElementsOf): managedFields then own
	// metadata.finalizers as a set and metadata.ownerReferences by uid,
	// as for every kind.
	meta.ObjectMeta `json:"metadata"`
	// Content holds every top-level field but apiVersion, kind and
	// metadata.
	Content map[string]any
}

var _ meta.Object = (*Unstructured)(nil)

// GetTypeMeta returns the object's TypeMeta.
func (u *Unstructured) GetTypeMeta() *meta.TypeMeta { return &u.TypeMeta }

// GetObjectMeta returns the object's ObjectMeta.
func (u *Unstructured) GetObjectMeta() *meta.ObjectMeta { return &u.ObjectMeta }

// Object returns the whole object as a map (metadata included, as
// decoded JSON); changing Content through it changes u, changes to the
// metadata map do not.
func (u *Unstructured) Object() (map[string]any, error) {
	m := make(map[string]any, len(u.Content)+3)
	maps.Copy(m, u.Content)
	if u.APIVersion != "" {
		m["apiVersion"] = u.APIVersion
	}
	if u.Kind != "" {
		m["kind"] = u.Kind
	}
	mb, err := json.Marshal(u.ObjectMeta)
	if err != nil {
		return nil, err
	}
	md, err := decodeJSONMap(mb)
	if err != nil {
		return nil, err
	}
	m["metadata"] = md
	return m, nil
}

// SetObject replaces u with the map m (as Object returns it). Errors: a
// metadata, apiVersion or kind of the wrong type.
func (u *Unstructured) SetObject(m map[string]any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return u.UnmarshalJSON(b)
}

// MarshalJSON encodes the object with sorted keys.
func (u Unstructured) MarshalJSON() ([]byte, error) {
	m, err := u.Object()
	if err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// UnmarshalJSON decodes a JSON object; apiVersion and kind must be
// strings and metadata an ObjectMeta.
func (u *Unstructured) UnmarshalJSON(b []byte) error {
	m, err := decodeJSONMap(b)
	if err != nil {
		return err
	}
	if m == nil {
		return errors.New("Object 'Kind' is missing in 'null'")
	}
	*u = Unstructured{}
	for _, k := range []string{"apiVersion", "kind"} {
		v, ok := m[k]
		if !ok || v == nil {
			continue
		}
		s, isStr := v.(string)
		if !isStr {
			return errors.New(k + " must be a string")
		}
		if k == "kind" {
			u.Kind = s
		} else {
			u.APIVersion = s
		}
	}
	if md, ok := m["metadata"]; ok && md != nil {
		mb, _ := json.Marshal(md)
		if err := json.Unmarshal(mb, &u.ObjectMeta); err != nil {
			return err
		}
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	delete(m, "metadata")
	u.Content = canonicalNumbers(m).(map[string]any)
	return nil
}

// decodeJSONMap decodes b (a JSON object or null) with UseNumber.
func decodeJSONMap(b []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}
