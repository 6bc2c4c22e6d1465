package aggregator

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/authentication"
)

func TestParseTokenFile(t *testing.T) {
	var logs bytes.Buffer
	in := "token1,alice,uid-a,\"devs,qa\"\n" +
		",nobody,uid-n\n" +
		"token2,bob,uid-b\n" +
		"token2,bob2,uid-b2,ops,ignored-column\n" +
		"token3,carol,uid-c,\n"
	tf, err := ParseTokenFile("tokens.csv", strings.NewReader(in), slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*authentication.UserInfo{
		"token1": {Username: "alice", UID: "uid-a", Groups: []string{"devs", "qa"}},
		"token2": {Username: "bob2", UID: "uid-b2", Groups: []string{"ops"}},
		"token3": {Username: "carol", UID: "uid-c", Groups: []string{""}},
	}
	if tf.Len() != len(want) {
		t.Errorf("Len %d", tf.Len())
	}
	for tok, u := range want {
		got, ok := tf.Lookup(tok)
		if !ok || !reflect.DeepEqual(got, u) {
			t.Errorf("%s: %+v", tok, got)
		}
	}
	if _, ok := tf.Lookup(""); ok {
		t.Error("empty token authenticates")
	}
	for _, w := range []string{"empty token has been found in token file 'tokens.csv', record number '2'",
		"duplicate token has been found in token file 'tokens.csv', record number '4'"} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("missing warning %q in %s", w, logs.String())
		}
	}
	// Lookup hands out copies.
	u, _ := tf.Lookup("token1")
	u.Groups[0] = "mutated"
	if u2, _ := tf.Lookup("token1"); u2.Groups[0] != "devs" {
		t.Error("Lookup shares state")
	}
}

func TestParseTokenFileErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a,b,c\nd,e\n", "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2 (line 2)"},
		{"a,b,c\n\"unterminated,b,c\n", "token file 'tokens.csv': parse error on line 2, column 19: extraneous or missing \" in quoted-field"},
		{"a,b\"x,c\n", "token file 'tokens.csv': parse error on line 1, column 4: bare \" in non-quoted-field"},
	}
	for _, tt := range tests {
		_, err := ParseTokenFile("tokens.csv", strings.NewReader(tt.in), nil)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: %v\nwant %s", tt.in, err, tt.want)
		}
	}
}

func TestLoadTokenFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(p, []byte("t,u,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tf, err := LoadTokenFile(p)
	if err != nil || tf.Len() != 1 {
		t.Fatalf("%v %v", tf, err)
	}
	if _, err := LoadTokenFile(p + ".missing"); err == nil {
		t.Error("missing file loaded")
	}
}

// FuzzParseTokenFile checks that any input either fails or yields users that
// Lookup returns for their tokens.
func FuzzParseTokenFile(f *testing.F) {
	f.Add("token1,alice,uid-a,\"devs,qa\"\n")
	f.Add(",x,y\nt,u,i\n")
	f.Add("a,b\n")
	f.Add("\"a\"\"b\",c,d,e,f\r\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		tf, err := ParseTokenFile("f", strings.NewReader(in), nil)
		if err != nil {
			return
		}
		for tok := range tf.users {
			if tok == "" {
				t.Fatal("empty token stored")
			}
			if _, ok := tf.Lookup(tok); !ok {
				t.Fatalf("token %q not found", tok)
			}
		}
	})
}
