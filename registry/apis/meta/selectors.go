package meta

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// SelectorOp is the operator of one label selector requirement, as in
// k8s.io/apimachinery/pkg/selection/operator.go.
type SelectorOp string

// The label selector operators upstream's parser accepts.
const (
	OpEquals       SelectorOp = "="
	OpDoubleEquals SelectorOp = "=="
	OpNotEquals    SelectorOp = "!="
	OpIn           SelectorOp = "in"
	OpNotIn        SelectorOp = "notin"
	OpExists       SelectorOp = "exists"
	OpDoesNotExist SelectorOp = "!"
	OpGreaterThan  SelectorOp = "gt"
	OpLessThan     SelectorOp = "lt"
)

// Requirement is one term of a label selector: a key, an operator and the
// values it compares against (mirrors labels.Requirement,
// k8s.io/apimachinery/pkg/labels/selector.go).
type Requirement struct {
	Key    string
	Op     SelectorOp
	Values []string
}

// Matches reports whether the label set satisfies the requirement.
func (r Requirement) Matches(ls map[string]string) bool {
	v, ok := ls[r.Key]
	switch r.Op {
	case OpEquals, OpDoubleEquals, OpIn:
		if !ok {
			return false
		}
		for _, w := range r.Values {
			if v == w {
				return true
			}
		}
		return false
	case OpNotEquals, OpNotIn:
		if !ok {
			return true
		}
		for _, w := range r.Values {
			if v == w {
				return false
			}
		}
		return true
	case OpExists:
		return ok
	case OpDoesNotExist:
		return !ok
	case OpGreaterThan, OpLessThan:
		if !ok || len(r.Values) != 1 {
			return false
		}
		have, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		want, err := strconv.ParseInt(r.Values[0], 10, 64)
		if err != nil {
			return false
		}
		if r.Op == OpGreaterThan {
			return have > want
		}
		return have < want
	}
	return false
}

// ParsedLabelSelector is a parsed label selector (labels.Selector
// upstream): all requirements must match. The zero value matches
// everything. LabelSelector is its wire form.
type ParsedLabelSelector []Requirement

// Matches reports whether every requirement matches ls.
func (s ParsedLabelSelector) Matches(ls map[string]string) bool {
	for _, r := range s {
		if !r.Matches(ls) {
			return false
		}
	}
	return true
}

// Empty reports whether the selector matches everything.
func (s ParsedLabelSelector) Empty() bool { return len(s) == 0 }

// ParseLabelSelector parses the labelSelector query parameter syntax of
// k8s.io/apimachinery/pkg/labels/selector.go (Parse): comma-separated terms
// `k`, `!k`, `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k>n`,
// `k<n`. Keys must be qualified names and values label values. Errors are
// *StatusError BadRequest with upstream's wording where it is known.
func ParseLabelSelector(s string) (ParsedLabelSelector, error) {
	p := &selParser{s: s}
	var out ParsedLabelSelector
	p.skipSpace()
	if p.eof() {
		return nil, nil
	}
	for {
		r, err := p.requirement()
		var nr notRequirement
		switch {
		case errors.As(err, &nr):
			return nil, NewBadRequest(nr.Error())
		case err != nil:
			// labels.Parser.parse wraps every error of parseRequirement.
			return nil, NewBadRequest("unable to parse requirement: " + err.Error())
		}
		out = append(out, r)
		p.skipSpace()
		if p.eof() {
			break
		}
		if p.s[p.i] != ',' {
			return nil, NewBadRequest(fmt.Sprintf("found '%s', expected: ',' or 'end of string'", p.word()))
		}
		p.i++
		p.skipSpace()
		if p.eof() || (p.s[p.i] != '!' && isSelSpecial(p.s[p.i])) {
			return nil, NewBadRequest(fmt.Sprintf("found '%s', expected: identifier after ','", p.rest()))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

type selParser struct {
	s string
	i int
}

func (p *selParser) eof() bool { return p.i >= len(p.s) }

func (p *selParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// isSelSpace reports the whitespace a selector may hold between tokens.
func isSelSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isSelSpecial(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', '=', '!', '(', ')', '<', '>':
		return true
	}
	return false
}

// word reads an identifier up to the next special character.
func (p *selParser) word() string {
	start := p.i
	for p.i < len(p.s) && !isSelSpecial(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// values parses the "(a, b)" of in and notin with the messages of
// upstream's parseValues and parseIdentifiersList (labels/selector.go),
// their missing comma in "found 'x' expected: '('" included. An empty
// element ("(a,)", "(,)", "()") is the value "".
func (p *selParser) values() ([]string, error) {
	if p.eof() || p.s[p.i] != '(' {
		return nil, fmt.Errorf("found '%s' expected: '('", p.rest())
	}
	p.i++
	p.skipSpace()
	switch {
	case !p.eof() && p.s[p.i] == ')':
		p.i++
		return []string{""}, nil
	case p.eof() || (p.s[p.i] != ',' && isSelSpecial(p.s[p.i])):
		return nil, fmt.Errorf("found '%s', expected: ',', ')' or identifier", p.rest())
	}
	var vals []string
	for {
		p.skipSpace()
		switch {
		case !p.eof() && !isSelSpecial(p.s[p.i]):
			vals = append(vals, p.word())
			p.skipSpace()
			switch {
			case !p.eof() && p.s[p.i] == ',':
				continue
			case !p.eof() && p.s[p.i] == ')':
				p.i++
				return vals, nil
			}
			return nil, fmt.Errorf("found '%s', expected: ',' or ')'", p.rest())
		case !p.eof() && p.s[p.i] == ',':
			p.i++
			if len(vals) == 0 {
				vals = append(vals, "")
			}
			p.skipSpace()
			switch {
			case !p.eof() && p.s[p.i] == ')':
				p.i++
				return append(vals, ""), nil
			case !p.eof() && p.s[p.i] == ',':
				p.i++
				vals = append(vals, "")
			}
		default:
			return nil, fmt.Errorf("found '%s', expected: ',', or identifier", p.rest())
		}
	}
}

// notRequirement is the error for a token that cannot start a
// requirement, which upstream's parser reports without the
// "unable to parse requirement: " prefix of errors inside one.
type notRequirement string

// Error returns the message.
func (e notRequirement) Error() string { return string(e) }

func (p *selParser) requirement() (Requirement, error) {
	p.skipSpace()
	if strings.HasPrefix(p.s[p.i:], "!=") {
		return Requirement{}, notRequirement("found '!=', expected: !, identifier, or 'end of string'")
	}
	if !p.eof() && p.s[p.i] == '!' {
		p.i++
		p.skipSpace()
		key := p.word()
		if key == "" {
			return Requirement{}, fmt.Errorf("found '%s', expected: identifier after '!'", p.rest())
		}
		if err := validateLabelKey(key); err != nil {
			return Requirement{}, err
		}
		return Requirement{Key: key, Op: OpDoesNotExist}, nil
	}
	key := p.word()
	if key == "" {
		return Requirement{}, notRequirement(fmt.Sprintf("found '%s', expected: !, identifier, or 'end of string'", p.rest()))
	}
	if err := validateLabelKey(key); err != nil {
		return Requirement{}, err
	}
	p.skipSpace()
	if p.eof() || p.s[p.i] == ',' {
		return Requirement{Key: key, Op: OpExists}, nil
	}
	var op SelectorOp
	switch {
	case strings.HasPrefix(p.s[p.i:], "=="):
		op, p.i = OpDoubleEquals, p.i+2
	case strings.HasPrefix(p.s[p.i:], "!="):
		op, p.i = OpNotEquals, p.i+2
	case p.s[p.i] == '=':
		op, p.i = OpEquals, p.i+1
	case p.s[p.i] == '>':
		op, p.i = OpGreaterThan, p.i+1
	case p.s[p.i] == '<':
		op, p.i = OpLessThan, p.i+1
	default:
		w := p.word()
		switch w {
		case "in":
			op = OpIn
		case "notin":
			op = OpNotIn
		default:
			return Requirement{}, fmt.Errorf("found '%s', expected: in, notin, =, ==, !=, gt, lt", w)
		}
	}
	p.skipSpace()
	if op == OpIn || op == OpNotIn {
		vals, err := p.values()
		if err != nil {
			return Requirement{}, err
		}
		sort.Strings(vals)
		vals = dedupeSorted(vals)
		if err := validateLabelValues(key, vals); err != nil {
			return Requirement{}, err
		}
		return Requirement{Key: key, Op: op, Values: vals}, nil
	}
	if !p.eof() && isSelSpecial(p.s[p.i]) && p.s[p.i] != ',' && !isSelSpace(p.s[p.i]) {
		return Requirement{}, fmt.Errorf("found '%s', expected: identifier", p.rest())
	}
	v := p.word()
	if op == OpGreaterThan || op == OpLessThan {
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return Requirement{}, fmt.Errorf("values[0]: Invalid value: %q: for 'Gt', 'Lt' operators, the value must be an integer", v)
		}
	} else if err := validateLabelValues(key, []string{v}); err != nil {
		return Requirement{}, err
	}
	return Requirement{Key: key, Op: op, Values: []string{v}}, nil
}

// rest returns the token at p without consuming it, as upstream's lexer
// scans it: a word, or the longest operator its special symbols form
// ("==" and "!=" before the one-character ones).
func (p *selParser) rest() string {
	if p.eof() {
		return ""
	}
	if isSelSpecial(p.s[p.i]) {
		if t := p.s[p.i:min(p.i+2, len(p.s))]; t == "==" || t == "!=" {
			return t
		}
		return p.s[p.i : p.i+1]
	}
	start := p.i
	w := p.word()
	p.i = start
	return w
}

func dedupeSorted(v []string) []string {
	out := v[:0]
	for i, s := range v {
		if i == 0 || s != v[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// FieldRequirement is one term of a field selector: `field=value`,
// `field==value` or `field!=value` (mirrors fields.Requirement).
type FieldRequirement struct {
	Field string
	Value string
	Not   bool // true for !=
}

// FieldSelector is a parsed field selector; all terms must match. The zero
// value matches everything.
type FieldSelector []FieldRequirement

// FieldsProvider is an optional Strategy extension naming the fields a
// field selector may use beyond metadata.name and metadata.namespace, with
// their values for one object (upstream: the strategy's GetAttrs /
// SelectableFields).
type FieldsProvider interface {
	SelectableFields(obj Object) map[string]string
}

// ParseFieldSelector parses the fieldSelector query parameter
// (k8s.io/apimachinery/pkg/fields/selector.go ParseSelector). Values may
// escape `\,`, `\=` and `\\`. Fields are checked against known later by the
// store.
func ParseFieldSelector(s string) (FieldSelector, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out FieldSelector
	for _, term := range splitUnescaped(s, ',') {
		var r FieldRequirement
		switch {
		case strings.Contains(term, "!="):
			i := strings.Index(term, "!=")
			r = FieldRequirement{Field: term[:i], Value: term[i+2:], Not: true}
		case strings.Contains(term, "=="):
			i := strings.Index(term, "==")
			r = FieldRequirement{Field: term[:i], Value: term[i+2:]}
		case strings.Contains(term, "="):
			i := strings.Index(term, "=")
			r = FieldRequirement{Field: term[:i], Value: term[i+1:]}
		default:
			return nil, NewBadRequest(fmt.Sprintf("invalid selector: '%s'; can't understand '%s'", s, term))
		}
		r.Field = strings.TrimSpace(r.Field)
		r.Value = unescapeFieldValue(r.Value)
		out = append(out, r)
	}
	return out, nil
}

func splitUnescaped(s string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == sep {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func unescapeFieldValue(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// Matches reports whether the object's fields satisfy every term.
func (s FieldSelector) Matches(fields map[string]string) bool {
	for _, r := range s {
		if (fields[r.Field] == r.Value) == r.Not {
			return false
		}
	}
	return true
}

// validateLabelKey checks a selector's key as labels.NewRequirement does:
// a qualified name, every problem in one Invalid error on the nil path
// (printed "<nil>").
func validateLabelKey(k string) error {
	if msgs := IsQualifiedName(k); len(msgs) > 0 {
		return fmt.Errorf("<nil>: Invalid value: %q: %s", k, strings.Join(msgs, "; "))
	}
	return nil
}

// validateLabelValues checks a requirement's values as
// labels.NewRequirement does, in the order of the sorted set of values:
// `values[<i>][<key>]: Invalid value: "<v>": <problems>`.
func validateLabelValues(key string, vals []string) error {
	for i, v := range vals {
		if msgs := IsValidLabelValue(v); len(msgs) > 0 {
			return fmt.Errorf("values[%d][%s]: Invalid value: %q: %s", i, key, v, strings.Join(msgs, "; "))
		}
	}
	return nil
}

// SelectorFromWire converts the wire form of a label selector (the
// matchLabels and matchExpressions of LabelSelector) to the parsed form:
// each matchLabels pair an equality requirement, each expression's In,
// NotIn, Exists or DoesNotExist its operator, as
// metav1.LabelSelectorAsSelector (apimachinery helpers.go) builds it. An
// expression with any other operator becomes a requirement that matches
// nothing (validation refuses such selectors before they are stored).
func SelectorFromWire(matchLabels map[string]string, exprs []LabelSelectorRequirement) ParsedLabelSelector {
	out := make(ParsedLabelSelector, 0, len(matchLabels)+len(exprs))
	for _, k := range sortedMapKeys(matchLabels) {
		out = append(out, Requirement{Key: k, Op: OpEquals, Values: []string{matchLabels[k]}})
	}
	for _, e := range exprs {
		op := SelectorOp("") // matches nothing
		switch e.Operator {
		case "In":
			op = OpIn
		case "NotIn":
			op = OpNotIn
		case "Exists":
			op = OpExists
		case "DoesNotExist":
			op = OpDoesNotExist
		}
		out = append(out, Requirement{Key: e.Key, Op: op, Values: e.Values})
	}
	return out
}

// ValidateLabelSelector checks a label selector at path as
// metav1validation.ValidateLabelSelector does with invalid label values
// refused: the matchLabels keys and values (ValidateLabels on
// path.matchLabels), then per expression its operator (values required
// for In and NotIn, forbidden for Exists and DoesNotExist, any other
// operator invalid), its key (a qualified name) and each value (a label
// value), in that order. A nil selector is valid.
func ValidateLabelSelector(s *LabelSelector, path string) FieldErrors {
	if s == nil {
		return nil
	}
	errs := ValidateLabels(s.MatchLabels, path+".matchLabels")
	for i, r := range s.MatchExpressions {
		rp := Index(path+".matchExpressions", i)
		switch r.Operator {
		case "In", "NotIn":
			if len(r.Values) == 0 {
				errs = append(errs, Required(rp+".values", "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case "Exists", "DoesNotExist":
			if len(r.Values) > 0 {
				errs = append(errs, Forbidden(rp+".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		default:
			errs = append(errs, Invalid(rp+".operator", r.Operator, "not a valid selector operator"))
		}
		for _, msg := range IsQualifiedName(r.Key) {
			errs = append(errs, Invalid(rp+".key", r.Key, msg))
		}
		for vi, v := range r.Values {
			for _, msg := range IsValidLabelValue(v) {
				errs = append(errs, Invalid(Index(rp+".values", vi), v, msg))
			}
		}
	}
	return errs
}

// Matches reports whether labels satisfy the selector: every matchLabels
// pair and every expression, as metav1.LabelSelectorAsSelector's selector
// does (SelectorFromWire). The empty selector matches everything; an
// expression with an unknown operator matches nothing (validation refuses
// such selectors).
func (s *LabelSelector) Matches(labels map[string]string) bool {
	return SelectorFromWire(s.MatchLabels, s.MatchExpressions).Matches(labels)
}
