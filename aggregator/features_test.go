package aggregator

import (
	"testing"
)

// The error texts are kube-apiserver 1.33.13's, from
//
//	kube-apiserver --feature-gates=<value>   (E... run.go:72] "command failed" err="<text>")
//	kube-apiserver --runtime-config=<value> --etcd-servers=http://127.0.0.1:1 --service-account-issuer=x \
//	  --service-account-key-file=sa.pub --service-account-signing-key-file=sa.key
func TestParseFeatureGatesErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Nope=true", "unrecognized feature gate: Nope"},
		{"Nope", "missing bool value for Nope"},
		{"MutatingAdmissionPolicy", "missing bool value for MutatingAdmissionPolicy"},
		{"MutatingAdmissionPolicy=maybe", `invalid value of MutatingAdmissionPolicy=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax`},
		{"MutatingAdmissionPolicy=true,Foo=false", "unrecognized feature gate: Foo"},
		{"=true", "unrecognized feature gate: "},
	} {
		_, err := ParseFeatureGates([]string{tc.in})
		if err == nil || err.Error() != tc.want {
			t.Errorf("--feature-gates=%s: got %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestParseFeatureGates(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want bool
	}{
		{nil, false}, // off by default, as in 1.33
		{[]string{""}, false},
		{[]string{","}, false}, // accepted by kube-apiserver too
		{[]string{"MutatingAdmissionPolicy=true"}, true},
		{[]string{" MutatingAdmissionPolicy = True "}, true},
		{[]string{"MutatingAdmissionPolicy=true", "MutatingAdmissionPolicy=false"}, false},
		{[]string{"AllAlpha=true"}, true},
		{[]string{"AllAlpha=true,MutatingAdmissionPolicy=false"}, false},
		{[]string{"AllBeta=true"}, false},
	} {
		got, err := ParseFeatureGates(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if got[FeatureMutatingAdmissionPolicy] != tc.want {
			t.Errorf("%q: MutatingAdmissionPolicy=%v, want %v", tc.in, got[FeatureMutatingAdmissionPolicy], tc.want)
		}
	}
}

func TestParseRuntimeConfig(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    bool
		wantErr string
	}{
		{"", false, ""},
		{"admissionregistration.k8s.io/v1alpha1=true", true, ""},
		{"admissionregistration.k8s.io/v1alpha1", true, ""},
		{"admissionregistration.k8s.io/v1alpha1=false", false, ""},
		{"api/all=true", true, ""},
		{"api/alpha=true,admissionregistration.k8s.io/v1alpha1=false", false, ""},
		{"admissionregistration.k8s.io/v1=true", false, ""},
		{"foo/v1=true", false, "unknown api groups foo"},
		{"admissionregistration.k8s.io/v1alpha1=maybe", false, `invalid value of admissionregistration.k8s.io/v1alpha1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax`},
		{"admissionregistration.k8s.io/v9=true", false, "group version admissionregistration.k8s.io/v9 that has not been registered"},
		{"admissionregistration.k8s.io/v1=false", false, "--runtime-config admissionregistration.k8s.io/v1=false: aggsim cannot disable the group/versions it always serves"},
	} {
		got, err := ParseRuntimeConfig([]string{tc.in})
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%q: got %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if got[GroupVersionAdmissionRegistrationV1Alpha1] != tc.want {
			t.Errorf("%q: v1alpha1=%v, want %v", tc.in, got[GroupVersionAdmissionRegistrationV1Alpha1], tc.want)
		}
	}
}

// The gate without its API: kube-apiserver 1.33.13 never becomes ready
// (and exits after ~10 s); aggsim refuses to start and says why.
func TestMutatingAdmissionPolicyGateNeedsAPI(t *testing.T) {
	err := ValidateFeatureConfig(Options{FeatureGates: map[string]bool{FeatureMutatingAdmissionPolicy: true}})
	want := "feature gate MutatingAdmissionPolicy needs its API: add --runtime-config=admissionregistration.k8s.io/v1alpha1=true (kube-apiserver 1.33 never becomes ready without it)"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}
