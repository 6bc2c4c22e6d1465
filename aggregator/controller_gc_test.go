package aggregator

import (
	"fmt"
	"testing"
)

// --controllers knows kube-controller-manager 1.33's garbage-collector-controller
// and its alias garbagecollector (`kube-controller-manager --help` lists the
// canonical name); the collector is on by default.
func TestGarbageCollectorControllersFlag(t *testing.T) {
	for _, c := range []struct {
		list []string
		want bool
	}{{nil, true}, {[]string{"*"}, true}, {[]string{"*", "-garbagecollector"}, false}, {[]string{"*", "-garbage-collector-controller"}, false},
		{[]string{"-namespace"}, false}, {[]string{"*", "-namespace"}, true}, {[]string{"garbagecollector"}, true}} {
		if got := ControllerEnabled("garbage-collector-controller", c.list); got != c.want {
			t.Errorf("%q: %v, want %v", c.list, got, c.want)
		}
	}
	if err := ValidateControllers([]string{"*", "-garbagecollector", "garbage-collector-controller"}); err != nil {
		t.Errorf("ValidateControllers: %v", err)
	}
	if got := fmt.Sprint(ValidateControllers([]string{"-garbage-collector"})); got != `"garbage-collector" is not in the list of known controllers` {
		t.Errorf("ValidateControllers(-garbage-collector) = %s", got)
	}
}
