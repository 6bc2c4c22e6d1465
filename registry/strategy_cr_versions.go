package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// StorageCodec is an optional Strategy extension for resources whose
// stored form is not the served one (custom resources of a CRD with
// several versions): the Store decodes stored bytes with FromStorage and
// encodes objects for storage with ToStorage instead of plain JSON.
// Errors are returned to the client as they are when they are
// *meta.StatusError (a failed conversion webhook), else as 500
// InternalError.
type StorageCodec interface {
	// FromStorage decodes stored bytes into an object of the served
	// version (converted, pruned and defaulted as upstream's storage
	// codec does).
	FromStorage(value []byte) (meta.Object, error)
	// ToStorage encodes obj (of the served version; not changed) in the
	// storage version.
	ToStorage(obj meta.Object) ([]byte, error)
	// Converts reports whether the served version is not the storage
	// version (writes then answer the stored object read back).
	Converts() bool
}

// RequestWarner is an optional Strategy extension: RequestWarning is
// added as a Warning header to every request the resource serves
// (upstream's crdHandler warns so on every request to a deprecated CRD
// version); "" adds nothing.
type RequestWarner interface {
	RequestWarning() string
}

// CRConverter converts custom resources of one CRD between its versions
// (upstream apiextensions-apiserver/pkg/apiserver/conversion): obj is a
// whole object (apiVersion, kind, metadata included) in any version of
// the CRD; Convert returns it in toAPIVersion ("<group>/<version>"). obj
// may be changed. Errors are *meta.StatusError with upstream's code and
// message.
type CRConverter interface {
	Convert(obj map[string]any, toAPIVersion string) (map[string]any, error)
}

// NoneConverter is the None conversion strategy: only apiVersion is
// rewritten (upstream nopConverter).
type NoneConverter struct{}

// Convert sets obj's apiVersion to toAPIVersion.
func (NoneConverter) Convert(obj map[string]any, toAPIVersion string) (map[string]any, error) {
	obj["apiVersion"] = toAPIVersion
	return obj, nil
}

var (
	_ StorageCodec  = (*CustomResourceStrategy)(nil)
	_ RequestWarner = (*CustomResourceStrategy)(nil)
)

// RequestWarning returns the deprecation warning of a deprecated version
// (CustomResourceStrategy.Deprecation), else "".
func (s *CustomResourceStrategy) RequestWarning() string {
	if !s.version.Deprecated {
		return ""
	}
	return s.Deprecation
}

// converter returns the CRD's converter (None when unset).
func (s *CustomResourceStrategy) converter() CRConverter {
	if s.Converter != nil {
		return s.Converter
	}
	return NoneConverter{}
}

// apiVersionOf returns "<group>/<version>".
func (s *CustomResourceStrategy) apiVersionOf(version string) string {
	return s.crd.Spec.Group + "/" + version
}

// schemaOf returns the schema of another version of the CRD, built on
// first use (nil: no such version or a schema that does not build).
func (s *CustomResourceStrategy) schemaOf(version string) CRSchema {
	if version == s.version.Name {
		return s.schema
	}
	s.schemasMu.Lock()
	defer s.schemasMu.Unlock()
	if sch, ok := s.schemas[version]; ok {
		return sch
	}
	if s.schemas == nil {
		s.schemas = map[string]CRSchema{}
	}
	var sch CRSchema
	for i, v := range s.crd.Spec.Versions {
		if v.Name != version {
			continue
		}
		sch = acceptAllSchema{}
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			raw, err := json.Marshal(v.Schema.OpenAPIV3Schema)
			if err == nil {
				if c, errs := NewCRSchema(raw, apiextensions.SchemaPath(&s.crd.Spec, i)); c != nil && len(errs) == 0 {
					sch = c
				}
			}
		}
	}
	s.schemas[version] = sch
	return sch
}

// coerce prunes obj with the schema of version (unknown fields, then the
// nulls that are neither nullable nor defaulted), as upstream's
// unstructuredSchemaCoercer does after decoding and converting.
func (s *CustomResourceStrategy) coerce(obj map[string]any, version string) {
	if sch := s.schemaOf(version); sch != nil {
		sch.Prune(obj)
		sch.PruneNulls(obj)
	}
}

// FromStorage decodes a stored object as upstream's CR storage codec: in
// its stored version it is pruned and defaulted with that version's
// schema, then converted to the served version and pruned with the
// served version's schema. An object stored in the served version is
// only defaulted (it was pruned with the same schema when written).
func (s *CustomResourceStrategy) FromStorage(value []byte) (meta.Object, error) {
	u := &Unstructured{}
	if err := json.Unmarshal(value, u); err != nil {
		return nil, err
	}
	want := s.apiVersionOf(s.version.Name)
	if u.APIVersion == "" || u.APIVersion == want {
		s.Default(u)
		return u, nil
	}
	m, err := u.Object()
	if err != nil {
		return nil, err
	}
	if g, v, ok := strings.Cut(u.APIVersion, "/"); ok && g == s.crd.Spec.Group {
		s.coerce(m, v)
		if sch := s.schemaOf(v); sch != nil {
			sch.Default(m)
		}
	}
	m, err = s.converter().Convert(m, want)
	if err != nil {
		return nil, err
	}
	s.coerce(m, s.version.Name)
	out := &Unstructured{}
	if err := out.SetObject(m); err != nil {
		return nil, fmt.Errorf("converted object: %w", err)
	}
	return out, nil
}

// Converts reports whether the served version is not the storage
// version.
func (s *CustomResourceStrategy) Converts() bool {
	storage := apiextensions.StorageVersion(s.crd)
	return storage != "" && storage != s.version.Name
}

// ToStorage encodes obj in the storage version: converted (a deep copy)
// and pruned with the storage version's schema, as upstream's storage
// codec encodes; in the served version when that is the storage version.
func (s *CustomResourceStrategy) ToStorage(obj meta.Object) ([]byte, error) {
	storage := apiextensions.StorageVersion(s.crd)
	if storage == "" || storage == s.version.Name {
		return json.Marshal(obj)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	m, err := decodeJSONMap(b) // a deep copy: conversion may change it
	if err != nil {
		return nil, err
	}
	m, err = s.converter().Convert(m, s.apiVersionOf(storage))
	if err != nil {
		return nil, err
	}
	s.coerce(m, storage)
	// keys sorted, as Unstructured encodes
	return json.Marshal(m)
}

// crVersionSchemas holds the schemas of a CRD's other versions, built on
// first use.
type crVersionSchemas struct {
	schemasMu sync.Mutex
	schemas   map[string]CRSchema
}

// decodeErr keeps a *meta.StatusError (a failed conversion) and wraps
// anything else with the resource's name.
func decodeErr(resource string, err error) error {
	if _, ok := err.(*meta.StatusError); ok {
		return err
	}
	return fmt.Errorf("decode %s: %w", resource, err)
}

// internalErr returns err when it is a *meta.StatusError (wrapped or
// not), else a 500 InternalError with its text.
func internalErr(err error) error {
	var se *meta.StatusError
	if errors.As(err, &se) {
		return se
	}
	return meta.NewInternalError(err)
}

// readBack returns what a write of obj stored (b at revision rev) reads
// as, as upstream's store decodes the stored bytes into its answer: for a
// StorageCodec strategy of a version other than the storage version the
// stored object converted back to the served version; else obj itself
// (which reads back the same: defaulted and pruned by the same schema).
func (s *Store) readBack(obj meta.Object, b []byte, rev int64) (meta.Object, error) {
	if c, ok := s.strategy.(StorageCodec); !ok || !c.Converts() {
		return obj, nil
	}
	out, err := s.decode(b, rev)
	if err != nil {
		return nil, internalErr(err)
	}
	return out, nil
}

// dryRunReadBack is readBack for a dry run: upstream's dry-run storage
// copies the object through the storage codec too.
func (s *Store) dryRunReadBack(obj meta.Object) (meta.Object, error) {
	if c, ok := s.strategy.(StorageCodec); !ok || !c.Converts() {
		return obj, nil
	}
	b, err := s.encode(obj)
	if err != nil {
		return nil, internalErr(err)
	}
	rv := obj.GetObjectMeta().ResourceVersion
	out, err := s.decode(b, 0)
	if err != nil {
		return nil, internalErr(err)
	}
	out.GetObjectMeta().ResourceVersion = rv
	return out, nil
}
