package registry

import "github.com/aggsim/aggsim/registry/apis/meta"

// selector is the compiled label + field selector of one list or watch.
type selector struct {
	labels meta.LabelSelector
	fields meta.FieldSelector
}

func (s selector) empty() bool { return len(s.labels) == 0 && len(s.fields) == 0 }
