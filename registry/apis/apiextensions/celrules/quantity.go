package celrules

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// The errors of resource.ParseQuantity (apimachinery's api/resource).
var (
	errQuantityFormat  = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	errQuantityNumeric = errors.New("unable to parse numeric part of quantity")
	errQuantitySuffix  = errors.New("unable to parse quantity's suffix")
)

// quantityVal is a resource quantity as an exact rational
// (apiserver/pkg/cel/quantity.go over resource.Quantity).
type quantityVal struct{ r *big.Rat }

var nano = big.NewRat(1, 1000000000)

// parseQuantity parses the quantity forms of resource.ParseQuantity:
// <sign><digits>[.<digits>] then a binary (Ki..Ei), decimal (n u m k M G
// T P E) or exponent (e3, E-2) suffix. Precision finer than 1n is rounded
// up (away from zero), as upstream does.
func parseQuantity(s string) (*big.Rat, error) {
	if len(s) == 0 {
		return nil, errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	}
	i := 0
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		i++
	}
	start := i
	digits, dots := 0, 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		if s[i] == '.' {
			dots++
		} else {
			digits++
		}
		i++
	}
	num := s[start:i]
	if digits == 0 && dots == 0 {
		return nil, errQuantityFormat
	}
	if dots > 1 || digits == 0 {
		return nil, errQuantityNumeric
	}
	suffix := s[i:]
	for _, c := range suffix {
		if !strings.ContainsRune("eEinumkKMGTP+-0123456789", c) {
			return nil, errQuantityFormat
		}
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return nil, errQuantityNumeric
	}
	mult, err := suffixMultiplier(suffix)
	if err != nil {
		return nil, err
	}
	r.Mul(r, mult)
	// round up to nano precision
	scaled := new(big.Rat).Quo(r, nano)
	if !scaled.IsInt() {
		q := new(big.Int).Quo(scaled.Num(), scaled.Denom())
		q.Add(q, big.NewInt(1))
		r = new(big.Rat).Mul(new(big.Rat).SetInt(q), nano)
	}
	if neg {
		r.Neg(r)
	}
	return r, nil
}

func suffixMultiplier(suf string) (*big.Rat, error) {
	pow := func(base, exp int64) *big.Rat {
		b := new(big.Int).Exp(big.NewInt(base), big.NewInt(abs64(exp)), nil)
		if exp < 0 {
			return new(big.Rat).SetFrac(big.NewInt(1), b)
		}
		return new(big.Rat).SetInt(b)
	}
	switch suf {
	case "":
		return big.NewRat(1, 1), nil
	case "Ki":
		return pow(2, 10), nil
	case "Mi":
		return pow(2, 20), nil
	case "Gi":
		return pow(2, 30), nil
	case "Ti":
		return pow(2, 40), nil
	case "Pi":
		return pow(2, 50), nil
	case "Ei":
		return pow(2, 60), nil
	case "n":
		return pow(10, -9), nil
	case "u":
		return pow(10, -6), nil
	case "m":
		return pow(10, -3), nil
	case "k":
		return pow(10, 3), nil
	case "M":
		return pow(10, 6), nil
	case "G":
		return pow(10, 9), nil
	case "T":
		return pow(10, 12), nil
	case "P":
		return pow(10, 15), nil
	case "E":
		return pow(10, 18), nil
	}
	if len(suf) > 1 && (suf[0] == 'e' || suf[0] == 'E') {
		var e int64
		if _, err := fmt.Sscanf(suf[1:], "%d", &e); err == nil && fmt.Sprint(e) == strings.TrimPrefix(suf[1:], "+") {
			return pow(10, e), nil
		}
	}
	return nil, errQuantitySuffix
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func (v *quantityVal) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(v.r).AssignableTo(t) {
		return v.r, nil
	}
	return nil, fmt.Errorf("type conversion error from 'Quantity' to '%v'", t)
}
func (v *quantityVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case quantityType:
		return v
	case types.TypeType:
		return quantityType
	}
	return convertErr(quantityTypeName, t)
}
func (v *quantityVal) Equal(o ref.Val) ref.Val {
	oq, ok := o.(*quantityVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(o)
	}
	return types.Bool(v.r.Cmp(oq.r) == 0)
}
func (v *quantityVal) Type() ref.Type { return quantityType }
func (v *quantityVal) Value() any     { return v.r }

func quantityLibrary() []cel.EnvOption {
	q := quantityType
	un := func(f func(*big.Rat) ref.Val) cel.OverloadOpt {
		return cel.UnaryBinding(func(a ref.Val) ref.Val {
			x, ok := a.(*quantityVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			return f(x.r)
		})
	}
	bin := func(f func(a, b *big.Rat) ref.Val) cel.OverloadOpt {
		return cel.BinaryBinding(func(a, b ref.Val) ref.Val {
			x, ok := a.(*quantityVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			y, ok := b.(*quantityVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			return f(x.r, y.r)
		})
	}
	binInt := func(sign int64) cel.OverloadOpt {
		return cel.BinaryBinding(func(a, b ref.Val) ref.Val {
			x, ok := a.(*quantityVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			n, ok := b.Value().(int64)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			return &quantityVal{r: new(big.Rat).Add(x.r, big.NewRat(sign*n, 1))}
		})
	}
	asInt := func(r *big.Rat) (int64, bool) {
		if !r.IsInt() || !r.Num().IsInt64() {
			return 0, false
		}
		return r.Num().Int64(), true
	}
	return []cel.EnvOption{
		cel.Function("quantity", cel.Overload("string_to_quantity", []*cel.Type{cel.StringType}, q, cel.UnaryBinding(func(a ref.Val) ref.Val {
			s, ok := a.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			r, err := parseQuantity(s)
			if err != nil {
				return types.WrapErr(err)
			}
			return &quantityVal{r: r}
		}))),
		cel.Function("isQuantity", cel.Overload("is_quantity_string", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(func(a ref.Val) ref.Val {
			s, ok := a.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			_, err := parseQuantity(s)
			return types.Bool(err == nil)
		}))),
		cel.Function("sign", cel.Overload("quantity_sign", []*cel.Type{q}, cel.IntType, un(func(r *big.Rat) ref.Val { return types.Int(r.Sign()) }))),
		cel.Function("isGreaterThan", cel.MemberOverload("quantity_is_greater_than", []*cel.Type{q, q}, cel.BoolType, bin(func(a, b *big.Rat) ref.Val { return types.Bool(a.Cmp(b) == 1) }))),
		cel.Function("isLessThan", cel.MemberOverload("quantity_is_less_than", []*cel.Type{q, q}, cel.BoolType, bin(func(a, b *big.Rat) ref.Val { return types.Bool(a.Cmp(b) == -1) }))),
		cel.Function("compareTo", cel.MemberOverload("quantity_compare_to", []*cel.Type{q, q}, cel.IntType, bin(func(a, b *big.Rat) ref.Val { return types.Int(a.Cmp(b)) }))),
		cel.Function("asApproximateFloat", cel.MemberOverload("quantity_get_float", []*cel.Type{q}, cel.DoubleType, un(func(r *big.Rat) ref.Val {
			f, _ := r.Float64()
			return types.Double(f)
		}))),
		cel.Function("asInteger", cel.MemberOverload("quantity_get_int", []*cel.Type{q}, cel.IntType, un(func(r *big.Rat) ref.Val {
			n, ok := asInt(r)
			if !ok {
				return types.WrapErr(errors.New("cannot convert value to integer"))
			}
			return types.Int(n)
		}))),
		cel.Function("isInteger", cel.MemberOverload("quantity_is_integer", []*cel.Type{q}, cel.BoolType, un(func(r *big.Rat) ref.Val {
			_, ok := asInt(r)
			return types.Bool(ok)
		}))),
		cel.Function("add",
			cel.MemberOverload("quantity_add", []*cel.Type{q, q}, q, bin(func(a, b *big.Rat) ref.Val { return &quantityVal{r: new(big.Rat).Add(a, b)} })),
			cel.MemberOverload("quantity_add_int", []*cel.Type{q, cel.IntType}, q, binInt(1))),
		cel.Function("sub",
			cel.MemberOverload("quantity_sub", []*cel.Type{q, q}, q, bin(func(a, b *big.Rat) ref.Val { return &quantityVal{r: new(big.Rat).Sub(a, b)} })),
			cel.MemberOverload("quantity_sub_int", []*cel.Type{q, cel.IntType}, q, binInt(-1))),
	}
}
