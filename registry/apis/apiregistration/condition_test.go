package apiregistration

import (
	"reflect"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// HasCondition is true exactly when SetCondition would change nothing
// (same type, status, reason and message; the transition time is not
// compared), and it leaves the object as it was.
func TestHasConditionMatchesSetCondition(t *testing.T) {
	t0, t1 := meta.NewTime(time.Unix(1700000000, 0)), meta.NewTime(time.Unix(1700000100, 0))
	base := APIService{Status: APIServiceStatus{Conditions: []APIServiceCondition{
		{Type: Available, Status: ConditionTrue, LastTransitionTime: t0, Reason: ReasonLocal, Message: MessageLocal},
	}}}
	for _, c := range []struct {
		name string
		cond APIServiceCondition
		has  bool
	}{
		{"same", APIServiceCondition{Type: Available, Status: ConditionTrue, LastTransitionTime: t0, Reason: ReasonLocal, Message: MessageLocal}, true},
		{"same but its time", APIServiceCondition{Type: Available, Status: ConditionTrue, LastTransitionTime: t1, Reason: ReasonLocal, Message: MessageLocal}, true},
		{"other status", APIServiceCondition{Type: Available, Status: ConditionFalse, LastTransitionTime: t1, Reason: ReasonLocal, Message: MessageLocal}, false},
		{"other reason", APIServiceCondition{Type: Available, Status: ConditionTrue, LastTransitionTime: t0, Reason: "Passed", Message: MessageLocal}, false},
		{"other message", APIServiceCondition{Type: Available, Status: ConditionTrue, LastTransitionTime: t0, Reason: ReasonLocal, Message: "all checks passed"}, false},
		{"other type", APIServiceCondition{Type: "Other", Status: ConditionTrue, LastTransitionTime: t0, Reason: ReasonLocal, Message: MessageLocal}, false},
	} {
		a := base.DeepCopy()
		if got := a.HasCondition(c.cond); got != c.has {
			t.Errorf("%s: HasCondition = %v, want %v", c.name, got, c.has)
		}
		if !reflect.DeepEqual(a, base.DeepCopy()) {
			t.Errorf("%s: HasCondition changed the object: %+v", c.name, a.Status)
		}
		if changed := a.SetCondition(c.cond); changed == c.has {
			t.Errorf("%s: SetCondition changed = %v, HasCondition %v", c.name, changed, c.has)
		}
	}
}
