package aggregator_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"testing"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// protobufClient is groupClient as kubectl 1.33 configures it for the
// review kinds: protobuf bodies, Accept
// "application/vnd.kubernetes.protobuf,application/json".
func protobufClient(t *testing.T, s *aggregatortest.Server, group string) *rest.RESTClient {
	t.Helper()
	cfg := rest.CopyConfig(restConfig(t, s))
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cfg.GroupVersion = &schema.GroupVersion{Group: group, Version: "v1"}
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	c, err := rest.RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestReviewsProtobuf sends the review kinds as kubectl auth can-i,
// can-i --list and whoami do (protobuf bodies; before, aggsim answered 400
// `no kind "SelfSubjectAccessReview" is registered for version
// "authorization.k8s.io/v1"`) and decodes the protobuf answers with
// client-go, as against kube-apiserver 1.33.13.
func TestReviewsProtobuf(t *testing.T) {
	s := aggregatortest.Start(t, aggregatortest.WithToken("tok-alice", "alice", "dev"))
	authz := protobufClient(t, s, "authorization.k8s.io")
	authn := protobufClient(t, s, "authentication.k8s.io")
	ctx := context.Background()

	ssar := &authzv1.SelfSubjectAccessReview{}
	if err := authz.Post().Resource("selfsubjectaccessreviews").Body(&authzv1.SelfSubjectAccessReview{Spec: authzv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authzv1.ResourceAttributes{Namespace: "default", Verb: "list", Resource: "configmaps"}}}).Do(ctx).Into(ssar); err != nil {
		t.Fatal(err)
	}
	if !ssar.Status.Allowed || ssar.Spec.ResourceAttributes.Resource != "configmaps" || len(ssar.ManagedFields) != 1 || ssar.ManagedFields[0].Operation != "Update" {
		t.Errorf("SelfSubjectAccessReview: %+v", ssar)
	}

	rr := &authzv1.SelfSubjectRulesReview{}
	if err := authz.Post().Resource("selfsubjectrulesreviews").Body(&authzv1.SelfSubjectRulesReview{Spec: authzv1.SelfSubjectRulesReviewSpec{Namespace: "default"}}).Do(ctx).Into(rr); err != nil {
		t.Fatal(err)
	}
	if rr.Spec.Namespace != "" || len(rr.ManagedFields) != 0 || len(rr.Status.ResourceRules) != 1 || !slices.Equal(rr.Status.ResourceRules[0].Verbs, []string{"*"}) {
		t.Errorf("SelfSubjectRulesReview (want spec {} and no managedFields, as upstream): %+v", rr)
	}

	ssr := &authnv1.SelfSubjectReview{}
	if err := authn.Post().Resource("selfsubjectreviews").Body(&authnv1.SelfSubjectReview{}).Do(ctx).Into(ssr); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(ssr.Status.UserInfo.Groups, "system:masters") || len(ssr.Status.UserInfo.Extra["authentication.kubernetes.io/credential-id"]) != 1 {
		t.Errorf("SelfSubjectReview: %+v", ssr)
	}

	sar := &authzv1.SubjectAccessReview{}
	if err := authz.Post().Resource("subjectaccessreviews").Body(&authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
		User: "bob", Extra: map[string]authzv1.ExtraValue{"k": {"a"}, "e": {}},
		ResourceAttributes: &authzv1.ResourceAttributes{Verb: "list", Resource: "pods", FieldSelector: &authzv1.FieldSelectorAttributes{RawSelector: "a=b"}}}}).Do(ctx).Into(sar); err != nil {
		t.Fatal(err)
	}
	if !sar.Status.Allowed || sar.Spec.ResourceAttributes.FieldSelector == nil || sar.Spec.ResourceAttributes.FieldSelector.RawSelector != "a=b" ||
		!slices.Equal(sar.Spec.Extra["k"], authzv1.ExtraValue{"a"}) || sar.Spec.Extra["e"] == nil {
		t.Errorf("SubjectAccessReview: %+v", sar)
	}

	tr := &authnv1.TokenReview{}
	if err := authn.Post().Resource("tokenreviews").Body(&authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: "bogus"}}).Do(ctx).Into(tr); err != nil {
		t.Fatal(err)
	}
	if tr.Status.Authenticated || tr.Status.Error != "invalid bearer token" || tr.Spec.Token != "bogus" {
		t.Errorf("TokenReview: %+v", tr)
	}

	// The answer itself is protobuf (k8s\x00 and runtime.Unknown).
	var body bytes.Buffer
	if err := scheme.Codecs.EncoderForVersion(protobufSerializer(t), authzv1.SchemeGroupVersion).Encode(&authzv1.SelfSubjectAccessReview{Spec: authzv1.SelfSubjectAccessReviewSpec{
		NonResourceAttributes: &authzv1.NonResourceAttributes{Path: "/healthz", Verb: "get"}}}, &body); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", s.URL+"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", &body)
	req.Header.Set("Content-Type", "application/vnd.kubernetes.protobuf")
	req.Header.Set("Accept", "application/vnd.kubernetes.protobuf,application/json")
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 201 || resp.Header.Get("Content-Type") != "application/vnd.kubernetes.protobuf" || !bytes.HasPrefix(b, []byte("k8s\x00")) {
		t.Fatalf("raw answer %d %s %q", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
}

func protobufSerializer(t *testing.T) runtime.Serializer {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), "application/vnd.kubernetes.protobuf")
	if !ok {
		t.Fatal("no protobuf serializer")
	}
	return info.Serializer
}
