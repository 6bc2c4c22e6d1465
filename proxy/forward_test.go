package proxy

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestForwardMatchesReverseProxy pins forward, the Handler's own proxying
// loop, to httputil.ReverseProxy: for each case the backend must receive
// the same request and the client the same answer (code, headers, body,
// trailers) through both.
func TestForwardMatchesReverseProxy(t *testing.T) {
	backend := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h := w.Header()
		switch r.URL.Query().Get("answer") {
		case "hop":
			h.Set("Connection", "X-Drop, close")
			h.Set("X-Drop", "1")
			h.Set("Keep-Alive", "timeout=5")
			h.Set("Proxy-Authenticate", "Basic")
			h.Set("X-Kept", "2")
			h.Set("Content-Type", "application/json")
			io.WriteString(w, `{"a":1}`)
		case "trailers":
			h.Set("Trailer", "X-Announced")
			h.Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusAccepted)
			io.WriteString(w, "data: 1\n\n")
			w.(http.Flusher).Flush()
			io.WriteString(w, "data: 2\n\n")
			h.Set("X-Announced", "yes")
			h.Set(http.TrailerPrefix+"X-Unannounced", "also")
		case "echo":
			h.Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusCreated)
			w.Write(body)
		default:
			h.Set("Content-Type", "application/json")
			io.WriteString(w, `{"ok":true}`)
		}
	})
	type exchange struct {
		Received received
		Code     int
		Header   http.Header
		Body     string
		Trailer  http.Header
	}
	run := func(viaReverseProxy bool, method, target, body string, hdr http.Header) exchange {
		t.Helper()
		h := newTestHandler(t, backend, "127.0.0.1", Options{})
		h.viaReverseProxy = viaReverseProxy
		before := len(backend.received())
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		r := httptest.NewRequest(method, target, rd)
		r.RemoteAddr = "192.0.2.7:5555"
		for k, vv := range hdr {
			r.Header[k] = append([]string(nil), vv...)
		}
		w := serve(h, r, testUser())
		res := w.Result()
		got := exchange{Code: res.StatusCode, Header: res.Header.Clone(), Body: w.Body.String(), Trailer: res.Trailer}
		delete(got.Header, "Date")
		if recs := backend.received(); len(recs) > before {
			got.Received = recs[len(recs)-1]
			got.Received.ClientSerial = ""
		}
		return got
	}
	clientHeaders := http.Header{
		"Connection":          {"X-Custom, keep-alive"},
		"X-Custom":            {"dropped"},
		"Keep-Alive":          {"timeout=5"},
		"Te":                  {"trailers, deflate"},
		"Proxy-Authorization": {"Basic abc"},
		"Forwarded":           {"for=203.0.113.1"},
		"X-Forwarded-For":     {"203.0.113.1"},
		"X-Forwarded-Host":    {"evil.example.com"},
		"X-Forwarded-Proto":   {"http"},
		"Authorization":       {"Bearer secret"},
		"Impersonate-User":    {"mallory"},
		"X-Remote-User":       {"mallory"},
		"Accept":              {"application/json", "application/yaml"},
		"User-Agent":          {"kubectl/v1.33.1"},
	}
	for _, c := range []struct {
		name, method, target, body string
	}{
		{"get with hop-by-hop and forged headers", "GET", flunderPath + "?b=2&a=1&a=0", ""},
		{"post with a body", "POST", flunderPath + "?answer=echo", `{"kind":"Flunder"}`},
		{"response hop-by-hop headers", "GET", flunderPath + "?answer=hop", ""},
		{"event stream with trailers", "GET", flunderPath + "?answer=trailers", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := run(true, c.method, c.target, c.body, clientHeaders)
			got := run(false, c.method, c.target, c.body, clientHeaders)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("forward differs from httputil.ReverseProxy:\n got %s\nwant %s", dump(got), dump(want))
			}
			if c.name == "get with hop-by-hop and forged headers" {
				// The case must exercise what it claims.
				rh := got.Received.Header
				if rh.Get("X-Custom") != "" || rh.Get("Authorization") != "" || rh.Get("Te") != "trailers" ||
					rh.Get("X-Forwarded-For") != "203.0.113.1, 192.0.2.7" || rh.Get("X-Remote-User") != "kubernetes-admin" {
					t.Errorf("backend received %v", rh)
				}
			}
		})
	}
}

// dump prints an exchange with its headers in key order.
func dump(v any) string {
	var b strings.Builder
	header := func(h http.Header) {
		keys := make([]string, 0, len(h))
		for k := range h {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "%s=%s; ", k, strings.Join(h[k], "|"))
		}
	}
	rv := reflect.ValueOf(v)
	for i := 0; i < rv.NumField(); i++ {
		fmt.Fprintf(&b, "\n  %s: ", rv.Type().Field(i).Name)
		switch f := rv.Field(i).Interface().(type) {
		case http.Header:
			header(f)
		case received:
			fmt.Fprintf(&b, "%s %s?%s body=%q headers: ", f.Method, f.Path, f.Query, f.Body)
			header(f.Header)
		default:
			fmt.Fprintf(&b, "%v", f)
		}
	}
	return b.String()
}
