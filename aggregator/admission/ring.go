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

// Ring keeps the last N calls. Safe for concurrent use.
type Ring struct {
	mu    sync.Mutex
	calls []Call
	next  int
	full  bool
}

// NewRing returns a ring of n calls (DefaultRingSize when n <= 0).
func NewRing(n int) *Ring {
	if n <= 0 {
		n = DefaultRingSize
	}
	return &Ring{calls: make([]Call, n)}
}

func (r *Ring) add(c Call) {
	if !json.Valid(c.Response) {
		b, _ := json.Marshal(string(c.Response))
		c.Response = b
	}
	r.mu.Lock()
	r.calls[r.next] = c
	r.next = (r.next + 1) % len(r.calls)
	if r.next == 0 {
		r.full = true
	}
	r.mu.Unlock()
}

// Calls returns the kept calls, oldest first.
func (r *Ring) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Call
	if r.full {
		out = append(out, r.calls[r.next:]...)
	}
	out = append(out, r.calls[:r.next]...)
	return out
}

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
