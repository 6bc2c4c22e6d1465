package aggregator

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func withInfo(h http.Handler) http.Handler { return WithRequestInfo(h) }

// TestTimeout504 uses ?timeout=1ms and a handler that blocks until the test
// has the answer, so the outcome does not depend on timing.
func TestTimeout504(t *testing.T) {
	release := make(chan struct{})
	finished := make(chan struct{})
	h := withInfo(WithTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(finished)
		<-r.Context().Done()
		<-release
		w.Header().Set("X-Late", "1")
		_, _ = w.Write([]byte("late")) // dropped
	}), 0))
	rec := httptest.NewRecorder()
	rec.Header().Set("Audit-Id", "id-1")
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders?timeout=1ms", nil))
	close(release)
	<-finished
	want := `{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}` + "\n"
	if rec.Code != 504 || rec.Body.String() != want {
		t.Errorf("got %d %q", rec.Code, rec.Body)
	}
	if rec.Header().Get("X-Late") != "" || rec.Header().Get("Audit-Id") != "id-1" {
		t.Errorf("headers %v", rec.Header())
	}
}

func TestTimeoutDeadlines(t *testing.T) {
	tests := []struct {
		name, url    string
		wantDeadline bool
		wantMax      time.Duration
	}{
		{"default 60s", "/apis/g/v1/things", true, 60 * time.Second},
		{"timeout honoured", "/apis/g/v1/things?timeout=5s", true, 5 * time.Second},
		{"timeout above max is capped", "/apis/g/v1/things?timeout=10m", true, 60 * time.Second},
		{"timeout 0 means the default", "/apis/g/v1/things?timeout=0s", true, 60 * time.Second},
		{"watch param is long-running", "/apis/g/v1/things?watch=true", false, 0},
		{"watch path is long-running", "/apis/g/v1/watch/things", false, 0},
		{"exec is long-running", "/api/v1/namespaces/d/pods/p/exec", false, 0},
		{"proxy subresource is long-running", "/api/v1/namespaces/d/services/s/proxy/x", false, 0},
		{"log is long-running", "/api/v1/namespaces/d/pods/p/log", false, 0},
		{"pprof is long-running", "/debug/pprof/profile", false, 0},
		{"discovery is not", "/apis/g/v1", true, 60 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dl time.Time
			var ok bool
			start := time.Now()
			h := withInfo(WithTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				dl, ok = r.Context().Deadline()
			}), 0))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", tt.url, nil))
			end := time.Now()
			if rec.Code != 200 || ok != tt.wantDeadline {
				t.Fatalf("code %d deadline %v, want %v", rec.Code, ok, tt.wantDeadline)
			}
			// The deadline was set between start and end.
			if ok && (dl.Sub(start) < tt.wantMax || dl.Sub(end) > tt.wantMax) {
				t.Errorf("deadline %v after start, want %v", dl.Sub(start), tt.wantMax)
			}
		})
	}
}

func TestTimeoutBadParameter(t *testing.T) {
	rec := httptest.NewRecorder()
	withInfo(WithTimeout(echoUser, 0)).ServeHTTP(rec, httptest.NewRequest("GET", "/apis/g/v1/things?timeout=abc", nil))
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid timeout specified in the request URL - time: invalid duration \"abc\"","reason":"BadRequest","code":400}` + "\n"
	if rec.Code != 400 || rec.Body.String() != want {
		t.Errorf("%d %q", rec.Code, rec.Body)
	}
}

// TestTimeoutPassesThrough checks status, headers, body and Flush of a
// handler that finishes in time.
func TestTimeoutPassesThrough(t *testing.T) {
	rec := httptest.NewRecorder()
	withInfo(WithTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Backend", "yes")
		w.WriteHeader(201)
		_, _ = w.Write([]byte("made"))
		http.NewResponseController(w).Flush()
	}), time.Hour)).ServeHTTP(rec, httptest.NewRequest("POST", "/apis/g/v1/things", nil))
	if rec.Code != 201 || rec.Body.String() != "made" || rec.Header().Get("X-Backend") != "yes" || !rec.Flushed {
		t.Errorf("%d %q %v flushed=%v", rec.Code, rec.Body, rec.Header(), rec.Flushed)
	}
}

func TestTimeoutRepanics(t *testing.T) {
	defer func() {
		if p := recover(); p == nil {
			t.Fatal("panic swallowed")
		}
	}()
	withInfo(WithTimeout(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }), 0)).
		ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/x", nil))
}
