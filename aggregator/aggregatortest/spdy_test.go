package aggregatortest_test

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/httpstream"
	spdyserver "k8s.io/apimachinery/pkg/util/httpstream/spdy"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport/spdy"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

const (
	// spdyProtocol is the stream protocol (X-Stream-Protocol-Version) the
	// test's client offers and its backend accepts, as kubectl exec
	// offers v5.channel.k8s.io and friends.
	spdyProtocol = "test.aggsim.io/v1"
	// spdyEchoPrefix prefixes what the backend echoes on every stream.
	spdyEchoPrefix = "echo:"
	// spdyGV is the group/version the SPDY backend serves.
	spdyGV = "wardle.example.com/v1alpha1"
	// spdyExecPath is the subresource the client upgrades, like
	// /api/v1/namespaces/<ns>/pods/<pod>/exec for kubectl exec.
	spdyExecPath = "/apis/" + spdyGV + "/namespaces/default/flunders/x/exec"
	// spdyTimeout bounds every step that could block: dial and upgrade,
	// the backend's record, one stream's echo.
	spdyTimeout = 10 * time.Second
)

// spdyRequest is what the backend saw of one upgrade request.
type spdyRequest struct {
	method, proto string
	// header is the request's header as it arrived from the aggregator,
	// before RequireFrontProxy consumed the X-Remote-* headers.
	header http.Header
	// user is the identity RequireFrontProxy found.
	user aggregatortest.User
	// negotiated is the protocol httpstream.Handshake chose.
	negotiated string
}

// spdyRawHeaderKey carries the raw request header from the outer handler
// to the one behind RequireFrontProxy.
type spdyRawHeaderKey struct{}

// spdyBackend is an aggregated API server that answers its discovery
// document and upgrades POST spdyExecPath to SPDY/3.1 with
// client-go's server side (k8s.io/apimachinery/pkg/util/httpstream/spdy,
// as the kubelet's exec server does), echoing every stream.
type spdyBackend struct {
	requests chan spdyRequest // one record per upgrade
	closed   chan struct{}    // one send per upgraded connection the client closed
	done     chan struct{}    // closed by t.Cleanup: releases the upgraded handlers
	echoErrs chan error       // stream errors on the backend side
}

// newSPDYBackend returns the backend's records and its handler: guard
// (RequireFrontProxy) wraps the backend, behind a first handler that
// keeps the raw request header for the record.
func newSPDYBackend(t *testing.T, guard func(http.Handler) http.Handler) (*spdyBackend, http.Handler) {
	t.Helper()
	b := &spdyBackend{
		requests: make(chan spdyRequest, 16),
		closed:   make(chan struct{}, 16),
		done:     make(chan struct{}),
		echoErrs: make(chan error, 16),
	}
	t.Cleanup(func() {
		close(b.done)
		select {
		case err := <-b.echoErrs:
			t.Errorf("backend stream: %v", err)
		default:
		}
	})
	guarded := guard(http.HandlerFunc(b.serve))
	return b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := context.WithValue(r.Context(), spdyRawHeaderKey{}, r.Header.Clone())
		guarded.ServeHTTP(w, r.WithContext(ctx))
	})
}

// serve answers the discovery document, and for POST spdyExecPath
// negotiates spdyProtocol, records the request and upgrades it, holding
// the connection until the client closes it or the test ends.
func (b *spdyBackend) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/apis/"+spdyGV && r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"`+spdyGV+`","resources":[`+
			`{"name":"flunders","singularName":"flunder","namespaced":true,"kind":"Flunder","verbs":["get","list"]},`+
			`{"name":"flunders/exec","singularName":"","namespaced":true,"kind":"FlunderExecOptions","verbs":["create","get"]}]}`)
		return
	case r.URL.Path != spdyExecPath || r.Method != http.MethodPost:
		// The aggregator's own background calls (/apis, /openapi/v2,
		// /openapi/v3) and anything unexpected.
		http.NotFound(w, r)
		return
	}
	user, ok := aggregatortest.UserFrom(r)
	if !ok {
		http.Error(w, "no user", http.StatusInternalServerError)
		return
	}
	raw, _ := r.Context().Value(spdyRawHeaderKey{}).(http.Header)
	negotiated, err := httpstream.Handshake(r, w, []string{spdyProtocol})
	if err != nil {
		return // Handshake answered 400 or 403
	}
	b.requests <- spdyRequest{method: r.Method, proto: r.Proto, header: raw, user: *user, negotiated: negotiated}
	conn := spdyserver.NewResponseUpgrader().UpgradeResponse(w, r, b.echo)
	if conn == nil {
		return // UpgradeResponse answered the error
	}
	defer conn.Close()
	select {
	case <-conn.CloseChan():
		b.closed <- struct{}{}
	case <-b.done:
	}
}

// echo accepts a stream the client created and, once the reply is sent,
// reads it to the client's half-close and answers spdyEchoPrefix plus
// what it read, then half-closes its side.
func (b *spdyBackend) echo(s httpstream.Stream, replySent <-chan struct{}) error {
	go func() {
		select {
		case <-replySent:
		case <-b.done:
			return
		}
		data, err := io.ReadAll(s)
		if err == nil {
			_, err = io.WriteString(s, spdyEchoPrefix+string(data))
		}
		if err == nil {
			err = s.Close()
		}
		if err != nil {
			_ = s.Reset()
			select {
			case b.echoErrs <- err:
			default:
			}
		}
	}()
	return nil
}

// spdyRoundTripperFunc turns a function into an http.RoundTripper.
type spdyRoundTripperFunc func(*http.Request) (*http.Response, error)

func (f spdyRoundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// spdySpoof makes cfg's requests carry front-proxy identity headers of the
// client's own, which the aggregator must not pass on.
func spdySpoof(cfg *rest.Config) {
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return spdyRoundTripperFunc(func(r *http.Request) (*http.Response, error) {
			r = r.Clone(r.Context())
			r.Header.Set("X-Remote-User", "evil")
			r.Header.Set("X-Remote-Group", "system:masters")
			r.Header.Set("X-Remote-Extra-Scopes", "evil")
			return rt.RoundTrip(r)
		})
	}
}

// spdyAwait runs f in a goroutine and returns what it returns; it fails
// the test when f does not return within spdyTimeout (the goroutine is
// then left to the connection closes of t.Cleanup).
func spdyAwait[T any](t *testing.T, what string, f func() (T, error)) (T, error) {
	t.Helper()
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	timer := time.NewTimer(spdyTimeout)
	defer timer.Stop()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-timer.C:
		t.Fatalf("%s: no answer within %s", what, spdyTimeout)
	}
	panic("unreachable")
}

// spdyDialed is an upgraded connection and the protocol the server chose.
type spdyDialed struct {
	conn     httpstream.Connection
	protocol string
}

// spdyDial POSTs an upgrade to srvURL+path with client-go's SPDY machinery
// (transport/spdy.RoundTripperFor and NewDialer, as kubectl exec's
// remotecommand.NewSPDYExecutor does), offering protocols. The connection
// is closed by t.Cleanup.
func spdyDial(t *testing.T, srvURL, path string, cfg *rest.Config, protocols ...string) (spdyDialed, error) {
	t.Helper()
	rt, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(srvURL + path)
	if err != nil {
		t.Fatal(err)
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: rt}, http.MethodPost, u)
	d, err := spdyAwait(t, "dial "+u.String(), func() (spdyDialed, error) {
		conn, protocol, err := dialer.Dial(protocols...)
		return spdyDialed{conn, protocol}, err
	})
	if err == nil {
		t.Cleanup(func() { _ = d.conn.Close() })
	}
	return d, err
}

// spdyExchange dials srv's spdyExecPath (plus query) as cfg, checks the
// negotiated protocol, waits idle (to outlive a request timeout), opens
// two streams at once, writes a different message on each and checks each
// echo, then closes the connection and checks that the backend's end
// closes too. It returns the backend's record of the upgrade.
func spdyExchange(t *testing.T, b *spdyBackend, srvURL, query string, cfg *rest.Config, idle time.Duration) spdyRequest {
	t.Helper()
	d, err := spdyDial(t, srvURL, spdyExecPath+query, cfg, spdyProtocol)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	if d.protocol != spdyProtocol {
		t.Errorf("negotiated protocol %q; want %q", d.protocol, spdyProtocol)
	}

	var rec spdyRequest
	timer := time.NewTimer(spdyTimeout + idle)
	defer timer.Stop()
	select {
	case rec = <-b.requests:
	case <-timer.C:
		t.Fatalf("the backend recorded no upgrade within %s", spdyTimeout)
	}
	if idle > 0 {
		// Not synchronisation: the point is that time passes.
		time.Sleep(idle)
	}

	// Two streams open at once on the one connection, written and read
	// concurrently: the SPDY framing passes through the proxy intact.
	messages := []string{"hello from stream one", "and stream two says hi"}
	streams := make([]httpstream.Stream, len(messages))
	for i := range messages {
		s, err := spdyAwait(t, "create stream", func() (httpstream.Stream, error) {
			return d.conn.CreateStream(http.Header{"X-Test-Stream": {messages[i]}})
		})
		if err != nil {
			t.Fatalf("create stream %d: %v", i, err)
		}
		streams[i] = s
	}
	type echo struct {
		i   int
		got string
		err error
	}
	echoes := make(chan echo, len(streams))
	for i, s := range streams {
		go func() {
			_, err := io.WriteString(s, messages[i])
			if err == nil {
				err = s.Close() // half-close: the backend reads to EOF
			}
			var data []byte
			if err == nil {
				data, err = io.ReadAll(s)
			}
			echoes <- echo{i, string(data), err}
		}()
	}
	for range streams {
		select {
		case e := <-echoes:
			if e.err != nil {
				t.Errorf("stream %d: %v", e.i, e.err)
			} else if want := spdyEchoPrefix + messages[e.i]; e.got != want {
				t.Errorf("stream %d echoed %q; want %q", e.i, e.got, want)
			}
		case <-timer.C:
			t.Fatalf("no echo on every stream within %s", spdyTimeout)
		}
	}

	// Closing the client's connection tears the tunnel down to the backend.
	if err := d.conn.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	select {
	case <-b.closed:
	case <-timer.C:
		t.Fatalf("the backend's SPDY connection was not closed within %s of the client's", spdyTimeout)
	}
	return rec
}

// TestSPDYUpgradeThroughAggregator proves that a SPDY/3.1 connection
// upgrade, as kubectl exec, attach and port-forward make it, passes
// through aggsim's whole chain (authentication, impersonation,
// authorization, the long-running exemption from the request timeout)
// and its proxy to an aggregated API server over HTTP/1.1: client-go's
// own SPDY client (transport/spdy) negotiates the stream protocol with
// the backend's apimachinery SPDY server, two multiplexed streams echo
// their bytes exactly, closing the client closes the backend's end, and
// the backend sees a POST with Upgrade: SPDY/3.1 carrying only the
// front-proxy identity of the caller (the admin, the user the admin
// impersonates, a bearer-token user): no Authorization, no Impersonate-*
// and none of the X-Remote-* headers the client forged. A protocol the
// backend refuses comes back to the client as the backend's error.
func TestSPDYUpgradeThroughAggregator(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t,
		aggregatortest.WithAvailabilityCheckInterval(time.Hour),
		aggregatortest.WithToken("s3cret", "tok", "token-users"))
	b, h := newSPDYBackend(t, srv.RequireFrontProxy)
	srv.RegisterBackend(t, aggregatortest.BackendOptions{
		Group:    "wardle.example.com",
		Versions: []string{"v1alpha1"},
		Handler:  h,
	})

	admin, err := tls.X509KeyPair(srv.AdminCertPEM(), srv.AdminKeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(admin.Certificate[0])
	adminCredential := map[string][]string{"authentication.kubernetes.io/credential-id": {"X509SHA256=" + hex.EncodeToString(sum[:])}}

	asAdmin := cgRESTConfig(t, srv)
	spdySpoof(asAdmin)

	asJane := cgRESTConfig(t, srv) // kubectl exec --as=jane --as-group=devs
	asJane.Impersonate = rest.ImpersonationConfig{UserName: "jane", Groups: []string{"devs"}}
	spdySpoof(asJane)

	asToken := cgRESTConfig(t, srv)
	asToken.CertData, asToken.KeyData, asToken.CertFile, asToken.KeyFile = nil, nil, "", ""
	asToken.BearerToken = "s3cret"
	spdySpoof(asToken)

	for _, tc := range []struct {
		name string
		cfg  *rest.Config
		// query and idle: a ?timeout= far shorter than the connection
		// lives, which exec, being long-running, ignores.
		query      string
		idle       time.Duration
		wantUser   aggregatortest.User
		wantGroups []string // X-Remote-Group as sent (the backend adds system:authenticated if missing)
	}{
		{"admin", asAdmin, "", 0,
			aggregatortest.User{Username: "aggsim-admin", Groups: []string{"system:masters", "system:authenticated"}, Extra: adminCredential},
			[]string{"system:masters", "system:authenticated"}},
		{"admin as jane", asJane, "", 0,
			aggregatortest.User{Username: "jane", Groups: []string{"devs", "system:authenticated"}, Extra: map[string][]string{}},
			[]string{"devs", "system:authenticated"}},
		{"bearer token", asToken, "", 0,
			aggregatortest.User{Username: "tok", Groups: []string{"token-users", "system:authenticated"}, Extra: map[string][]string{}},
			[]string{"token-users", "system:authenticated"}},
		{"admin past ?timeout", asAdmin, "?timeout=100ms", 300 * time.Millisecond,
			aggregatortest.User{Username: "aggsim-admin", Groups: []string{"system:masters", "system:authenticated"}, Extra: adminCredential},
			[]string{"system:masters", "system:authenticated"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := spdyExchange(t, b, srv.URL, tc.query, tc.cfg, tc.idle)
			if got.method != http.MethodPost || got.proto != "HTTP/1.1" || got.negotiated != spdyProtocol {
				t.Errorf("backend saw %s %s negotiating %q; want POST HTTP/1.1 negotiating %q", got.method, got.proto, got.negotiated, spdyProtocol)
			}
			for _, want := range []struct {
				key  string
				vals []string
			}{
				{"Upgrade", []string{"SPDY/3.1"}},
				{"Connection", []string{"Upgrade"}},
				{"X-Stream-Protocol-Version", []string{spdyProtocol}},
				{"X-Remote-User", []string{tc.wantUser.Username}},
				{"X-Remote-Group", tc.wantGroups},
			} {
				if vals := got.header.Values(want.key); !slices.Equal(vals, want.vals) {
					t.Errorf("backend header %s = %q; want %q", want.key, vals, want.vals)
				}
			}
			for key, vals := range got.header {
				if key == "Authorization" || strings.HasPrefix(key, "Impersonate-") ||
					key == "X-Remote-Extra-Scopes" || slices.Contains(vals, "evil") {
					t.Errorf("backend got the client's header %s: %q", key, vals)
				}
			}
			if !reflect.DeepEqual(got.user, tc.wantUser) {
				t.Errorf("backend user %+v; want %+v", got.user, tc.wantUser)
			}
		})
	}

	t.Run("refused protocol", func(t *testing.T) {
		_, err := spdyDial(t, srv.URL, spdyExecPath, asAdmin, "other.aggsim.io/v9")
		const want = "unable to upgrade connection: unable to upgrade: unable to negotiate protocol: " +
			"client supports [other.aggsim.io/v9], server accepts [" + spdyProtocol + "]"
		if err == nil || err.Error() != want {
			t.Errorf("dial offering only other.aggsim.io/v9: error %v; want %q", err, want)
		}
		select {
		case rec := <-b.requests:
			t.Errorf("the backend upgraded a refused request: %+v", rec)
		default:
		}
	})
}
