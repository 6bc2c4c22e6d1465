package registry

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// validationCapture is one file of testdata/registry-types/d-validation,
// captured from kube-apiserver 1.33.
type validationCapture struct {
	Case       string          `json:"case"`
	Request    json.RawMessage `json:"request"`
	HTTPStatus int             `json:"httpStatus"`
	RawResp    json.RawMessage `json:"response"`
	Response   *meta.Status    `json:"-"` // decoded from RawResp unless 201
	StoredSpec json.RawMessage `json:"storedSpec"`
}

const caPlaceholder = "<base64 backend-ca.crt>"

func backendCABase64(t testing.TB) string {
	b, err := os.ReadFile("../testdata/registry-types/backend-ca.b64")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func loadValidationCapture(t testing.TB, name string) validationCapture {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("../testdata/registry-types/d-validation", name))
	if err != nil {
		t.Fatal(err)
	}
	raw = bytes.ReplaceAll(raw, []byte(caPlaceholder), []byte(backendCABase64(t)))
	var c validationCapture
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if c.HTTPStatus != 201 {
		c.Response = &meta.Status{}
		if err := json.Unmarshal(c.RawResp, c.Response); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return c
}

// canonicalJSON re-encodes a JSON value with sorted keys for comparison.
func canonicalJSON(t testing.TB, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestValidateAPIServiceCaptures replays every create case of the
// d-validation captures through decode → PrepareForCreate → Validate and
// compares the outcome with what kube-apiserver 1.33 answered: the exact
// Status message and causes for 422, the decode error for 400, the
// stored spec for 201.
func TestValidateAPIServiceCaptures(t *testing.T) {
	files, err := filepath.Glob("../testdata/registry-types/d-validation/*.json")
	if err != nil || len(files) < 30 {
		t.Fatalf("captures missing: %v %d", err, len(files))
	}
	s := APIServiceStrategy{Now: func() time.Time { return time.Unix(1e9, 0) }}
	tested := 0
	for _, f := range files {
		c := loadValidationCapture(t, filepath.Base(f))
		if c.Request == nil {
			continue // update and duplicate cases: see TestValidateAPIServiceUpdateCaptures
		}
		tested++
		t.Run(c.Case, func(t *testing.T) {
			var a apiregistration.APIService
			err := json.Unmarshal(c.Request, &a)
			if c.HTTPStatus == 400 {
				if err == nil {
					t.Fatal("decoded, want error")
				}
				want := c.Response.Message[strings.Index(c.Response.Message, ": ")+2:]
				if err.Error() != want {
					t.Fatalf("decode error %q, want %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s.PrepareForCreate(&a)
			errs := s.Validate(&a)
			switch c.HTTPStatus {
			case 201:
				if len(errs) != 0 {
					t.Fatalf("want valid, got %v", meta.NewInvalid(apiregistration.GroupAPIRegistration, "APIService", a.Name, errs).Error())
				}
				if c.StoredSpec != nil {
					got, _ := json.Marshal(a.Spec)
					if g, w := canonicalJSON(t, got), canonicalJSON(t, c.StoredSpec); g != w {
						t.Fatalf("stored spec\n got %s\nwant %s", g, w)
					}
				}
			case 422:
				se := meta.NewInvalid(apiregistration.GroupAPIRegistration, "APIService", a.Name, errs)
				if se.Status.Message != c.Response.Message {
					t.Fatalf("message\n got %s\nwant %s", se.Status.Message, c.Response.Message)
				}
				got, _ := json.Marshal(se.Status)
				want, _ := json.Marshal(c.Response)
				if g, w := canonicalJSON(t, got), canonicalJSON(t, want); g != w {
					t.Fatalf("status\n got %s\nwant %s", g, w)
				}
			default:
				t.Fatalf("unexpected capture status %d", c.HTTPStatus)
			}
		})
	}
	if tested != 32 {
		t.Fatalf("replayed %d create captures, want 32", tested)
	}
}

func validAPIService(name, group string) *apiregistration.APIService {
	port := int32(8443)
	return &apiregistration.APIService{
		TypeMeta:   meta.TypeMeta{Kind: "APIService", APIVersion: "apiregistration.k8s.io/v1"},
		ObjectMeta: meta.ObjectMeta{Name: name, UID: "u1", ResourceVersion: "5", Generation: 1},
		Spec: apiregistration.APIServiceSpec{
			Service: &apiregistration.ServiceReference{Namespace: "wardle", Name: "api", Port: &port},
			Group:   group, Version: "v1", GroupPriorityMinimum: 1000, VersionPriority: 15,
		},
	}
}

// TestValidateAPIServiceUpdateCaptures rebuilds the two update cases
// (merge patches applied to v1.dup.example.com) and the duplicate create.
func TestValidateAPIServiceUpdateCaptures(t *testing.T) {
	s := APIServiceStrategy{}
	ca := []byte(backendCABase64(t))
	tests := []struct {
		file   string
		mutate func(*apiregistration.APIService)
	}{
		{"update-invalid.json", func(a *apiregistration.APIService) {
			a.Spec.GroupPriorityMinimum = 0
			a.Spec.InsecureSkipTLSVerify = true
			a.Spec.CABundle = ca
		}},
		{"update-group.json", func(a *apiregistration.APIService) { a.Spec.Group = "other.example.com" }},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c := loadValidationCapture(t, tt.file)
			old := validAPIService("v1.dup.example.com", "dup.example.com")
			obj := old.DeepCopy()
			tt.mutate(obj)
			s.PrepareForUpdate(obj, old)
			se := meta.NewInvalid(apiregistration.GroupAPIRegistration, "APIService", obj.Name, s.ValidateUpdate(obj, old))
			got, _ := json.Marshal(se.Status)
			want, _ := json.Marshal(c.Response)
			if g, w := canonicalJSON(t, got), canonicalJSON(t, want); g != w {
				t.Fatalf("status\n got %s\nwant %s", g, w)
			}
		})
	}
	c := loadValidationCapture(t, "duplicate-create.json")
	if got := meta.NewAlreadyExists(APIServiceStrategy{}.Info().GroupResource(), "v1.dup.example.com").Error(); got != c.Response.Message {
		t.Fatalf("already exists: %q, want %q", got, c.Response.Message)
	}
}

// TestValidateAPIServiceRules covers the rules the captures do not:
// path-segment names, local insecureSkipTLSVerify, the legacy "v1.",
// condition statuses and immutable names.
func TestValidateAPIServiceRules(t *testing.T) {
	local := func(name, group, version string) *apiregistration.APIService {
		return &apiregistration.APIService{ObjectMeta: meta.ObjectMeta{Name: name}, Spec: apiregistration.APIServiceSpec{Group: group, Version: version, GroupPriorityMinimum: 18000, VersionPriority: 1}}
	}
	tests := []struct {
		name string
		obj  *apiregistration.APIService
		want []string
	}{
		{"legacy v1.", local("v1.", "", "v1"), nil},
		{"dotdot", local("..", "", "v1"), []string{`metadata.name: Invalid value: "..": may not be '..'`}},
		{"slash and percent", local("v1.a/b%c", "a/b%c", "v1"), []string{
			`metadata.name: Invalid value: "v1.a/b%c": may not contain '/'`,
			`metadata.name: Invalid value: "v1.a/b%c": may not contain '%'`,
			`spec.group: Invalid value: "a/b%c": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		}},
		{"no name", local("", "a.io", "v1"), []string{"metadata.name: Required value: name or generateName is required"}},
		{"local insecure", func() *apiregistration.APIService {
			a := local("v1.a.io", "a.io", "v1")
			a.Spec.InsecureSkipTLSVerify = true
			return a
		}(),
			[]string{"spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify"}},
		{"namespace set", func() *apiregistration.APIService { a := local("v1.a.io", "a.io", "v1"); a.Namespace = "x"; return a }(),
			[]string{"metadata.namespace: Forbidden: not allowed on this type"}},
		{"version too long", local("v"+strings.Repeat("a", 63)+".a.io", "a.io", "v"+strings.Repeat("a", 63)), []string{
			`spec.version: Invalid value: "v` + strings.Repeat("a", 63) + `": must be no more than 63 characters`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range apiregistration.ValidateAPIService(tt.obj) {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}

	old := validAPIService("v1.a.io", "a.io")
	bad := old.DeepCopy()
	bad.Status.Conditions = []apiregistration.APIServiceCondition{{Type: apiregistration.Available, Status: "Maybe"}}
	if got := apiregistration.ValidateAPIServiceUpdate(bad, old); len(got) != 1 || got[0].Error() != `status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"` {
		t.Fatalf("condition status: %v", got)
	}
	renamed := old.DeepCopy()
	renamed.Name = "v1.b.io"
	if got := apiregistration.ValidateAPIServiceUpdate(renamed, old); len(got) == 0 || got[0].Error() != `metadata.name: Invalid value: "v1.b.io": field is immutable` {
		t.Fatalf("rename: %v", got)
	}
}

// TestCABundleDecodeError pins the decode error of a non-base64 caBundle
// (the text kube-apiserver puts after "cannot be handled as a APIService: ").
func TestCABundleDecodeError(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"spec":{"caBundle":"%%%not-base64%%%"}}`, "illegal base64 data at input byte 0"},
		{`{"spec":{"caBundle":"bm90IGEgcGVt!"}}`, "illegal base64 data at input byte 12"},
	} {
		var a apiregistration.APIService
		err := json.Unmarshal([]byte(tt.in), &a)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: got %v, want %q", tt.in, err, tt.want)
		}
	}
	var a apiregistration.APIService
	if err := json.Unmarshal([]byte(`{"spec":{"caBundle":"bm90IGEgcGVt"}}`), &a); err != nil || string(a.Spec.CABundle) != "not a pem" {
		t.Fatalf("valid base64: %v %q", err, a.Spec.CABundle)
	}
}

// FuzzValidateAPIService checks that validation never panics, that a
// valid object stays valid after PrepareForCreate, and that every error
// names a field.
func FuzzValidateAPIService(f *testing.F) {
	for _, name := range []string{"no-spec.json", "gpm-0-and-vp-0.json", "local-no-service.json", "service-port-65536.json"} {
		c := loadValidationCapture(f, name)
		f.Add([]byte(c.Request))
	}
	f.Add([]byte(`{"metadata":{"name":"v1."},"spec":{"version":"v1","groupPriorityMinimum":1,"versionPriority":1}}`))
	f.Add([]byte(`{"metadata":{"name":"%/"},"spec":{"service":{},"caBundle":"AAAA","insecureSkipTLSVerify":true}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var a apiregistration.APIService
		if json.Unmarshal(data, &a) != nil {
			return
		}
		s := APIServiceStrategy{}
		s.PrepareForCreate(&a)
		for _, e := range s.Validate(&a) {
			if e.Field == "" || e.Error() == "" {
				t.Fatalf("error without field: %#v", e)
			}
		}
		b := a.DeepCopy()
		s.PrepareForUpdate(b, &a)
		_ = s.ValidateUpdate(b, &a)
		_ = s.TableRow(&a)
	})
}
