package rest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// TestProtobufBodyErrors pins the 400s of protobuf request bodies as
// kube-apiserver 1.33.13 answers them (curl -XPOST -H 'Content-Type:
// application/vnd.kubernetes.protobuf' --data-binary @<body> to the
// resource): a body of another registered kind cannot be converted, one of
// a kind the aggregator's scheme lacks is not registered, and a body that
// is no protobuf message is unrecognized with the hex of its start.
func TestProtobufBodyErrors(t *testing.T) {
	ssar, err := os.ReadFile(filepath.Join(protobufTestdata, "selfsubjectaccessreview.pb"))
	if err != nil {
		t.Fatal(err)
	}
	infoOf := func(group, kind string) registry.ResourceInfo {
		for _, s := range append(registry.Strategies(nil), registry.ReviewStrategies()...) {
			if s.Info().Group == group && s.Info().Kind == kind {
				return s.Info()
			}
		}
		t.Fatalf("no %s %s", group, kind)
		return registry.ResourceInfo{}
	}
	for _, tc := range []struct {
		name string
		body []byte
		info registry.ResourceInfo
		want string
	}{
		{"to configmaps", ssar, infoOf("", "ConfigMap"),
			`SelfSubjectAccessReview in version "v1" cannot be handled as a ConfigMap: converting (v1.SelfSubjectAccessReview) to (core.ConfigMap): unknown conversion`},
		{"to tokenreviews", ssar, infoOf("authentication.k8s.io", "TokenReview"),
			`SelfSubjectAccessReview in version "v1" cannot be handled as a TokenReview: converting (v1.SelfSubjectAccessReview) to (authentication.TokenReview): unknown conversion`},
		{"to apiservices", ssar, infoOf("apiregistration.k8s.io", "APIService"),
			`SelfSubjectAccessReview in version "v1" cannot be handled as a APIService: no kind "SelfSubjectAccessReview" is registered for version "authorization.k8s.io/v1" in scheme "pkg/runtime/scheme.go:110"`},
		{"garbage", []byte("garbage"), infoOf("authorization.k8s.io", "SelfSubjectAccessReview"),
			`the object provided is unrecognized (must be of type SelfSubjectAccessReview): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (67617262616765)`},
	} {
		_, err := bodyToJSONFor("application/vnd.kubernetes.protobuf", tc.body, tc.info)
		st := meta.ToStatus(err).Status
		if err == nil || st.Code != 400 || st.Reason != "BadRequest" || st.Message != tc.want {
			t.Errorf("%s: %v (%d %s)\nwant %s", tc.name, err, st.Code, st.Reason, tc.want)
		}
	}
	if j, err := bodyToJSONFor("application/vnd.kubernetes.protobuf", ssar, infoOf("authorization.k8s.io", "SelfSubjectAccessReview")); err != nil || len(j) == 0 {
		t.Errorf("own kind: %s %v", j, err)
	}
}
