package apidoc

import (
	"fmt"
	"strings"
)

// ParseComment splits the text lines of a doc comment (without the "//"
// and the one space after it) into the description and the markers, by
// the conventions of the package comment. Errors: a marker without a key.
func ParseComment(lines []string) (doc string, markers Markers, err error) {
	var b strings.Builder
	ended := false    // a "---" line was seen
	pending := ""     // separator before the next description line
	indented := false // the previous description line was indented
	for _, line := range lines {
		line = strings.TrimRight(line, " \t")
		if trimmed := strings.TrimLeft(line, " \t"); strings.HasPrefix(trimmed, "+") {
			key, value, _ := strings.Cut(trimmed[1:], "=")
			if key == "" {
				return "", nil, fmt.Errorf("marker without a key: %q", line)
			}
			if markers == nil {
				markers = Markers{}
			}
			markers[key] = append(markers[key], value)
			continue
		}
		if ended {
			continue
		}
		switch {
		case line == "---":
			ended = true
		case line == "":
			if b.Len() > 0 {
				pending = "\n\n"
			}
			indented = false
		default:
			isIndented := line[0] == ' ' || line[0] == '\t'
			if b.Len() > 0 {
				switch {
				case pending != "":
					b.WriteString(pending)
				case isIndented || indented:
					b.WriteByte('\n')
				default:
					b.WriteByte(' ')
				}
			}
			pending = ""
			indented = isIndented
			b.WriteString(line)
		}
	}
	return b.String(), markers, nil
}
