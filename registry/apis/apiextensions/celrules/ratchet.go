package celrules

import (
	"fmt"
	"reflect"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/structural"
)

// corrNode pairs a value of the new object with the old value it
// correlates to (CorrelatedObject in apiserver/pkg/cel/common/equality.go).
type corrNode struct {
	new, old any
	s        structural.Node
	eq       *bool
}

// ratchet is the correlation of the node being validated and of its
// nearest correlated parent (ratchetingOptions upstream).
type ratchet struct {
	cur, parent *corrNode
}

func (r ratchet) key(field string, atRoot bool) ratchet {
	if r.cur == nil {
		return r
	}
	if r.parent == nil && atRoot && (field == "apiVersion" || field == "kind") {
		return ratchet{}
	}
	return ratchet{cur: r.cur.key(field), parent: r.cur}
}

func (r ratchet) index(i int) ratchet {
	if r.cur == nil {
		return r
	}
	return ratchet{cur: r.cur.index(i), parent: r.cur}
}

// shouldRatchet reports whether the node's value is unchanged (or, where
// it does not correlate, its nearest parent's).
func (r ratchet) shouldRatchet() bool {
	if r.cur != nil {
		return r.cur.equal()
	}
	return r.parent.equal()
}

func (c *corrNode) key(field string) *corrNode {
	if c == nil || !c.s.Exists() {
		return nil
	}
	om, ok1 := c.old.(map[string]any)
	nm, ok2 := c.new.(map[string]any)
	if !ok1 || !ok2 {
		return nil
	}
	ov, ok1 := om[field]
	nv, ok2 := nm[field]
	if !ok1 || !ok2 {
		return nil
	}
	s := c.s.Property(field)
	if !s.Exists() {
		s = c.s.AdditionalProperties()
	}
	if !s.Exists() {
		return nil
	}
	return &corrNode{new: nv, old: ov, s: s}
}

func (c *corrNode) index(i int) *corrNode {
	if c == nil || !c.s.Exists() || c.s.XListType() != "map" {
		return nil
	}
	ol, ok1 := c.old.([]any)
	nl, ok2 := c.new.([]any)
	if !ok1 || !ok2 || i >= len(nl) {
		return nil
	}
	ov := findByKeys(ol, nl[i], c.s.XListMapKeys())
	if ov == nil || !c.s.Items().Exists() {
		return nil
	}
	return &corrNode{new: nl[i], old: ov, s: c.s.Items()}
}

// equal is CachedDeepEqual: maps by key, list-type map items by their
// keys, other lists and scalars with reflect.DeepEqual.
func (c *corrNode) equal() bool {
	if c == nil {
		return false
	}
	if c.eq != nil {
		return *c.eq
	}
	res := c.computeEqual()
	c.eq = &res
	return res
}

func (c *corrNode) computeEqual() bool {
	if c.new == nil && c.old == nil {
		return true
	} else if c.new == nil || c.old == nil {
		return false
	}
	switch n := c.new.(type) {
	case []any:
		o, ok := c.old.([]any)
		if !ok || len(o) != len(n) {
			return false
		}
		if c.s.XListType() != "map" {
			return reflect.DeepEqual(o, n)
		}
		for i := range n {
			ch := c.index(i)
			if ch == nil || !ch.equal() {
				return false
			}
		}
		return true
	case map[string]any:
		o, ok := c.old.(map[string]any)
		if !ok || len(o) != len(n) {
			return false
		}
		for k := range n {
			ch := c.key(k)
			if ch == nil || !ch.equal() {
				return false
			}
		}
		return true
	}
	if _, ok := c.old.([]any); ok {
		return false
	}
	if _, ok := c.old.(map[string]any); ok {
		return false
	}
	return reflect.DeepEqual(c.old, c.new) || fmt.Sprint(c.old) == fmt.Sprint(c.new) && reflect.TypeOf(c.old) == reflect.TypeOf(c.new)
}
