package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
)

// columnPath is a compiled additionalPrinterColumns JSONPath in the
// dialect of Kubernetes' jsonpath templates (k8s.io/client-go/util/jsonpath,
// as upstream's tableconvertor parses `{<jsonPath>}` with missing keys
// allowed): fields (`.a`, `.a\.b` with escaped dots), `..` (recursive
// descent), `.*`, and brackets holding an index or slice (`[0]`, `[-1]`,
// `[1:]`, `[0:3:2]`, `[*]`), a quoted key (`['a']`, read again as `.a`
// so `['a.b']` is `.a.b`), a union (`[0,2]`) or a filter
// (`[?(@.type=="Ready")]`, `[?(@.n >= 2)]`, `[?(@.flag)]`).
type columnPath []jpNode

// jpNode is one step of a columnPath.
type jpNode struct {
	kind      jpKind
	field     string       // jpField
	idx       [3]jpInt     // jpArray: start, end, step
	union     []columnPath // jpUnion: one path per member
	left      columnPath   // jpFilter: evaluated on each element
	op        string       // jpFilter: "exists", "==", "!=", "<", ">", "<=", ">="
	right     columnPath   // jpFilter: a path, or a literal
	literal   any          // jpLiteral: string, int64, float64 or bool
	isLiteral bool
}

type jpKind int

const (
	jpField jpKind = iota
	jpWildcard
	jpRecursive
	jpArray
	jpUnion
	jpFilter
	jpCurrent
	jpLiteral
)

// jpInt is one slice parameter; derived marks the end of a single index.
type jpInt struct {
	value          int
	known, derived bool
}

// compileColumns compiles the JSONPaths of columns in order and, as
// upstream's tableconvertor.New does, keeps only the columns before the
// first path that does not parse (kube-apiserver 1.33.13 listed the
// columns of a CRD up to, not including, `.metadata["labels"].app`).
func compileColumns(columns []apiextensions.CustomResourceColumnDefinition) ([]apiextensions.CustomResourceColumnDefinition, []columnPath) {
	paths := make([]columnPath, 0, len(columns))
	for i, c := range columns {
		p, err := parseColumnPath(c.JSONPath)
		if err != nil {
			return columns[:i], paths
		}
		paths = append(paths, p)
	}
	return columns, paths
}

// parseColumnPath parses one printer-column path; errors name what is
// wrong, as upstream's parser refuses it.
func parseColumnPath(s string) (columnPath, error) {
	p := &jpParser{s: s}
	out, err := p.parse(false)
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.s) {
		return nil, fmt.Errorf("unexpected %q at %d", p.s[p.pos:], p.pos)
	}
	return out, nil
}

type jpParser struct {
	s   string
	pos int
}

func isJPTerminator(c byte) bool {
	switch c {
	case ' ', '.', ',', '[', ']', '$', '@', '{', '}', '(', ')', '=', '!', '<', '>', '\'', '"':
		return true
	}
	return false
}

// parse reads nodes until the end (or, in a filter operand, a literal).
func (p *jpParser) parse(operand bool) (columnPath, error) {
	var out columnPath
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == ' ':
			p.pos++
		case c == '$' && len(out) == 0:
			p.pos++
		case c == '@':
			p.pos++
			out = append(out, jpNode{kind: jpCurrent})
		case c == '.':
			if strings.HasPrefix(p.s[p.pos:], "..") {
				p.pos++
				out = append(out, jpNode{kind: jpRecursive})
				if p.pos+1 < len(p.s) && p.s[p.pos+1] == '[' {
					p.pos++
					continue
				}
			}
			p.pos++
			f := p.field()
			switch f {
			case "":
				// "." alone (the object itself)
			case "*":
				out = append(out, jpNode{kind: jpWildcard})
			default:
				out = append(out, jpNode{kind: jpField, field: f})
			}
		case c == '[':
			n, err := p.bracket()
			if err != nil {
				return nil, err
			}
			out = append(out, n...)
		case operand && (c == '\'' || c == '"'):
			end := strings.IndexByte(p.s[p.pos+1:], c)
			if end < 0 {
				return nil, errors.New("unterminated quoted string")
			}
			out = append(out, jpNode{kind: jpLiteral, literal: p.s[p.pos+1 : p.pos+1+end], isLiteral: true})
			p.pos += end + 2
		case operand && (c == '-' || c >= '0' && c <= '9'):
			start := p.pos
			for p.pos < len(p.s) && strings.IndexByte("+-.eE0123456789", p.s[p.pos]) >= 0 {
				p.pos++
			}
			t := p.s[start:p.pos]
			if i, err := strconv.ParseInt(t, 10, 64); err == nil {
				out = append(out, jpNode{kind: jpLiteral, literal: i, isLiteral: true})
			} else if f, err := strconv.ParseFloat(t, 64); err == nil {
				out = append(out, jpNode{kind: jpLiteral, literal: f, isLiteral: true})
			} else {
				return nil, fmt.Errorf("cannot parse number %q", t)
			}
		case operand && (strings.HasPrefix(p.s[p.pos:], "true") || strings.HasPrefix(p.s[p.pos:], "false")):
			b := strings.HasPrefix(p.s[p.pos:], "true")
			p.pos += map[bool]int{true: 4, false: 5}[b]
			out = append(out, jpNode{kind: jpLiteral, literal: b, isLiteral: true})
		default:
			return nil, fmt.Errorf("unrecognized character %q", c)
		}
	}
	return out, nil
}

// field reads a field name; a backslash escapes the next character.
func (p *jpParser) field() string {
	var b strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == '\\' && p.pos+1 < len(p.s) {
			b.WriteByte(p.s[p.pos+1])
			p.pos += 2
			continue
		}
		if isJPTerminator(c) {
			break
		}
		b.WriteByte(c)
		p.pos++
	}
	return b.String()
}

var (
	jpDictKey = regexp.MustCompile(`^'([^']*)'$`)
	jpSlice   = regexp.MustCompile(`^(-?\d*)(?::(-?\d*))?(?::(-?\d*))?$`)
	jpFilterX = regexp.MustCompile(`^([^!<>=]+)([!<>=]+)(.+?)$`)
)

// bracket reads "[...]" at p.pos.
func (p *jpParser) bracket() (columnPath, error) {
	rest := p.s[p.pos:]
	if strings.HasPrefix(rest, "[?(") {
		end := strings.Index(rest, ")]")
		if end < 0 {
			return nil, errors.New("unterminated filter")
		}
		text := rest[3:end]
		p.pos += end + 2
		var n jpNode
		n.kind = jpFilter
		if m := jpFilterX.FindStringSubmatch(text); m != nil {
			l, err := parseOperand(m[1])
			if err != nil {
				return nil, err
			}
			r, err := parseOperand(m[3])
			if err != nil {
				return nil, err
			}
			n.left, n.op, n.right = l, m[2], r
		} else {
			l, err := parseOperand(text)
			if err != nil {
				return nil, err
			}
			n.left, n.op = l, "exists"
		}
		return columnPath{n}, nil
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return nil, errors.New("unterminated array")
	}
	text := rest[1:end]
	p.pos += end + 1
	if text == "*" {
		text = ":"
	}
	if parts := strings.Split(text, ","); len(parts) > 1 {
		n := jpNode{kind: jpUnion}
		for _, part := range parts {
			sub, err := parseColumnPath("[" + strings.Trim(part, " ") + "]")
			if err != nil {
				return nil, err
			}
			n.union = append(n.union, sub)
		}
		return columnPath{n}, nil
	}
	if m := jpDictKey.FindStringSubmatch(text); m != nil {
		return parseColumnPath("." + m[1])
	}
	m := jpSlice.FindStringSubmatch(text)
	if m == nil || text == "" {
		return nil, fmt.Errorf("invalid array index %s", text)
	}
	n := jpNode{kind: jpArray}
	for i := 0; i < 3; i++ {
		if m[i+1] == "" {
			continue
		}
		v, err := strconv.Atoi(m[i+1])
		if err != nil {
			return nil, fmt.Errorf("invalid array index %s", text)
		}
		n.idx[i] = jpInt{value: v, known: true}
	}
	if !strings.Contains(text, ":") { // a single index i: [i, i+1)
		n.idx[1] = jpInt{value: n.idx[0].value + 1, known: true, derived: true}
	}
	return columnPath{n}, nil
}

func parseOperand(s string) (columnPath, error) {
	p := &jpParser{s: strings.TrimSpace(s)}
	return p.parse(true)
}

// first is the first value the path finds in obj (upstream's
// results[0][0]); found is false when it finds none or fails (an index
// out of range, a slice where an object is, incomparable filter values).
func (cp columnPath) first(obj any) (v any, found bool) {
	out, err := cp.eval([]any{obj}, obj)
	if err != nil || len(out) == 0 {
		return nil, false
	}
	return out[0], true
}

func (cp columnPath) eval(in []any, current any) ([]any, error) {
	cur := in
	for _, n := range cp {
		var err error
		if cur, err = n.eval(cur, current); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

func (n jpNode) eval(in []any, current any) ([]any, error) {
	var out []any
	switch n.kind {
	case jpCurrent:
		return []any{current}, nil
	case jpLiteral:
		return []any{n.literal}, nil
	case jpField:
		for _, v := range in {
			if m, ok := v.(map[string]any); ok {
				if x, ok := m[n.field]; ok {
					out = append(out, x)
				}
			}
		}
	case jpWildcard:
		for _, v := range in {
			switch x := v.(type) {
			case map[string]any:
				for _, k := range sortedKeys(x) {
					out = append(out, x[k])
				}
			case []any:
				out = append(out, x...)
			}
		}
	case jpRecursive:
		for _, v := range in {
			out = append(out, descendants(v)...)
		}
	case jpUnion:
		for _, u := range n.union {
			r, err := u.eval(in, current)
			if err != nil {
				return nil, err
			}
			out = append(out, r...)
		}
	case jpArray:
		for _, v := range in {
			if v == nil {
				continue
			}
			l, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%T is not array or slice", v)
			}
			r, err := n.slice(l)
			if err != nil {
				return nil, err
			}
			out = append(out, r...)
		}
	case jpFilter:
		for _, v := range in {
			if v == nil {
				continue
			}
			l, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%T is not array or slice and cannot be filtered", v)
			}
			for _, el := range l {
				pass, err := n.filter(el)
				if err != nil {
					return nil, err
				}
				if pass {
					out = append(out, el)
				}
			}
		}
	}
	return out, nil
}

// slice applies [start:end:step] to l as upstream's evalArray does.
func (n jpNode) slice(l []any) ([]any, error) {
	p := n.idx
	if !p[0].known {
		p[0].value = 0
	}
	if p[0].value < 0 {
		p[0].value += len(l)
	}
	if !p[1].known {
		p[1].value = len(l)
	}
	if p[1].value < 0 || (p[1].value == 0 && p[1].derived) {
		p[1].value += len(l)
	}
	if p[1].value == p[0].value {
		return nil, nil
	}
	if p[0].value >= len(l) || p[0].value < 0 || p[1].value > len(l) || p[1].value < 0 {
		return nil, errors.New("array index out of bounds")
	}
	if p[0].value > p[1].value {
		return nil, errors.New("starting index is greater than ending index")
	}
	step := 1
	if p[2].known {
		if p[2].value <= 0 {
			return nil, errors.New("step must be > 0")
		}
		step = p[2].value
	}
	var out []any
	for i := p[0].value; i < p[1].value; i += step {
		out = append(out, l[i])
	}
	return out, nil
}

// filter tests one element as upstream's evalFilter does: a missing left
// operand skips the element; values of different kinds cannot be
// compared (an error, so the cell is empty).
func (n jpNode) filter(el any) (bool, error) {
	lefts, err := n.left.eval([]any{el}, el)
	if n.op == "exists" {
		return len(lefts) > 0, nil
	}
	if err != nil {
		return false, err
	}
	if len(lefts) == 0 {
		return false, nil
	}
	if len(lefts) > 1 {
		return false, errors.New("can only compare one element at a time")
	}
	rights, err := n.right.eval([]any{el}, el)
	if err != nil {
		return false, err
	}
	if len(rights) == 0 {
		return false, nil
	}
	if len(rights) > 1 {
		return false, errors.New("can only compare one element at a time")
	}
	return compareJP(n.op, lefts[0], rights[0])
}

// compareJP compares like text/template's eq/ne/lt/...: both values of
// one basic kind (integer, float, string; bool for == and != only).
func compareJP(op string, a, b any) (bool, error) {
	a, b = jpBasic(a), jpBasic(b)
	switch x := a.(type) {
	case int64:
		y, ok := b.(int64)
		if !ok {
			return false, errors.New("incompatible types for comparison")
		}
		return cmpOrdered(op, x, y)
	case float64:
		y, ok := b.(float64)
		if !ok {
			return false, errors.New("incompatible types for comparison")
		}
		return cmpOrdered(op, x, y)
	case string:
		y, ok := b.(string)
		if !ok {
			return false, errors.New("incompatible types for comparison")
		}
		return cmpOrdered(op, x, y)
	case bool:
		y, ok := b.(bool)
		if !ok {
			return false, errors.New("incompatible types for comparison")
		}
		switch op {
		case "==":
			return x == y, nil
		case "!=":
			return x != y, nil
		}
	}
	return false, fmt.Errorf("invalid comparison %s of %T", op, a)
}

func jpBasic(v any) any {
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i
		}
		f, _ := n.Float64()
		return f
	}
	return v
}

func cmpOrdered[T int64 | float64 | string](op string, a, b T) (bool, error) {
	switch op {
	case "==":
		return a == b, nil
	case "!=":
		return a != b, nil
	case "<":
		return a < b, nil
	case ">":
		return a > b, nil
	case "<=":
		return a <= b, nil
	case ">=":
		return a >= b, nil
	}
	return false, fmt.Errorf("unrecognized filter operator %s", op)
}

// descendants lists v and every value below it that has children
// (non-empty objects, lists and strings), depth first, as upstream's
// evalRecursive does; object keys are taken in sorted order (upstream
// ranges over a Go map, so its order varies).
func descendants(v any) []any {
	var kids []any
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			kids = append(kids, x[k])
		}
	case []any:
		kids = x
	case string:
		if x != "" {
			return []any{x}
		}
	}
	if len(kids) == 0 {
		return nil
	}
	out := []any{v}
	for _, k := range kids {
		out = append(out, descendants(k)...)
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
