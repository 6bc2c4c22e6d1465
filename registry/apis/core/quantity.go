package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Quantity is an exact decimal amount of a resource, written as a string
// such as "500m", "1.5Gi" or "2e3".
//
// The serialization format is a signed decimal number followed by a suffix:
// a binary SI suffix (Ki, Mi, Gi, Ti, Pi, Ei), a decimal SI suffix (n, u, m,
// none, k, M, G, T, P, E) or a decimal exponent (e or E and a signed
// number). No quantity may be greater than 2^63-1 in magnitude, nor have
// more than nine decimal places: larger values are capped, more precise
// ones rounded up. The suffix family given is kept, and the value is
// written in canonical form: no precision lost, no fractional digits, the
// largest suffix possible (1.5 is written "1500m", 1.5Gi "1536Mi").
// ---
// Quantity mirrors k8s.io/apimachinery/pkg/api/resource.Quantity
// (quantity.go): it holds the parsed value in nano units and the suffix
// family, and always encodes in upstream's canonical form.
// +upstreamPackage=k8s.io/apimachinery/pkg/api/resource
// +openapi:type=string
// +openapi:v3OneOf=string,number
type Quantity struct {
	nanos  *big.Int // value × 10^9, exact after rounding; nil is zero
	format quantityFormat
	// rep is upstream's internal representation, which its validation
	// messages print (GoSyntax): an int64 mantissa and decimal scale when
	// upstream's fast path parsed it (rep.dec false), else an inf.Dec.
	rep quantityRep
}

// quantityRep mirrors upstream's int64Amount, infDecAmount and cached
// string s.
type quantityRep struct {
	value int64
	scale int32
	dec   bool
	s     string
}

type quantityFormat uint8

const (
	decimalSI quantityFormat = iota
	binarySI
	decimalExponent
)

// Quantity parse errors, upstream's texts (ErrFormatWrong, ErrSuffix).
var (
	ErrQuantityFormat = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	ErrQuantitySuffix = errors.New("unable to parse quantity's suffix")
)

var (
	bigNano   = big.NewInt(1_000_000_000)
	bigMaxInt = new(big.Int).SetUint64(1<<63 - 1)
	maxNanos  = new(big.Int).Mul(bigMaxInt, bigNano)
)

// ParseQuantity parses s as upstream's resource.ParseQuantity does: an
// error (ErrQuantityFormat, ErrQuantitySuffix) for text that is no
// quantity; values beyond 2^63-1 are capped and nonzero values are rounded
// up (away from zero) to whole nano units.
func ParseQuantity(s string) (Quantity, error) {
	if s == "" {
		return Quantity{}, ErrQuantityFormat
	}
	if s == "0" {
		return Quantity{rep: quantityRep{s: "0"}}, nil
	}
	positive, num, denom, suffix, err := parseQuantityString(s)
	if err != nil {
		return Quantity{}, err
	}
	base, exp, format, ok := interpretSuffix(suffix)
	if !ok {
		return Quantity{}, ErrQuantitySuffix
	}
	// value = num.denom × base^exp, as a rational.
	r, ok := new(big.Rat).SetString(num + "." + denom + "0")
	if !ok {
		return Quantity{}, ErrQuantityFormat
	}
	scale := new(big.Rat).SetInt64(1)
	p := new(big.Int).Exp(big.NewInt(int64(base)), big.NewInt(int64(abs(exp))), nil)
	if exp >= 0 {
		scale.SetInt(p)
	} else {
		scale.SetFrac(big.NewInt(1), p)
	}
	r.Mul(r, scale)
	r.Mul(r, new(big.Rat).SetInt(bigNano))
	// Round up to whole nanos.
	n := new(big.Int).Quo(r.Num(), r.Denom())
	if new(big.Int).Mul(n, r.Denom()).Cmp(r.Num()) != 0 {
		n.Add(n, big.NewInt(1))
	}
	if n.Cmp(maxNanos) > 0 {
		n.Set(maxNanos)
	}
	if format == binarySI && n.Cmp(bigNano) < 0 && n.Sign() > 0 {
		format = decimalSI
	}
	if !positive {
		n.Neg(n)
	}
	return Quantity{nanos: n, format: format, rep: fastPathRep(s, positive, num, denom, exp, format)}, nil
}

// fastPathRep is the representation upstream's ParseQuantity gives: its
// int64 fast path where the digits fit, keeping the input text when it is
// already canonical; an inf.Dec otherwise.
func fastPathRep(str string, positive bool, num, denom string, exponent int, format quantityFormat) quantityRep {
	const maxInt64Factors = 18
	precision, scale, mantissa := -1, 0, int64(1)
	switch format {
	case decimalSI, decimalExponent:
		scale = exponent
		precision = maxInt64Factors - (len(num) + len(denom))
	case binarySI:
		if exponent >= 0 && denom == "" {
			mantissa = 1 << uint(exponent)
			precision = 15 - len(num) - int(float32(exponent)*3/10) - 1
		}
	}
	if precision < 0 {
		return quantityRep{dec: true}
	}
	scale -= len(denom)
	if scale < -9 {
		return quantityRep{dec: true}
	}
	shifted := num + denom
	value, err := strconv.ParseInt(shifted, 10, 64)
	if err != nil {
		return quantityRep{dec: true}
	}
	result := value * mantissa
	if value != 0 && result/value != mantissa {
		return quantityRep{dec: true}
	}
	if !positive {
		result = -result
	}
	r := quantityRep{value: result, scale: int32(scale)}
	switch format {
	case binarySI:
		if exponent%10 == 0 && value&0x07 != 0 {
			r.s = str
		}
	default:
		if scale%3 == 0 && !strings.HasSuffix(shifted, "000") && shifted[0] != '0' {
			r.s = str
		}
	}
	return r
}

// RoundUpMilli rounds q up (away from zero) to thousandths, as core/v1's
// SetDefaults_ResourceList does to every value of a ResourceList
// (Quantity.RoundUp(-3) upstream).
func (q *Quantity) RoundUpMilli() {
	n := q.bigNanos()
	const perMilli = 1_000_000
	m, r := new(big.Int).QuoRem(n, big.NewInt(perMilli), new(big.Int))
	if r.Sign() != 0 {
		if r.Sign() > 0 {
			m.Add(m, big.NewInt(1))
		} else {
			m.Sub(m, big.NewInt(1))
		}
		q.nanos = m.Mul(m, big.NewInt(perMilli))
	}
	if q.rep.dec {
		q.rep.s = ""
		return
	}
	if q.rep.scale >= -3 {
		return
	}
	q.rep.s = ""
	div := int64(1)
	for i := q.rep.scale; i < -3; i++ {
		div *= 10
	}
	v, rem := q.rep.value/div, q.rep.value%div
	if rem > 0 {
		v++
	} else if rem < 0 {
		v--
	}
	q.rep.value, q.rep.scale = v, -3
}

// GoSyntax is upstream's %#v of the Quantity, which its validation prints
// as the bad value (`resource.Quantity{i:resource.int64Amount{value:15,
// scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"",
// Format:"DecimalSI"}`). For a value held as an inf.Dec upstream prints a
// pointer, which no other server repeats; aggsim prints a fixed one.
func (q Quantity) GoSyntax() string {
	format := [...]string{decimalSI: "DecimalSI", binarySI: "BinarySI", decimalExponent: "DecimalExponent"}[q.format]
	if q.rep.dec {
		return fmt.Sprintf("resource.Quantity{i:resource.int64Amount{value:0, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(0xc000000000)}, s:%q, Format:%q}", q.rep.s, format)
	}
	return fmt.Sprintf("resource.Quantity{i:resource.int64Amount{value:%d, scale:%d}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:%q, Format:%q}", q.rep.value, q.rep.scale, q.rep.s, format)
}

// MustParseQuantity is ParseQuantity for constants; it panics on an error.
func MustParseQuantity(s string) Quantity {
	q, err := ParseQuantity(s)
	if err != nil {
		panic(err)
	}
	return q
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// parseQuantityString splits s into sign, integer digits, fraction digits
// and suffix, as upstream's parseQuantityString.
func parseQuantityString(str string) (positive bool, num, denom, suffix string, err error) {
	positive = true
	pos, end := 0, len(str)
	if pos < end {
		switch str[0] {
		case '-':
			positive = false
			pos++
		case '+':
			pos++
		}
	}
	for pos < end && str[pos] == '0' {
		pos++
	}
	if pos >= end {
		return positive, "0", "", "", nil
	}
	start := pos
	for pos < end && str[pos] >= '0' && str[pos] <= '9' {
		pos++
	}
	num = str[start:pos]
	if num == "" {
		num = "0"
	}
	if pos < end && str[pos] == '.' {
		pos++
		start = pos
		for pos < end && str[pos] >= '0' && str[pos] <= '9' {
			pos++
		}
		denom = str[start:pos]
	}
	suffixStart := pos
	for pos < end && strings.ContainsRune("eEinumkKMGTP", rune(str[pos])) {
		pos++
	}
	if pos < end && (str[pos] == '-' || str[pos] == '+') {
		pos++
	}
	for pos < end && str[pos] >= '0' && str[pos] <= '9' {
		pos++
	}
	if pos < end {
		return false, "", "", "", ErrQuantityFormat
	}
	return positive, num, denom, str[suffixStart:], nil
}

var decimalSuffixes = map[string]int{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
var binarySuffixes = map[string]int{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}

// interpretSuffix returns the base, exponent and format of a suffix.
func interpretSuffix(s string) (base, exp int, f quantityFormat, ok bool) {
	if e, ok := decimalSuffixes[s]; ok {
		return 10, e, decimalSI, true
	}
	if e, ok := binarySuffixes[s]; ok {
		return 2, e, binarySI, true
	}
	if len(s) > 1 && (s[0] == 'e' || s[0] == 'E') {
		e, err := strconv.ParseInt(s[1:], 10, 32)
		if err != nil {
			return 0, 0, 0, false
		}
		return 10, int(e), decimalExponent, true
	}
	return 0, 0, 0, false
}

// Sign returns -1, 0 or 1.
func (q Quantity) Sign() int {
	if q.nanos == nil {
		return 0
	}
	return q.nanos.Sign()
}

// Cmp compares q with o: -1, 0 or 1.
func (q Quantity) Cmp(o Quantity) int { return q.bigNanos().Cmp(o.bigNanos()) }

// MilliValue returns the value in thousandths, rounded up, as upstream's
// MilliValue.
func (q Quantity) MilliValue() int64 {
	m := new(big.Int)
	r := new(big.Int)
	m.QuoRem(q.bigNanos(), big.NewInt(1_000_000), r)
	if r.Sign() > 0 {
		m.Add(m, big.NewInt(1))
	}
	return m.Int64()
}

func (q Quantity) bigNanos() *big.Int {
	if q.nanos == nil {
		return new(big.Int)
	}
	return q.nanos
}

// String returns the canonical form (upstream's CanonicalizeBytes): for
// binary SI values that are whole and at least 1024 in magnitude, the
// largest power-of-1024 suffix that keeps an integer; otherwise an integer
// mantissa with the largest decimal suffix (or e<exponent> for the decimal
// exponent family) whose exponent is a multiple of three.
func (q Quantity) String() string {
	n := q.bigNanos()
	if n.Sign() == 0 {
		return "0"
	}
	format := q.format
	if format == binarySI {
		whole, rem := new(big.Int).QuoRem(n, bigNano, new(big.Int))
		if rem.Sign() != 0 || new(big.Int).Abs(whole).Cmp(big.NewInt(1024)) < 0 {
			format = decimalSI
		} else {
			exp := 0
			k := big.NewInt(1024)
			for exp < 60 {
				qq, r := new(big.Int).QuoRem(whole, k, new(big.Int))
				if r.Sign() != 0 {
					break
				}
				whole = qq
				exp += 10
			}
			for s, e := range binarySuffixes {
				if e == exp {
					return whole.String() + s
				}
			}
			return whole.String()
		}
	}
	m := new(big.Int).Set(n)
	exp := -9
	ten := big.NewInt(10)
	for {
		qq, r := new(big.Int).QuoRem(m, ten, new(big.Int))
		if r.Sign() != 0 {
			break
		}
		m = qq
		exp++
	}
	if r := ((exp % 3) + 3) % 3; r != 0 {
		m.Mul(m, new(big.Int).Exp(ten, big.NewInt(int64(r)), nil))
		exp -= r
	}
	if format == decimalExponent {
		if exp == 0 {
			return m.String()
		}
		return m.String() + "e" + strconv.Itoa(exp)
	}
	for s, e := range decimalSuffixes {
		if e == exp {
			return m.String() + s
		}
	}
	return m.String() + "e" + strconv.Itoa(exp)
}

// MarshalJSON writes the canonical form as a JSON string.
func (q Quantity) MarshalJSON() ([]byte, error) { return json.Marshal(q.String()) }

// UnmarshalJSON accepts a JSON string or number holding a quantity; null
// is zero. Errors are ParseQuantity's.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		*q = Quantity{}
		return nil
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	parsed, err := ParseQuantity(strings.TrimSpace(s))
	if err != nil {
		return err
	}
	*q = parsed
	return nil
}

// ResourceList maps resource names (cpu, memory, pods, ...) to amounts.
type ResourceList map[string]Quantity
