package demo

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// DefaultRecordLimit is how many requests a Recorder keeps when
// Options.RecordLimit is zero.
const DefaultRecordLimit = 200

// DebugRequestsPath is where a Backend serves its Recorder's requests.
const DebugRequestsPath = "/debug/requests"

// RequestRecord is one request as the backend received it, before
// authentication removed the front-proxy headers.
type RequestRecord struct {
	// Time is when the request arrived (UTC).
	Time time.Time `json:"time"`
	// Method, Path and Query (raw, as sent) of the request.
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	// Authenticated is false when the request was answered 401.
	Authenticated bool `json:"authenticated"`
	// User, UID, Groups and Extra are the identity authentication derived
	// (from X-Remote-* behind a front-proxy certificate); empty when
	// Authenticated is false.
	User   string              `json:"user,omitempty"`
	UID    string              `json:"uid,omitempty"`
	Groups []string            `json:"groups,omitempty"`
	Extra  map[string][]string `json:"extra,omitempty"`
	// ClientCertCN is the common name of the client certificate presented,
	// if any.
	ClientCertCN string `json:"clientCertCN,omitempty"`
	// Header is every request header as received (canonical names).
	Header http.Header `json:"header"`
}

// RequestList is the JSON document served at DebugRequestsPath.
type RequestList struct {
	// Items are the recorded requests, oldest first.
	Items []RequestRecord `json:"items"`
}

// Recorder keeps the last Limit requests a backend received. It is safe for
// concurrent use; records are immutable once added.
type Recorder struct {
	limit int
	mu    sync.Mutex      // guards items
	items []RequestRecord // oldest first, at most limit
}

// NewRecorder returns a Recorder that keeps the last limit requests
// (DefaultRecordLimit when limit <= 0).
func NewRecorder(limit int) *Recorder {
	if limit <= 0 {
		limit = DefaultRecordLimit
	}
	return &Recorder{limit: limit}
}

func (rc *Recorder) add(r RequestRecord) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.items) == rc.limit {
		copy(rc.items, rc.items[1:])
		rc.items = rc.items[:len(rc.items)-1]
	}
	rc.items = append(rc.items, r)
}

// Requests returns a copy of the recorded requests, oldest first.
func (rc *Recorder) Requests() []RequestRecord {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]RequestRecord(nil), rc.items...)
}

// Reset forgets every recorded request.
func (rc *Recorder) Reset() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.items = nil
}

// pendingKey carries the *RequestRecord being built through the
// authentication filter.
type pendingKey struct{}

// pending is the record of one request on its way through the filters.
type pending struct {
	rec   RequestRecord
	added bool // set by noteUser; read by wrap on the same goroutine
}

// wrap records every request except those to DebugRequestsPath: the record
// is taken before inner (the authentication filter) strips the front-proxy
// headers, completed with the user by noteUser once authenticated, or added
// as unauthenticated when inner answered without reaching noteUser.
func (rc *Recorder) wrap(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == DebugRequestsPath {
			inner.ServeHTTP(w, r)
			return
		}
		p := &pending{rec: RequestRecord{
			Time: time.Now().UTC(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
			Header: r.Header.Clone(),
		}}
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			p.rec.ClientCertCN = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), pendingKey{}, p)))
		if !p.added {
			rc.add(p.rec)
		}
	})
}

// noteUser completes the pending record with the authenticated user and
// adds it at once (so a long-running watch shows up while it runs).
func (rc *Recorder) noteUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := r.Context().Value(pendingKey{}).(*pending); ok {
			p.rec.Authenticated = true
			if u, ok := request.UserFrom(r.Context()); ok {
				p.rec.User, p.rec.UID, p.rec.Groups, p.rec.Extra = u.Username, u.UID, u.Groups, u.Extra
			}
			rc.add(p.rec)
			p.added = true
		}
		next.ServeHTTP(w, r)
	})
}

// ServeHTTP answers GET DebugRequestsPath with a RequestList (JSON,
// indented). ?user=<name> keeps only that user's requests; ?reset=true
// forgets everything after answering.
func (rc *Recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		negotiation.WriteStatus(w, r, meta.NewStatusError(http.StatusMethodNotAllowed, meta.StatusReasonMethodNotAllowed, "the server does not allow this method on the requested resource"))
		return
	}
	items := rc.Requests()
	if user := r.URL.Query().Get("user"); user != "" {
		kept := items[:0]
		for _, it := range items {
			if it.User == user {
				kept = append(kept, it)
			}
		}
		items = kept
	}
	if items == nil {
		items = []RequestRecord{}
	}
	b, _ := json.MarshalIndent(RequestList{Items: items}, "", "  ")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(b, '\n'))
	if r.URL.Query().Get("reset") == "true" {
		rc.Reset()
	}
}
