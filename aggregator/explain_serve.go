package aggregator

import (
	"io"
	"net/http"
	"strings"
)

// debugReadOnly answers 405 `method not allowed` with Allow: GET, HEAD
// unless r is a GET or HEAD, and reports whether r may go on: the method
// check of every /debug/aggsim explanation.
func debugReadOnly(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	return false
}

// wantsJSON reports whether r's Accept header names application/json.
func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// writeExplanation answers an explanation: v as indented JSON
// (writeDebugJSON) when r asks for JSON, else text/plain written by text.
func writeExplanation(w http.ResponseWriter, r *http.Request, v any, text func(io.Writer) error) {
	if wantsJSON(r) {
		writeDebugJSON(w, v)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_ = text(w)
}
