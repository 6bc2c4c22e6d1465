package registry

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestPriorityLevelRowExempt pins the row kube-apiserver 1.33.13 prints
// for its bootstrap exempt level, whose spec is
// {"type":"Exempt","exempt":{"nominalConcurrencyShares":0,"lendablePercent":0}}
// (kubectl get prioritylevelconfigurations on the reference:
// "exempt  Exempt  <none>  <none>  <none>  <none>"), and for a queuing
// Limited level ("global-default  Limited  20  128  6  50").
func TestPriorityLevelRowExempt(t *testing.T) {
	for spec, want := range map[string]string{
		`{"type":"Exempt","exempt":{"nominalConcurrencyShares":0,"lendablePercent":0}}`:                                                                                                  `[Exempt <none> <none> <none> <none>]`,
		`{"type":"Limited","limited":{"nominalConcurrencyShares":20,"limitResponse":{"type":"Queue","queuing":{"queues":128,"handSize":6,"queueLengthLimit":50}},"lendablePercent":50}}`: `[Limited 20 128 6 50]`,
	} {
		got := fmt.Sprint(priorityLevelRow(&GenericObject{Spec: json.RawMessage(spec)}))
		if got != want {
			t.Errorf("%s: row %s, want %s", spec, got, want)
		}
	}
}
