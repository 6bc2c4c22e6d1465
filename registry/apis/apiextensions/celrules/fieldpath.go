package celrules

import (
	"strconv"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/structural"
)

// normalizeFieldPath checks a rule's fieldPath against the schema of the
// rule's node and returns it in field.Path form (ValidFieldPath in
// apiextensions' schema/cel/validation.go): ".a.b" and "['a.b']" select
// properties (or additionalProperties keys, printed "a[key]"); array
// notation is not allowed.
func normalizeFieldPath(jsonPath string, n structural.Node) (string, bool) {
	out := ""
	rest := jsonPath
	for rest != "" {
		var name string
		switch {
		case rest[0] == '.':
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			name, rest = rest[:end], rest[end:]
			if name == "" {
				return "", false
			}
		case strings.HasPrefix(rest, "['"):
			end := strings.Index(rest[2:], "']")
			if end < 0 {
				return "", false
			}
			lit := rest[2 : 2+end]
			uq, err := strconv.Unquote(`"` + strings.ReplaceAll(strings.ReplaceAll(lit, `"`, `\"`), `\'`, `'`) + `"`)
			if err != nil {
				return "", false
			}
			name, rest = uq, rest[2+end+2:]
		default:
			return "", false
		}
		if p := n.Property(name); n.Exists() && p.Exists() {
			out = child(out, name)
			n = p
		} else if ap := n.AdditionalProperties(); n.Exists() && ap.Exists() {
			out = out + "[" + name + "]"
			n = ap
		} else {
			return "", false
		}
	}
	return out, out != ""
}
