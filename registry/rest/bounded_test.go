package rest

// Every decoder of request bodies stays bounded in memory: the fuzz targets
// below assert, for every input, that decoding allocates at most a fixed
// multiple of the input's size plus a constant (allocBound), and the
// benchmarks report bytes allocated per input byte for the inputs that used
// to blow up (deep nesting, many JSON patch operations, copy chains).

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// allocated returns the bytes fn allocates (process-wide: fuzz workers and
// benchmarks run one input at a time).
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// allocBound is the most a decoder may allocate for an input of n bytes:
// perByte times n plus 4 MiB. The multiples are measured with room to
// spare (see the benchmarks), and widened under the race detector; before
// the bounds, a 147 KiB body nested 25,000 levels deep allocated about
// 700 MiB in the JSON decoder.
func allocBound(n int, perByte uint64) uint64 {
	return raceAllocFactor * (perByte*uint64(n) + 4<<20)
}

// checkAlloc fails t when fn allocates more than allocBound(n, perByte).
func checkAlloc(t *testing.T, what string, n int, perByte uint64, fn func()) {
	t.Helper()
	if got, limit := allocated(fn), allocBound(n, perByte); got > limit {
		t.Fatalf("%s: %d input bytes allocated %d bytes, over the bound %d", what, n, got, limit)
	}
}

// nested returns a JSON value nested depth levels deep: [[[...]]].
func nested(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }

// deepConfigMap is a ConfigMap whose data holds a value nested depth levels.
func deepConfigMap(depth int) []byte {
	return []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":{"a":` + nested(depth) + `}}`)
}

// The per-byte multiples of allocBound, per decoder.
const (
	jsonPerByte     = 64
	yamlPerByte     = 1024 // the YAML library's node tree; its own depth limit is 10,000
	protoPerByte    = 64
	patchPerByte    = 64
	jsonPatchCopies = 10 // a JSON patch may grow the document by MaxJSONPatchCopyBytes; the library allocates about 7 times that
)

// TestDeepJSONIsRefusedCheaply: the nested-JSON input of the hardening
// report is refused with upstream's 400, allocating about what it reads.
func TestDeepJSONIsRefusedCheaply(t *testing.T) {
	for _, depth := range []int{25_000, 100_000} {
		body := deepConfigMap(depth)
		var err error
		checkAlloc(t, fmt.Sprintf("depth %d", depth), len(body), 4, func() {
			_, err = decodeObject(body, widgetStrategy{}.Info(), &Widget{}, decodeOptions{fieldValidation: FieldValidationStrict})
		})
		want := `the object provided is unrecognized (must be of type Widget): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth ({"apiVersion":"v1","kind":"Con ...)`
		if err == nil || err.Error() != want {
			t.Errorf("depth %d: error %v\nwant %s", depth, err, want)
		}
		if _, err := BodyToJSON("application/yaml", []byte("a: "+nested(depth))); err == nil || !strings.Contains(err.Error(), "exceeded max depth") {
			t.Errorf("YAML depth %d: error %v", depth, err)
		}
	}
}

// TestJSONPatchLimits: more than 10,000 operations is 413 with upstream's
// text, and copies that grow the document beyond 3 MiB fail with
// upstream's generic 422 before the memory is spent.
func TestJSONPatchLimits(t *testing.T) {
	ops := make([]string, 20_000)
	for i := range ops {
		ops[i] = fmt.Sprintf(`{"op":"add","path":"/data/k%d","value":"v"}`, i)
	}
	_, err := applyPatch(PatchJSON, []byte(`{"data":{}}`), []byte("["+strings.Join(ops, ",")+"]"), nil)
	st := meta.ToStatus(err).Status
	if st.Code != 413 || st.Message != "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 20000" {
		t.Errorf("20,000 operations: %d %q", st.Code, st.Message)
	}

	doc, _ := json.Marshal(map[string]any{"data": map[string]string{"a": strings.Repeat("x", 32<<10)}})
	copies := make([]string, 11)
	for i := range copies {
		copies[i] = fmt.Sprintf(`{"op":"copy","from":"/data","path":"/data/c%d"}`, i)
	}
	patch := []byte("[" + strings.Join(copies, ",") + "]")
	checkAlloc(t, "copy chain", jsonPatchCopies*MaxJSONPatchCopyBytes, 1, func() {
		_, err = applyPatch(PatchJSON, doc, patch, nil)
	})
	st = meta.ToStatus(err).Status
	if st.Code != 422 || st.Message != "the server rejected our request due to an error in our request" || st.Details == nil {
		t.Errorf("copy chain: %d %q %+v", st.Code, st.Message, st.Details)
	}
}

// FuzzDecodeBounded: decoding a body as JSON (strict, warn and ignore) and
// converting it from YAML never allocates more than allocBound.
func FuzzDecodeBounded(f *testing.F) {
	f.Add(deepConfigMap(25_000))
	f.Add(deepConfigMap(9_990))
	f.Add([]byte(`{"kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"name":"a","labels":{"a":"b"}},"spec":{"size":1,"tags":["x","y"]}}`))
	f.Add([]byte("a: " + nested(9_999)))
	f.Add([]byte(strings.Repeat("- [a, {b: c}]\n", 2000)))
	info := widgetStrategy{}.Info()
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, fv := range []string{FieldValidationStrict, FieldValidationWarn, FieldValidationIgnore} {
			checkAlloc(t, "json "+fv, len(body), jsonPerByte, func() {
				_, _ = decodeObject(body, info, &Widget{}, decodeOptions{fieldValidation: fv})
			})
		}
		checkAlloc(t, "yaml", len(body), yamlPerByte, func() { _, _ = BodyToJSON("application/yaml", body) })
	})
}

// FuzzProtobufBounded: decoding a protobuf body never allocates more than
// allocBound.
func FuzzProtobufBounded(f *testing.F) {
	f.Add([]byte(ProtobufMagic))
	f.Add(append([]byte(ProtobufMagic), 0x0a, 0x02, 0x76, 0x31, 0x12, 0x09, 'C', 'o', 'n', 'f', 'i', 'g', 'M', 'a', 'p'))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAlloc(t, "protobuf", len(body), protoPerByte, func() { _, _, _, _ = DecodeProtobufToJSON(body) })
	})
}

// FuzzPatchBounded: applying a JSON, merge or strategic merge patch to a
// small object never allocates more than allocBound of the patch (a JSON
// patch may add its copy allowance).
func FuzzPatchBounded(f *testing.F) {
	f.Add([]byte(`[{"op":"copy","from":"/data","path":"/data/c1"},{"op":"copy","from":"/data","path":"/data/c2"}]`))
	f.Add([]byte(`{"data":{"b":` + nested(9_990) + `}}`))
	f.Add([]byte(`{"spec":{"ports":[{"port":1,"$patch":"delete"}]},"data":{"x":null}}`))
	orig, _ := json.Marshal(map[string]any{"data": map[string]string{"a": strings.Repeat("x", 4096)}, "spec": map[string]any{"ports": []any{map[string]any{"port": 1}}}})
	mk := map[string]string{"spec.ports": "port"}
	f.Fuzz(func(t *testing.T, patch []byte) {
		n := len(orig) + len(patch)
		for _, pt := range []string{PatchJSON, PatchMerge, PatchStrategic} {
			per := uint64(patchPerByte)
			extra := 0
			if pt == PatchJSON {
				extra = jsonPatchCopies * MaxJSONPatchCopyBytes
			}
			checkAlloc(t, pt, n+extra, per, func() { _, _ = applyPatch(pt, orig, patch, mk) })
		}
	})
}

// BenchmarkDecodeDeepJSON reports the bytes allocated per input byte for
// the nested-JSON input of the hardening report (before the bounds: about
// 4,900 per byte at depth 25,000).
func BenchmarkDecodeDeepJSON(b *testing.B) {
	body := deepConfigMap(25_000)
	info := widgetStrategy{}.Info()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	var total uint64
	for b.Loop() {
		total += allocated(func() {
			_, _ = decodeObject(body, info, &Widget{}, decodeOptions{fieldValidation: FieldValidationStrict})
		})
	}
	b.ReportMetric(float64(total)/float64(b.N)/float64(len(body)), "alloc-bytes/input-byte")
}

// BenchmarkJSONPatchCopyChain reports the bytes allocated for the patch of
// eleven copies of a 32 KiB object (before the limit: 1.27 GB RSS).
func BenchmarkJSONPatchCopyChain(b *testing.B) {
	doc, _ := json.Marshal(map[string]any{"data": map[string]string{"a": strings.Repeat("x", 32<<10)}})
	copies := make([]string, 11)
	for i := range copies {
		copies[i] = fmt.Sprintf(`{"op":"copy","from":"/data","path":"/data/c%d"}`, i)
	}
	patch := []byte("[" + strings.Join(copies, ",") + "]")
	b.ReportAllocs()
	var total uint64
	for b.Loop() {
		total += allocated(func() { _, _ = applyPatch(PatchJSON, doc, patch, nil) })
	}
	b.ReportMetric(float64(total)/float64(b.N), "alloc-bytes/op")
}
