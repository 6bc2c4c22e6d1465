package celrules

import (
	"fmt"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
)

// TestNetValues pins what ip and cidr values answer as CEL values:
// equality (also across the two kinds), type(), string(), conversion
// to a type they do not convert to, and ConvertToNative, as library/ip.go
// and library/cidr.go do.
func TestNetValues(t *testing.T) {
	env, err := cel.NewEnv(extraLibraries()...)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, expr := range []string{
		`ip("10.0.0.1") == ip("10.0.0.1")`,
		`ip("10.0.0.1") == ip("10.0.0.2")`,
		`cidr("10.0.0.0/8") == cidr("10.0.0.0/8")`,
		`cidr("10.0.0.0/8") == cidr("10.0.0.0/16")`,
		`cidr("10.0.0.1/8").ip() == ip("10.0.0.1")`,
		`type(ip("10.0.0.1")) == net.IP`,
		`type(cidr("10.0.0.0/8")) == net.CIDR`,
		`string(ip("::1"))`,
		`string(cidr("10.0.0.1/8").masked())`,
		`[ip("::1")] == [ip("::1")]`,
		`dyn(ip("::1")) == dyn(cidr("::1/128"))`,
		`int(dyn(ip("::1")))`,
		`int(dyn(cidr("::1/128")))`,
	} {
		ast, iss := env.Compile(expr)
		if iss.Err() != nil {
			got = append(got, expr+" -> compile: "+iss.Err().Error())
			continue
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatal(err)
		}
		v, _, err := prg.Eval(cel.NoVars())
		got = append(got, fmt.Sprintf("%s -> %v %v", expr, v, err))
	}
	ip := &ipVal{v: netip.MustParseAddr("::1")}
	c := &cidrVal{v: netip.MustParsePrefix("::1/128")}
	for _, to := range []reflect.Type{reflect.TypeOf(""), reflect.TypeOf(0), reflect.TypeOf(netip.Addr{}), reflect.TypeOf(netip.Prefix{})} {
		a, err := ip.ConvertToNative(to)
		b, err2 := c.ConvertToNative(to)
		got = append(got, fmt.Sprintf("native %v: %v %v | %v %v", to, a, err, b, err2))
	}
	got = append(got, fmt.Sprintf("%v %v %v | %v %v %v", ip.ConvertToType(types.StringType), ip.ConvertToType(types.TypeType), ip.ConvertToType(types.IntType),
		c.ConvertToType(types.StringType), c.ConvertToType(types.TypeType), c.ConvertToType(types.IntType)))
	want := `ip("10.0.0.1") == ip("10.0.0.1") -> true <nil>
ip("10.0.0.1") == ip("10.0.0.2") -> false <nil>
cidr("10.0.0.0/8") == cidr("10.0.0.0/8") -> true <nil>
cidr("10.0.0.0/8") == cidr("10.0.0.0/16") -> false <nil>
cidr("10.0.0.1/8").ip() == ip("10.0.0.1") -> true <nil>
type(ip("10.0.0.1")) == net.IP -> true <nil>
type(cidr("10.0.0.0/8")) == net.CIDR -> true <nil>
string(ip("::1")) -> ::1 <nil>
string(cidr("10.0.0.1/8").masked()) -> 10.0.0.0/8 <nil>
[ip("::1")] == [ip("::1")] -> true <nil>
dyn(ip("::1")) == dyn(cidr("::1/128")) -> no such overload no such overload
int(dyn(ip("::1"))) -> no such overload: int(net.IP) no such overload: int(net.IP)
int(dyn(cidr("::1/128"))) -> no such overload: int(net.CIDR) no such overload: int(net.CIDR)
native string: ::1 <nil> | ::1/128 <nil>
native int: <nil> type conversion error from 'IP' to 'int' | <nil> type conversion error from 'CIDR' to 'int'
native netip.Addr: ::1 <nil> | <nil> type conversion error from 'CIDR' to 'netip.Addr'
native netip.Prefix: <nil> type conversion error from 'IP' to 'netip.Prefix' | ::1/128 <nil>
::1 net.IP type conversion error from 'net.IP' to 'int' | ::1/128 net.CIDR type conversion error from 'net.CIDR' to 'int'
`
	if g := strings.Join(got, "\n") + "\n"; g != want {
		t.Errorf("got:\n%s", g)
	}
}
