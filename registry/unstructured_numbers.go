package registry

import (
	"encoding/json"
	"strconv"
)

// canonicalNumbers rewrites, in place, every json.Number under v (maps
// and lists decoded with UseNumber) the way a custom resource's numbers
// come back from kube-apiserver: upstream decodes unstructured JSON into
// int64 when the text is an integer and float64 otherwise, and encodes
// float64 with encoding/json, so after a write and a read 1.0 is 1, 1e2
// is 100, 0.10 is 0.1, -0.0 is 0, 1e21 is 1e+21 and
// 12345678901234567890 is 12345678901234567000 (kube-apiserver 1.33.13,
// POST then GET of a custom resource; see
// TestCustomResourceNumbersAsUpstream). It returns v.
func canonicalNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = canonicalNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = canonicalNumbers(e)
		}
	case json.Number:
		return canonicalNumber(x)
	}
	return v
}

// canonicalNumber is one number as canonicalNumbers rewrites it; text
// that does not parse (an overflow to infinity) is kept.
func canonicalNumber(n json.Number) json.Number {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return json.Number(strconv.FormatInt(i, 10))
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return n
	}
	b, err := json.Marshal(f)
	if err != nil {
		return n
	}
	if i, err := strconv.ParseInt(string(b), 10, 64); err == nil { // read back as int64
		return json.Number(strconv.FormatInt(i, 10))
	}
	return json.Number(b)
}
