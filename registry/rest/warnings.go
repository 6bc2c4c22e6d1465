package rest

import (
	"net/http"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/aggsim/aggsim/registry/negotiation"
)

// Upstream's limits on a response's Warning headers
// (k8s.io/apiserver/pkg/endpoints/filters/warning.go), in runes of
// warning text.
const (
	// warningsTotalRunes is the text all warnings may have before they
	// are truncated.
	warningsTotalRunes = 4 * 1024
	// warningItemRunes is what each warning is cut to once truncating.
	warningItemRunes = 256
)

// warningRecorder returns the sink of the warnings of one request
// (registry.WithWarningSink), upstream's recorder: each text becomes one
// `Warning: 299 - "<text>"` header, once; empty texts and texts that are
// not valid UTF-8 or hold control characters are dropped; when the texts
// would pass 4096 runes, every warning so far is written again cut to
// 256 runes, and the later ones are added cut so until the total passes
// 4096 runes, after which no more are added. Safe for concurrent use.
func warningRecorder(w http.ResponseWriter) func(string) {
	r := &warnings{w: w, recorded: map[string]bool{}}
	return r.add
}

type warnings struct {
	mu         sync.Mutex
	w          http.ResponseWriter
	recorded   map[string]bool
	ordered    []string
	written    int
	truncating bool
}

// validWarning reports whether upstream's NewWarningHeader accepts text.
func validWarning(text string) bool {
	return utf8.ValidString(text) && !strings.ContainsFunc(text, unicode.IsControl)
}

func cutRunes(text string) (string, int) {
	n := utf8.RuneCountInString(text)
	if n > warningItemRunes {
		return string([]rune(text)[:warningItemRunes]), warningItemRunes
	}
	return text, n
}

func (r *warnings) add(text string) {
	if text == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.written >= warningsTotalRunes && r.truncating {
		return
	}
	if r.recorded[text] {
		return
	}
	r.recorded[text] = true
	r.ordered = append(r.ordered, text)
	n := utf8.RuneCountInString(text)
	if r.truncating {
		text, n = cutRunes(text)
	}
	if !validWarning(text) {
		return
	}
	if r.written+n <= warningsTotalRunes || r.truncating {
		r.written += n
		negotiation.AddWarning(r.w, text)
		return
	}
	r.truncating = true
	r.written = 0
	r.w.Header().Del("Warning")
	for _, t := range r.ordered {
		t, n := cutRunes(t)
		if validWarning(t) {
			r.written += n
			negotiation.AddWarning(r.w, t)
		}
	}
}
