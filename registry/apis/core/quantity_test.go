package core

import "testing"

// Canonical forms as kube-apiserver 1.33.13 stored them (kubectl create -f
// of a ResourceQuota with these hard values, then -o yaml), and upstream's
// quantity_test.go table.
func TestQuantityCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"10": "10", "1.5": "1500m", "2048Mi": "2Gi", "1.5Gi": "1536Mi", "1e3": "1e3",
		"100m": "100m", "0": "0", "0.0": "0", "1000m": "1", "1024": "1024", "1Ki": "1Ki",
		"1023Ki": "1023Ki", "1.5Ki": "1536", "0.5Ki": "512", "0.1m": "100u", "1n": "1n",
		"0.0000000001": "1n", "-1.5": "-1500m", "1e-3": "1e-3", "12e5": "1200e3", "5M": "5M",
		"100Mi": "100Mi", "500Ki": "500Ki", ".5": "500m", "1.": "1", "+3": "3",
		"99999999999999999999": "9223372036854775807",
	} {
		q, err := ParseQuantity(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if got := q.String(); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
	for _, bad := range []string{"", "abc", "1.5.5", "1Q", "1e", "1ee3", "- 1"} {
		if _, err := ParseQuantity(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if _, err := ParseQuantity("1x"); err != ErrQuantityFormat {
		t.Errorf("1x: %v", err)
	}
	if _, err := ParseQuantity("1Mb"); err == nil {
		t.Errorf("1Mb parsed")
	}
}

// Upstream's %#v of quantities after ResourceList defaulting, as
// kube-apiserver 1.33.13 printed them in "must be an integer" causes
// (ResourceQuota spec.hard values "1.5" (a JSON number), "0.1m", "1e-3", ".5").
func TestQuantityGoSyntax(t *testing.T) {
	for in, want := range map[string]string{
		"1.5":  `resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}`,
		"0.1m": `resource.Quantity{i:resource.int64Amount{value:1, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}`,
		"1e-3": `resource.Quantity{i:resource.int64Amount{value:1, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1e-3", Format:"DecimalExponent"}`,
		".5":   `resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}`,
	} {
		q := MustParseQuantity(in)
		q.RoundUpMilli()
		if got := q.GoSyntax(); got != want {
			t.Errorf("%q:\n got %s\nwant %s", in, got, want)
		}
	}
	q := MustParseQuantity("0.0000000001")
	q.RoundUpMilli()
	if q.String() != "1m" {
		t.Errorf("0.0000000001 rounded to %s, want 1m", q.String())
	}
}
