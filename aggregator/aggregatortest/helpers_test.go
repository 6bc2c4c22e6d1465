package aggregatortest_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// response is what a test asserts about an HTTP answer.
type response struct {
	code        int
	contentType string
	body        string
}

// get GETs url with client and returns the code, Content-Type and body.
func get(t testing.TB, client *http.Client, url string, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", url, err)
	}
	return response{code: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: string(body)}
}

func wantResponse(t testing.TB, what string, got, want response) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %d %q %q\nwant %d %q %q", what, got.code, got.contentType, got.body, want.code, want.contentType, want.body)
	}
}

// userRecorder is a backend handler behind RequireFrontProxy that answers
// the discovery document of group/version and records the user of every
// other request.
type userRecorder struct {
	gv string

	mu    sync.Mutex // guards users
	users []aggregatortest.User
}

func (u *userRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/apis/"+u.gv {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"`+u.gv+`","resources":[{"name":"things","singularName":"thing","namespaced":true,"kind":"Thing","verbs":["get","list"]}]}`)
		return
	}
	if !strings.HasPrefix(r.URL.Path, "/apis/"+u.gv+"/") {
		// The aggregator's own background calls (/apis, /openapi/v2,
		// /openapi/v3) are not what the tests look at.
		http.NotFound(w, r)
		return
	}
	user, ok := aggregatortest.UserFrom(r)
	if !ok {
		http.Error(w, "no user", http.StatusInternalServerError)
		return
	}
	u.mu.Lock()
	u.users = append(u.users, *user)
	u.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"kind":"Thing","apiVersion":"`+u.gv+`","metadata":{"name":"a"}}`)
}

func (u *userRecorder) last(t testing.TB) aggregatortest.User {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.users) == 0 {
		t.Fatal("the backend recorded no request")
	}
	return u.users[len(u.users)-1]
}

// backendClient returns a client that talks to b directly, verifying its
// serving certificate as the aggregator does, presenting certs.
func backendClient(b *aggregatortest.Backend, certs ...tls.Certificate) *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(b.CAPEM)
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs:      pool,
		ServerName:   b.ServerName,
		Certificates: certs,
	}}}
}
