package demo

import (
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Group is the API group the demo backend serves.
const Group = "wardle.example.com"

// The versions the demo backend serves, as the upstream sample
// (k8s.io/sample-apiserver/pkg/apis/wardle/{v1alpha1,v1beta1}). Both share
// one storage.
const (
	V1alpha1 = "v1alpha1"
	V1beta1  = "v1beta1"
)

// Versions returns the served versions in the backend's own preference
// order (the sample's scheme prefers v1beta1).
func Versions() []string { return []string{V1beta1, V1alpha1} }

// ReferenceType says what FlunderSpec.Reference names (upstream
// wardle/v1alpha1 ReferenceType).
type ReferenceType string

// The two reference types a flunder may use.
const (
	FlunderReferenceType ReferenceType = "Flunder"
	FischerReferenceType ReferenceType = "Fischer"
)

// Flunder is the sample's namespaced resource (upstream
// wardle/v1alpha1/types.go Flunder). The same Go type serves v1alpha1 and
// v1beta1 (see the package doc on conversion).
type Flunder struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Spec is what the user asked for.
	Spec FlunderSpec `json:"spec,omitempty"`
	// Status is written through /status only.
	Status FlunderStatus `json:"status,omitempty"`
}

// FlunderSpec mirrors upstream's v1alpha1 FlunderSpec.
type FlunderSpec struct {
	// Reference is the name of another flunder or of a fischer, depending on
	// ReferenceType; required when ReferenceType is set.
	Reference string `json:"reference,omitempty"`
	// ReferenceType is "Flunder", "Fischer" or empty.
	ReferenceType ReferenceType `json:"referenceType,omitempty"`
}

// FlunderStatus mirrors upstream's (empty) FlunderStatus; Conditions is an
// aggsim addition so that /status has something to write.
type FlunderStatus struct {
	// Conditions are free-form conditions written through /status.
	Conditions []meta.Condition `json:"conditions,omitempty"`
}

// Fischer is the sample's cluster-scoped resource (upstream
// wardle/v1alpha1/types.go Fischer): it names flunders that may not exist.
type Fischer struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// DisallowedFlunders lists names a flunder may not have.
	DisallowedFlunders []string `json:"disallowedFlunders,omitempty"`
}
