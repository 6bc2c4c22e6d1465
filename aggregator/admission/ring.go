package admission

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// DebugWebhooksPath serves the recent webhook calls as JSON.
const DebugWebhooksPath = "/debug/aggsim/webhooks"

// DefaultRingSize is how many webhook calls a Ring keeps by default.
const DefaultRingSize = 200

// Call is one admission webhook call as /debug/aggsim/webhooks shows it:
// when, which webhook of which configuration, for what, the URL called,
// the AdmissionReview sent and the answer received (raw bytes, JSON when
// the webhook answered JSON), the HTTP status, the latency in
// milliseconds, and the verdict (allowed, patched, denied with the
// message the client received, or error with its text and what the
// failurePolicy made of it), the requesting user and the failurePolicy.
type Call struct {
	Time          time.Time       `json:"time"`
	Webhook       string          `json:"webhook"`
	Configuration string          `json:"configuration"`
	Mutating      bool            `json:"mutating"`
	Operation     string          `json:"operation"`
	Resource      string          `json:"resource"`
	Namespace     string          `json:"namespace,omitempty"`
	Name          string          `json:"name,omitempty"`
	URL           string          `json:"url,omitempty"`
	Request       json.RawMessage `json:"request,omitempty"`
	Response      json.RawMessage `json:"response,omitempty"`
	StatusCode    int             `json:"statusCode,omitempty"`
	LatencyMillis float64         `json:"latencyMillis"`
	Verdict       string          `json:"verdict"`
	Error         string          `json:"error,omitempty"`
	User          string          `json:"user,omitempty"`
	FailurePolicy string          `json:"failurePolicy,omitempty"`
	// Message is the refusal the client received (verdict denied).
	Message string `json:"message,omitempty"`
	// Outcome says what failurePolicy made of an error.
	Outcome string `json:"outcome,omitempty"`
}

// Recent keeps the last n values added, the oldest dropped first: the
// bounded history behind the webhook call Ring and the CRD conversion
// calls (/debug/aggsim/conversions). Safe for concurrent use; make one
// with NewRecent. aggsim's own; upstream keeps no such record.
type Recent[T any] struct {
	mu    sync.Mutex
	size  int
	items []T // grows to size as values come; then items[next] is the oldest
	next  int
}

// NewRecent returns a Recent keeping the last n values (n > 0). Its
// storage grows with the values added, up to n: an idle server keeps no
// room for calls it never made (issue 21, idle RSS: the webhook call ring
// of 500 held 64 KiB).
func NewRecent[T any](n int) *Recent[T] {
	return &Recent[T]{size: n}
}

// Add records v, dropping the oldest value when full.
func (r *Recent[T]) Add(v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.items) < r.size {
		r.items = append(r.items, v)
		return
	}
	r.items[r.next] = v
	r.next = (r.next + 1) % r.size
}

// All returns a copy of the kept values, oldest first; nil when none.
func (r *Recent[T]) All() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []T
	out = append(out, r.items[r.next:]...)
	return append(out, r.items[:r.next]...)
}

// Ring keeps the last N calls. Safe for concurrent use.
type Ring struct {
	calls *Recent[Call]
}

// NewRing returns a ring of n calls (DefaultRingSize when n <= 0).
func NewRing(n int) *Ring {
	if n <= 0 {
		n = DefaultRingSize
	}
	return &Ring{calls: NewRecent[Call](n)}
}

func (r *Ring) add(c Call) {
	if !json.Valid(c.Response) {
		b, _ := json.Marshal(string(c.Response))
		c.Response = b
	}
	r.calls.Add(c)
}

// Calls returns the kept calls, oldest first.
func (r *Ring) Calls() []Call { return r.calls.All() }

// ServeHTTP answers {"calls":[...]} (oldest first).
func (r *Ring) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	calls := r.Calls()
	if calls == nil {
		calls = []Call{}
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(struct {
		Calls []Call `json:"calls"`
	}{calls})
}
