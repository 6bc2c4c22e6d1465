package aggregatortest

import (
	"slices"
	"strings"
	"testing"
)

// The replays blank managedFields times ("time":"X"), but upstream orders
// the entries by operation, then time at second granularity, then
// manager: whether a create and a later write fell in the same second
// decides their entries' order, on the reference as on aggsim. The
// comparisons therefore put the entries of every managedFields list in
// the order of their text on both sides (normalizeGolden), keeping every
// other field's order checked. The entries' order itself is pinned by
// the managedFields tests, which control the clock.

// sortManagedFieldsText returns s, a JSON text, with the elements of each
// "managedFields" array put in the order of their text, in the places the
// elements had (separators kept). Text that does not parse is left as it
// is.
func sortManagedFieldsText(s string) string {
	const key = `"managedFields":`
	var b strings.Builder
	for {
		i := strings.Index(s, key)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := i + len(key)
		for j < len(s) && strings.IndexByte(" \n\t", s[j]) >= 0 {
			j++
		}
		spans, ok := arrayElements(s, j)
		if !ok || len(spans) == 0 {
			b.WriteString(s[:j])
			s = s[j:]
			continue
		}
		texts := make([]string, len(spans))
		for k, sp := range spans {
			texts[k] = s[sp[0]:sp[1]]
		}
		slices.Sort(texts)
		b.WriteString(s[:spans[0][0]])
		for k, t := range texts {
			b.WriteString(t)
			if k+1 < len(spans) {
				b.WriteString(s[spans[k][1]:spans[k+1][0]]) // the separator
			}
		}
		s = s[spans[len(spans)-1][1]:]
	}
}

// arrayElements returns the [start, end) offsets of the elements of the
// JSON array whose '[' is at s[open]; ok is false when s[open] is not '['
// or the array does not close.
func arrayElements(s string, open int) (spans [][2]int, ok bool) {
	if open >= len(s) || s[open] != '[' {
		return nil, false
	}
	depth, inStr, start, last := 0, false, -1, -1
	for k := open; k < len(s); k++ {
		c := s[k]
		if inStr {
			if c == '\\' {
				k++
			} else if c == '"' {
				inStr = false
				last = k
			}
			continue
		}
		switch {
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			continue
		case c == '[' || c == '{':
			if depth == 1 && start < 0 {
				start = k
			}
			depth++
		case c == ']' || c == '}':
			depth--
			if depth == 0 {
				if start >= 0 {
					spans = append(spans, [2]int{start, last + 1})
				}
				return spans, true
			}
		case c == ',' && depth == 1:
			spans = append(spans, [2]int{start, last + 1})
			start = -1
			continue
		default:
			if depth == 1 && start < 0 {
				start = k
			}
		}
		if c == '"' {
			inStr = true
		}
		last = k
	}
	return nil, false
}

// Entries that only their times ordered compare equal in either order;
// everything around them is kept byte for byte.
func TestSortManagedFieldsText(t *testing.T) {
	a := `{"metadata": {"managedFields": [
  {"manager": "fm", "fieldsV1": {"f:a": {}}},
  {"manager": "curl", "fieldsV1": {"f:b": {"k:{\"x\":\"]\"}": {}}}}
 ], "name": "x"}}`
	b := `{"metadata": {"managedFields": [
  {"manager": "curl", "fieldsV1": {"f:b": {"k:{\"x\":\"]\"}": {}}}},
  {"manager": "fm", "fieldsV1": {"f:a": {}}}
 ], "name": "x"}}`
	if ga, gb := sortManagedFieldsText(a), sortManagedFieldsText(b); ga != gb || ga != b {
		t.Fatalf("sorted\n%s\n%s\nwant both\n%s", ga, gb, b)
	}
	c := strings.Replace(b, `"name": "x"`, `"name": "y"`, 1)
	if sortManagedFieldsText(c) == sortManagedFieldsText(a) {
		t.Fatal("a difference outside managedFields was hidden")
	}
	if s := `{"managedFields": [1, [2, 3], "a,b"]}`; sortManagedFieldsText(s) != `{"managedFields": ["a,b", 1, [2, 3]]}` {
		t.Fatalf("scalars and nested arrays: %s", sortManagedFieldsText(s))
	}
}
