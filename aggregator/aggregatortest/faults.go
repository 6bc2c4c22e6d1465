package aggregatortest

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// faultState is the fault a Backend injects, replaced whole on change.
type faultState struct {
	// latency delays every request before anything else happens.
	latency time.Duration
	// status, when non-zero, answers every request with this code.
	status int
	// drop closes the connection of every request without an answer.
	drop bool
	// wrongCert presents a certificate for not-<service>.<namespace>.svc.
	wrongCert bool
}

// connKey is the context key of the backend connection a request came on.
type connKey struct{}

// setFault applies change to a copy of the current fault state and stores
// it. It panics for an Address backend, whose server the test owns.
func (b *Backend) setFault(method string, change func(*faultState)) faultState {
	if b.httpServer == nil {
		panic("aggregatortest: Backend." + method + " needs a backend started from BackendOptions.Handler, not Address")
	}
	b.faultMu.Lock()
	defer b.faultMu.Unlock()
	old := *b.faults.Load()
	cur := old
	change(&cur)
	b.faults.Store(&cur)
	return old
}

// SetLatency delays every request by d (zero: no delay) before it is
// answered, on top of any other fault. A request whose client goes away
// meanwhile is dropped. The aggregator's availability probe gives up after
// 5 s, so a latency above that turns the APIService unavailable
// (FailedDiscoveryCheck, `context deadline exceeded`) at the next probe.
func (b *Backend) SetLatency(d time.Duration) {
	b.setFault("SetLatency", func(f *faultState) { f.latency = d })
}

// FailWith answers every request with status (300..599) and a
// metav1.Status JSON body `injected failure: <status> <text>`, as a
// failing aggregated API server would. The aggregator passes it through
// unchanged. Its availability probe sees it too: at the next probe
// (within the Server's availability check interval) the APIService turns
// unavailable (FailedDiscoveryCheck, `bad status from ...`) and the
// aggregator then answers 503 `service unavailable` itself, as upstream
// does. To observe the backend's status through the proxy, start the
// Server WithAvailabilityCheckInterval(time.Hour). FailWith(0) stops
// failing.
func (b *Backend) FailWith(status int) {
	if status != 0 && (status < 300 || status > 599) {
		panic(fmt.Sprintf("aggregatortest: Backend.FailWith(%d): status must be 300..599 (or 0)", status))
	}
	b.setFault("FailWith", func(f *faultState) { f.status = status })
}

// DropConnections makes the backend close the connection of every
// request without answering (the TCP connection, without a TLS
// close_notify, as a crashed process would). Through the aggregator a
// client sees 503 `error trying to reach service: <Go error>` whose text
// ends in EOF; as with FailWith, the APIService turns unavailable at the
// next probe.
func (b *Backend) DropConnections() {
	b.setFault("DropConnections", func(f *faultState) { f.drop = true })
}

// PresentWrongCertificate makes new TLS connections get a certificate for
// not-<service>.<namespace>.svc (signed by the right CA), and makes the
// aggregator drop its idle connections to backends so the next proxied
// request handshakes again. Proxied requests then fail with 503
// `error trying to reach service: tls: failed to verify certificate:
// x509: certificate is valid for not-..., not <service>.<namespace>.svc`,
// while the APIService stays Available: the availability probe does not
// verify serving certificates, as upstream's does not. Connections with
// requests in flight keep the certificate they were set up with.
func (b *Backend) PresentWrongCertificate() {
	b.setFault("PresentWrongCertificate", func(f *faultState) { f.wrongCert = true })
	b.srv.dropProxyConns()
}

// Restore removes every injected fault, and makes the aggregator drop its
// idle connections to backends so none left over from the fault is
// reused. After FailWith or DropConnections the APIService becomes
// Available again at the next probe; WaitAvailable waits for it.
func (b *Backend) Restore() {
	b.setFault("Restore", func(f *faultState) { *f = faultState{} })
	b.srv.dropProxyConns()
}

// getCertificate is the backend's tls.Config.GetCertificate.
func (b *Backend) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if b.faults.Load().wrongCert {
		return b.wrongCert, nil
	}
	return b.goodCert, nil
}

// faultHandler wraps h with the current faults: latency first, then drop,
// then the injected status; otherwise h answers.
func (b *Backend) faultHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := b.faults.Load()
		if f.latency > 0 {
			t := time.NewTimer(f.latency)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		switch {
		case f.drop:
			dropConnection(w, r)
		case f.status != 0:
			writeInjectedFailure(w, f.status)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

// dropConnection closes the TCP connection r came on: hijacked for
// HTTP/1.1, or found through the connection context for HTTP/2.
func dropConnection(w http.ResponseWriter, r *http.Request) {
	var c net.Conn
	if hj, ok := w.(http.Hijacker); ok && r.ProtoMajor == 1 {
		if hc, _, err := hj.Hijack(); err == nil {
			c = hc
		}
	}
	if c == nil {
		c, _ = r.Context().Value(connKey{}).(net.Conn)
	}
	if c == nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	_ = c.Close()
}

// statusReasons are the metav1.StatusReason values for the codes that
// have one.
var statusReasons = map[int]string{
	http.StatusBadRequest:           "BadRequest",
	http.StatusUnauthorized:         "Unauthorized",
	http.StatusForbidden:            "Forbidden",
	http.StatusNotFound:             "NotFound",
	http.StatusMethodNotAllowed:     "MethodNotAllowed",
	http.StatusNotAcceptable:        "NotAcceptable",
	http.StatusConflict:             "Conflict",
	http.StatusGone:                 "Gone",
	http.StatusUnsupportedMediaType: "UnsupportedMediaType",
	http.StatusUnprocessableEntity:  "Invalid",
	http.StatusTooManyRequests:      "TooManyRequests",
	http.StatusInternalServerError:  "InternalError",
	http.StatusServiceUnavailable:   "ServiceUnavailable",
	http.StatusGatewayTimeout:       "Timeout",
}

// writeInjectedFailure answers with code and a Status body.
func writeInjectedFailure(w http.ResponseWriter, code int) {
	st := meta.NewStatusError(code, statusReasons[code], fmt.Sprintf("injected failure: %d %s", code, http.StatusText(code))).Status
	body, _ := json.Marshal(st)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(append(body, '\n'))
}
