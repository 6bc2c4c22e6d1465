package structural

import (
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// BenchmarkServiceMonitor measures Default+Prune+PruneNulls+Validate of
// the captured full ServiceMonitor object (ok-02-full) against
// prometheus-operator's ServiceMonitor schema (1,428 lines of YAML, 75 KB),
// the per-request cost of a custom-resource write. Each iteration works
// on a fresh deep copy of the decoded object.
func BenchmarkServiceMonitor(b *testing.B) {
	s := loadSchemas(b)["servicemonitors.monitoring.coreos.com"]["v1"]
	obj := yamlObject(b, "testdata/objects/servicemonitors.monitoring.coreos.com/ok-02-full.yaml")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o := meta.DeepCopyJSONValue(obj).(map[string]any)
		s.Default(o)
		s.Prune(o)
		s.PruneNulls(o)
		if errs := s.Validate(o); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkNewServiceMonitor measures parsing and checking the
// ServiceMonitor schema (what a CRD create or update costs here).
func BenchmarkNewServiceMonitor(b *testing.B) {
	raw := crdSchemas(b, "monitoring.coreos.com_servicemonitors.yaml")["v1"]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, errs := New(raw, "spec.versions[0].schema.openAPIV3Schema"); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
