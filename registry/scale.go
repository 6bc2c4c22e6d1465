package registry

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Scale is autoscaling/v1 Scale as a custom resource's /scale
// subresource serves it (upstream k8s.io/api/autoscaling/v1.Scale; only
// the metadata fields upstream's scale handler copies).
type Scale struct {
	meta.TypeMeta `json:",inline"`
	Metadata      ScaleMeta   `json:"metadata"`
	Spec          ScaleSpec   `json:"spec"`
	Status        ScaleStatus `json:"status"`
}

// ScaleMeta is the metadata of a Scale: the object's name, namespace,
// uid, resourceVersion and creationTimestamp.
type ScaleMeta struct {
	Name              string    `json:"name,omitempty"`
	Namespace         string    `json:"namespace,omitempty"`
	UID               string    `json:"uid,omitempty"`
	ResourceVersion   string    `json:"resourceVersion,omitempty"`
	CreationTimestamp meta.Time `json:"creationTimestamp,omitzero"`
}

// ScaleSpec is the desired replica count (omitted when 0, as upstream).
type ScaleSpec struct {
	Replicas int32 `json:"replicas,omitempty"`
}

// ScaleStatus is the observed replica count and the label selector.
type ScaleStatus struct {
	Replicas int32  `json:"replicas"`
	Selector string `json:"selector,omitempty"`
}

// ScaleProvider is an optional Strategy extension of resources with a
// /scale subresource (custom resources with subresources.scale).
type ScaleProvider interface {
	// ScaleOf returns obj's Scale. Errors: a replicas value that is not
	// an integer.
	ScaleOf(obj meta.Object) (*Scale, error)
	// SetReplicas sets obj's desired replicas.
	SetReplicas(obj meta.Object, replicas int32) error
}

var _ ScaleProvider = (*CustomResourceStrategy)(nil)

// ScaleOf reads spec and status replicas and the selector through the
// version's scale paths.
func (s *CustomResourceStrategy) ScaleOf(obj meta.Object) (*Scale, error) {
	sc := s.version.Subresources.Scale
	u := obj.(*Unstructured)
	m, err := u.Object()
	if err != nil {
		return nil, err
	}
	out := &Scale{
		TypeMeta: meta.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		Metadata: ScaleMeta{Name: u.Name, Namespace: u.Namespace, UID: u.UID, ResourceVersion: u.ResourceVersion, CreationTimestamp: u.CreationTimestamp},
	}
	replicas := func(path string) (int32, error) {
		v, ok := evalSimpleJSONPath(m, path)
		if !ok || v == nil {
			return 0, nil
		}
		n, isNum := v.(json.Number)
		i, err := n.Int64()
		if !isNum || err != nil {
			return 0, fmt.Errorf("value at %s is not an integer: %v", path, v)
		}
		return int32(i), nil
	}
	if out.Spec.Replicas, err = replicas(sc.SpecReplicasPath); err != nil {
		return nil, err
	}
	if out.Status.Replicas, err = replicas(sc.StatusReplicasPath); err != nil {
		return nil, err
	}
	if p := sc.LabelSelectorPath; p != nil && *p != "" {
		if v, ok := evalSimpleJSONPath(m, *p); ok {
			if sel, ok := v.(string); ok {
				out.Status.Selector = sel
			}
		}
	}
	return out, nil
}

// SetReplicas writes replicas at the spec replicas path, creating the
// objects on the way.
func (s *CustomResourceStrategy) SetReplicas(obj meta.Object, replicas int32) error {
	u := obj.(*Unstructured)
	if u.Content == nil {
		u.Content = map[string]any{}
	}
	segs := strings.Split(strings.TrimPrefix(s.version.Subresources.Scale.SpecReplicasPath, "."), ".")
	cur := u.Content
	for _, seg := range segs[:len(segs)-1] {
		next, ok := cur[seg].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[seg] = next
		}
		cur = next
	}
	cur[segs[len(segs)-1]] = json.Number(fmt.Sprint(replicas))
	return nil
}
