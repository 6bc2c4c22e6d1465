package celrules

import (
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
)

// ObjectTypesOver resolves its own object types and leaves the others to
// the next provider; both type-check in one environment.
func TestObjectTypesOverChainsProviders(t *testing.T) {
	next := &chainProvider{next: types.NewEmptyRegistry(), objs: map[string]*declType{
		"test.B": {kind: kindObject, cel: types.NewObjectType("test.B"), fields: map[string]*declField{"y": {name: "y", typ: &declType{cel: types.StringType}}}},
	}}
	env, err := cel.NewEnv(append(EnvOptions(),
		ObjectTypesOver(map[string][]Field{"test.A": {{Name: "x", Type: types.IntType}}}, next),
		cel.Variable("a", types.NewObjectType("test.A")), cel.Variable("b", types.NewObjectType("test.B")))...)
	if err != nil {
		t.Fatal(err)
	}
	if _, iss := env.Compile("a.x == 1 && b.y == 's'"); iss.Err() != nil {
		t.Fatalf("both types: %v", iss.Err())
	}
	for expr, want := range map[string]string{
		"b.z == 1":   "undefined field 'z'",
		"a.x == 's'": "found no matching overload for '_==_' applied to '(int, string)'",
	} {
		_, iss := env.Compile(expr)
		if iss.Err() == nil || !strings.Contains(iss.Err().Error(), want) {
			t.Errorf("%s: got %v, want %s", expr, iss.Err(), want)
		}
	}
}
