package rest

import (
	"encoding/json"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

func TestLabelSelector(t *testing.T) {
	labels := map[string]string{"app": "web", "tier": "front", "n": "5"}
	for _, tc := range []struct {
		sel     string
		want    bool
		wantErr string
	}{
		{"", true, ""},
		{"app=web", true, ""},
		{"app==web", true, ""},
		{"app!=web", false, ""},
		{"app=db", false, ""},
		{"missing!=x", true, ""},
		{"app in (db, web)", true, ""},
		{"app notin (db,web)", false, ""},
		{"missing notin (a)", true, ""},
		{"tier", true, ""},
		{"!tier", false, ""},
		{"!missing", true, ""},
		{"app=web,tier=back", false, ""},
		{" app = web , tier ", true, ""},
		{"n>4", true, ""},
		{"n<4", false, ""},
		{"example.com/app=x", false, ""},
		{"app in web", false, "unable to parse requirement: found 'web' expected: '('"},
		{"app=web,", false, "found '', expected: identifier after ','"},
		{"app x", false, "unable to parse requirement: found 'x', expected: in, notin, =, ==, !=, gt, lt"},
		{"n>x", false, `unable to parse requirement: values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`},
		// Messages as a real kube-apiserver 1.33 answers them (measured).
		{"!=", false, "found '!=', expected: !, identifier, or 'end of string'"},
		// upstream's lexer reads "==" as one token (labelSelector=%3D%3D etc.)
		{"==", false, "found '==', expected: !, identifier, or 'end of string'"},
		{"a===", false, "unable to parse requirement: found '=', expected: identifier"},
		{"a==b,==c", false, "found '==', expected: identifier after ','"},
		{"a in (==", false, "unable to parse requirement: found '==', expected: ',', ')' or identifier"},
		{"a in (", false, "unable to parse requirement: found '', expected: ',', ')' or identifier"},
		{"a in (x", false, "unable to parse requirement: found '', expected: ',' or ')'"},
		{"a in (x y)", false, "unable to parse requirement: found 'y', expected: ',' or ')'"},
		{"a in (,=", false, "unable to parse requirement: found '=', expected: ',', or identifier"},
		{"a=b,=c", false, "found '=', expected: identifier after ','"},
		{"=x", false, "found '=', expected: !, identifier, or 'end of string'"},
		{"a=b c", false, "found 'c', expected: ',' or 'end of string'"},
		{"a gt x", false, "unable to parse requirement: found 'gt', expected: in, notin, =, ==, !=, gt, lt"},
		{"app in (web,)", true, ""},
		{"missing notin (,,b)", true, ""},
		{"Bad_/x=1", false, `unable to parse requirement: <nil>: Invalid value: "Bad_/x": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"a=!!!", false, "unable to parse requirement: found '!', expected: identifier"},
		{"a in (y-,x)", false, `unable to parse requirement: values[1][a]: Invalid value: "y-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`},
		{"-bad=1", false, `unable to parse requirement: <nil>: Invalid value: "-bad": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
	} {
		s, err := meta.ParseLabelSelector(tc.sel)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr || meta.ToStatus(err).Status.Code != 400 {
				t.Errorf("%q: err %v, want %q", tc.sel, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.sel, err)
			continue
		}
		if got := s.Matches(labels); got != tc.want {
			t.Errorf("%q matches = %v, want %v", tc.sel, got, tc.want)
		}
	}
}

func TestFieldSelector(t *testing.T) {
	f := map[string]string{"metadata.name": "a,b", "metadata.namespace": "ns"}
	for _, tc := range []struct {
		sel  string
		want bool
	}{
		{"metadata.name=a\\,b", true},
		{"metadata.name==a\\,b,metadata.namespace=ns", true},
		{"metadata.namespace!=ns", false},
	} {
		s, err := meta.ParseFieldSelector(tc.sel)
		if err != nil {
			t.Fatalf("%q: %v", tc.sel, err)
		}
		if got := s.Matches(f); got != tc.want {
			t.Errorf("%q = %v", tc.sel, got)
		}
	}
	if _, err := meta.ParseFieldSelector("nonsense"); err == nil || err.Error() != "invalid selector: 'nonsense'; can't understand 'nonsense'" {
		t.Errorf("err %v", err)
	}
}

func FuzzLabelSelector(f *testing.F) {
	for _, s := range []string{"", "a=b", "a in (b,c)", "!a", "a notin (x),b!=c", "x>1", "a=b,", "((", "a in (", "k8s.io/a==b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := meta.ParseLabelSelector(s)
		if err != nil {
			if meta.ToStatus(err).Status.Code != 400 {
				t.Fatalf("non-400 error %v", err)
			}
			return
		}
		sel.Matches(map[string]string{"a": "b"})
	})
}

func FuzzStrategicMergePatch(f *testing.F) {
	f.Add(`{"spec":{"ports":[{"port":1}]}}`, `{"spec":{"ports":[{"port":1,"$patch":"delete"}]}}`)
	f.Add(`{"a":{"b":1}}`, `{"a":{"$patch":"replace","c":2}}`)
	f.Add(`{"metadata":{"finalizers":["a"]}}`, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"],"finalizers":["b"]}}`)
	f.Add(`{"spec":{"ports":[{"port":1},{"port":2}]}}`, `{"spec":{"$setElementOrder/ports":[{"port":2},{"port":1}]}}`)
	f.Add(`{}`, `{"$retainKeys":["a"],"a":null}`)
	f.Add(`{"a":1}`, `[1]`)
	mk := map[string]string{"spec.ports": "port", "metadata.finalizers": ""}
	f.Fuzz(func(t *testing.T, orig, patch string) {
		out, err := StrategicMergePatch([]byte(orig), []byte(patch), mk)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid output %q", out)
		}
	})
}

func FuzzDecodeObject(f *testing.F) {
	f.Add([]byte(`{"kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"name":"a"},"spec":{"size":1}}`))
	f.Add([]byte(`{"spec":{"blob":"%%"}}`))
	f.Add([]byte(`{"spec":{"size":1,"size":2,"x":[{"y":1}]}}`))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte(`{"metadata":{"labels":{"a":1}}}`))
	f.Add([]byte(`{`))
	f.Add([]byte(`{"spec":{"":{"":1},"":2}}`)) // empty keys: a path segment "" (found by this fuzz target)
	info := widgetStrategy{}.Info()
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, fv := range []string{FieldValidationStrict, FieldValidationWarn, FieldValidationIgnore} {
			_, err := decodeObject(body, info, &Widget{}, decodeOptions{fieldValidation: fv})
			if err != nil && meta.ToStatus(err).Status.Code != 400 {
				t.Fatalf("non-400 error %v", err)
			}
		}
		if _, err := BodyToJSON("application/yaml", body); err != nil && meta.ToStatus(err).Status.Code != 400 {
			t.Fatalf("yaml: non-400 error %v", err)
		}
	})
}
