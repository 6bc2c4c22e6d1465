package celrules

import (
	"fmt"
	"net/netip"
	"net/url"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// The Kubernetes CEL value types and their type names
// (apiserver/pkg/cel: url.go, ip.go, cidr.go, quantity.go, format.go).
const (
	urlTypeName      = "kubernetes.URL"
	ipTypeName       = "net.IP"
	cidrTypeName     = "net.CIDR"
	quantityTypeName = "kubernetes.Quantity"
	formatTypeName   = "kubernetes.NamedFormat"
)

var (
	urlType      = types.NewObjectType(urlTypeName)
	ipType       = types.NewOpaqueType(ipTypeName)
	cidrType     = types.NewOpaqueType(cidrTypeName)
	quantityType = types.NewObjectType(quantityTypeName)
	formatType   = types.NewObjectType(formatTypeName)
)

func extraLibraries() []cel.EnvOption {
	var out []cel.EnvOption
	out = append(out, urlLibrary()...)
	out = append(out, ipLibrary()...)
	out = append(out, cidrLibrary()...)
	out = append(out, quantityLibrary()...)
	out = append(out, formatLibrary()...)
	return out
}

// convertErr is the error ConvertToType of a library value answers for a type it does not convert to.
func convertErr(from string, t ref.Type) ref.Val {
	return types.NewErr("type conversion error from '%s' to '%s'", from, t)
}

// urlVal is a parsed URL (library/urls.go).
type urlVal struct{ u *url.URL }

func (v *urlVal) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(v.u).AssignableTo(t) {
		return v.u, nil
	}
	if reflect.TypeOf("").AssignableTo(t) {
		return v.u.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'URL' to '%v'", t)
}
func (v *urlVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case urlType:
		return v
	case types.TypeType:
		return urlType
	}
	return convertErr(urlTypeName, t)
}
func (v *urlVal) Equal(o ref.Val) ref.Val {
	ou, ok := o.(*urlVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(o)
	}
	return types.Bool(v.u.String() == ou.u.String())
}
func (v *urlVal) Type() ref.Type { return urlType }
func (v *urlVal) Value() any     { return v.u }

func urlLibrary() []cel.EnvOption {
	get := func(f func(*url.URL) ref.Val) cel.OverloadOpt {
		return cel.UnaryBinding(func(a ref.Val) ref.Val {
			u, ok := a.(*urlVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			return f(u.u)
		})
	}
	str := func(name, id string, f func(*url.URL) string) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{urlType}, cel.StringType,
			get(func(u *url.URL) ref.Val { return types.String(f(u)) })))
	}
	return []cel.EnvOption{
		cel.Function("url", cel.Overload("string_to_url", []*cel.Type{cel.StringType}, urlType, cel.UnaryBinding(func(a ref.Val) ref.Val {
			s, ok := a.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			if _, err := url.ParseRequestURI(s); err != nil {
				return types.NewErr("URL parse error during conversion from string: %v", err)
			}
			u, err := url.Parse(s)
			if err != nil {
				return types.NewErr("URL parse error during conversion from string: %v", err)
			}
			return &urlVal{u: u}
		}))),
		str("getScheme", "url_get_scheme", func(u *url.URL) string { return u.Scheme }),
		str("getHost", "url_get_host", func(u *url.URL) string { return u.Host }),
		str("getHostname", "url_get_hostname", func(u *url.URL) string { return u.Hostname() }),
		str("getPort", "url_get_port", func(u *url.URL) string { return u.Port() }),
		str("getEscapedPath", "url_get_escaped_path", func(u *url.URL) string { return u.EscapedPath() }),
		cel.Function("getQuery", cel.MemberOverload("url_get_query", []*cel.Type{urlType}, cel.MapType(cel.StringType, cel.ListType(cel.StringType)),
			get(func(u *url.URL) ref.Val {
				m := map[ref.Val]ref.Val{}
				for k, v := range u.Query() {
					m[types.String(k)] = types.NewStringList(types.DefaultTypeAdapter, v)
				}
				return types.NewRefValMap(types.DefaultTypeAdapter, m)
			}))),
		cel.Function("isURL", cel.Overload("is_url_string", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(func(a ref.Val) ref.Val {
			s, ok := a.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			_, err := url.ParseRequestURI(s)
			return types.Bool(err == nil)
		}))),
	}
}

// netVal is a network value of the ip and cidr libraries: an IP address
// (ipVal, library/ip.go) or a network prefix (cidrVal, library/cidr.go).
// Both convert to their Go value or string, to string and type, and
// compare by value.
type netVal[T netValue] struct{ v T }

// netValue is what netVal holds.
type netValue interface {
	netip.Addr | netip.Prefix
	String() string
}

type (
	ipVal   = netVal[netip.Addr]
	cidrVal = netVal[netip.Prefix]
)

// celType returns the CEL type, its name and the short name its
// ConvertToNative errors use.
func (v *netVal[T]) celType() (*types.Type, string, string) {
	if _, ok := any(v.v).(netip.Addr); ok {
		return ipType, ipTypeName, "IP"
	}
	return cidrType, cidrTypeName, "CIDR"
}

func (v *netVal[T]) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(v.v).AssignableTo(t) {
		return v.v, nil
	}
	if reflect.TypeOf("").AssignableTo(t) {
		return v.v.String(), nil
	}
	_, _, short := v.celType()
	return nil, fmt.Errorf("type conversion error from '%s' to '%v'", short, t)
}
func (v *netVal[T]) ConvertToType(t ref.Type) ref.Val {
	typ, name, _ := v.celType()
	switch t {
	case types.StringType:
		return types.String(v.v.String())
	case types.TypeType:
		return typ
	}
	return convertErr(name, t)
}
func (v *netVal[T]) Equal(o ref.Val) ref.Val {
	ov, ok := o.(*netVal[T])
	if !ok {
		return types.MaybeNoSuchOverloadErr(o)
	}
	return types.Bool(v.v == ov.v)
}
func (v *netVal[T]) Type() ref.Type { typ, _, _ := v.celType(); return typ }
func (v *netVal[T]) Value() any     { return v.v }

func parseIPAddr(raw string) (netip.Addr, error) {
	a, err := netip.ParseAddr(raw)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("IP Address %q parse error during conversion from string: %v", raw, err)
	}
	if a.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("IP address %q with zone value is not allowed", raw)
	}
	if a.Is4In6() {
		return netip.Addr{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", raw)
	}
	return a, nil
}

func stringToIP(a ref.Val) ref.Val {
	s, ok := a.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(a)
	}
	addr, err := parseIPAddr(s)
	if err != nil {
		return types.NewErr("%v", err)
	}
	return &ipVal{v: addr}
}

func ipLibrary() []cel.EnvOption {
	pred := func(name, id string, f func(netip.Addr) bool) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{ipType}, cel.BoolType, cel.UnaryBinding(func(a ref.Val) ref.Val {
			ip, ok := a.(*ipVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			return types.Bool(f(ip.v))
		})))
	}
	return []cel.EnvOption{
		cel.Types(ipType),
		cel.Function("ip", cel.Overload("string_to_ip", []*cel.Type{cel.StringType}, ipType, cel.UnaryBinding(stringToIP))),
		cel.Function("family", cel.MemberOverload("ip_family", []*cel.Type{ipType}, cel.IntType, cel.UnaryBinding(func(a ref.Val) ref.Val {
			ip, ok := a.(*ipVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			switch {
			case ip.v.Is4():
				return types.Int(4)
			case ip.v.Is6():
				return types.Int(6)
			}
			return types.NewErr("IP address %q is not an IPv4 or IPv6 address", ip.v.String())
		}))),
		cel.Function("ip.isCanonical", cel.Overload("ip_is_canonical", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(func(a ref.Val) ref.Val {
			s, ok := a.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			addr, err := parseIPAddr(s)
			if err != nil {
				return types.NewErr("%v", err)
			}
			return types.Bool(addr.String() == s)
		}))),
		pred("isUnspecified", "ip_is_unspecified", netip.Addr.IsUnspecified),
		pred("isLoopback", "ip_is_loopback", netip.Addr.IsLoopback),
		pred("isLinkLocalMulticast", "ip_is_link_local_multicast", netip.Addr.IsLinkLocalMulticast),
		pred("isLinkLocalUnicast", "ip_is_link_local_unicast", netip.Addr.IsLinkLocalUnicast),
		pred("isGlobalUnicast", "ip_is_global_unicast", netip.Addr.IsGlobalUnicast),
		cel.Function("isIP", cel.Overload("is_ip", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(func(a ref.Val) ref.Val {
			s, ok := a.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			_, err := parseIPAddr(s)
			return types.Bool(err == nil)
		}))),
		cel.Function("string", cel.Overload("ip_to_string", []*cel.Type{ipType}, cel.StringType, cel.UnaryBinding(func(a ref.Val) ref.Val {
			ip, ok := a.(*ipVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			return types.String(ip.v.String())
		}))),
	}
}

func parseCIDR(raw string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(raw)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("network address parse error during conversion from string: %v", err)
	}
	if p.Addr().Is4In6() {
		return netip.Prefix{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", raw)
	}
	return p, nil
}

func stringToCIDR(a ref.Val) ref.Val {
	s, ok := a.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(a)
	}
	p, err := parseCIDR(s)
	if err != nil {
		return types.NewErr("network address parse error during conversion from string: %v", err)
	}
	return &cidrVal{v: p}
}

func cidrContainsIP(a, o ref.Val) ref.Val {
	c, ok := a.(*cidrVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(o)
	}
	ip, ok := o.(*ipVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(a)
	}
	return types.Bool(c.v.Contains(ip.v))
}

func cidrContainsCIDR(a, o ref.Val) ref.Val {
	c, ok := a.(*cidrVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(a)
	}
	oc, ok := o.(*cidrVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(o)
	}
	return types.Bool(c.v.Overlaps(oc.v) && c.v.Bits() <= oc.v.Bits())
}

func cidrLibrary() []cel.EnvOption {
	unary := func(f func(*cidrVal) ref.Val) cel.OverloadOpt {
		return cel.UnaryBinding(func(a ref.Val) ref.Val {
			c, ok := a.(*cidrVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			return f(c)
		})
	}
	return []cel.EnvOption{
		cel.Types(cidrType),
		cel.Function("cidr", cel.Overload("string_to_cidr", []*cel.Type{cel.StringType}, cidrType, cel.UnaryBinding(stringToCIDR))),
		cel.Function("containsIP",
			cel.MemberOverload("cidr_contains_ip_string", []*cel.Type{cidrType, cel.StringType}, cel.BoolType,
				cel.BinaryBinding(func(a, o ref.Val) ref.Val { return cidrContainsIP(a, stringToIP(o)) })),
			cel.MemberOverload("cidr_contains_ip_ip", []*cel.Type{cidrType, ipType}, cel.BoolType, cel.BinaryBinding(cidrContainsIP))),
		cel.Function("containsCIDR",
			cel.MemberOverload("cidr_contains_cidr_string", []*cel.Type{cidrType, cel.StringType}, cel.BoolType,
				cel.BinaryBinding(func(a, o ref.Val) ref.Val { return cidrContainsCIDR(a, stringToCIDR(o)) })),
			cel.MemberOverload("cidr_contains_cidr", []*cel.Type{cidrType, cidrType}, cel.BoolType, cel.BinaryBinding(cidrContainsCIDR))),
		cel.Function("ip", cel.MemberOverload("cidr_ip", []*cel.Type{cidrType}, ipType, unary(func(c *cidrVal) ref.Val { return &ipVal{v: c.v.Addr()} }))),
		cel.Function("prefixLength", cel.MemberOverload("cidr_prefix_length", []*cel.Type{cidrType}, cel.IntType, unary(func(c *cidrVal) ref.Val { return types.Int(c.v.Bits()) }))),
		cel.Function("masked", cel.MemberOverload("cidr_masked", []*cel.Type{cidrType}, cidrType, unary(func(c *cidrVal) ref.Val { return &cidrVal{v: c.v.Masked()} }))),
		cel.Function("isCIDR", cel.Overload("is_cidr", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(func(a ref.Val) ref.Val {
			s, ok := a.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			_, err := parseCIDR(s)
			return types.Bool(err == nil)
		}))),
		cel.Function("string", cel.Overload("cidr_to_string", []*cel.Type{cidrType}, cel.StringType, unary(func(c *cidrVal) ref.Val { return types.String(c.v.String()) }))),
	}
}
