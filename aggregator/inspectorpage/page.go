package inspectorpage

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"html/template"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aggsim/aggsim/aggregator"
)

// Source is the data the page shows: *aggregator.Server implements it.
// Each method is the one the matching /debug/aggsim/... JSON path serves.
type Source interface {
	// Inspector is the request recorder (DebugRequestsPath); nil when
	// recording is off.
	Inspector() *aggregator.Inspector
	// DiscoveryOrder is DebugDiscoveryOrderPath.
	DiscoveryOrder(ctx context.Context) (*aggregator.DiscoveryOrder, error)
	// DiscoveryDocuments is DebugDiscoveryPath.
	DiscoveryDocuments() *aggregator.DiscoveryDocuments
	// ExplainAPIService is DebugAPIServicesPath/<name>.
	ExplainAPIService(ctx context.Context, name string) (*aggregator.Explanation, error)
	// TerminatingNamespaces is DebugNamespacesPath.
	TerminatingNamespaces(ctx context.Context) ([]aggregator.TerminatingNamespace, error)
	// ExplainNamespace is DebugNamespacesPath/<name>.
	ExplainNamespace(ctx context.Context, name string) (*aggregator.NamespaceExplanation, error)
}

//go:embed assets
var assets embed.FS

// SessionCookie is the name of the cookie a login sets.
const SessionCookie = "aggsim-inspector"

// sessionTTL is how long a session lasts.
const sessionTTL = 12 * time.Hour

// Options configures a Page.
type Options struct {
	// Server is the API server's URL, shown in the header.
	Server string
	// Now returns the time; nil means time.Now.
	Now func() time.Time
}

// Page serves the inspector. Create it with New; it is safe for
// concurrent use.
type Page struct {
	src  Source
	opts Options
	mux  *http.ServeMux

	mu       sync.Mutex
	token    string               // the unused login token; "" once used
	sessions map[string]time.Time // session id → expiry
}

// New returns a Page over src with a fresh one-time login token
// (LoginPath). Errors: the system's random source failing.
func New(src Source, opts Options) (*Page, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	p := &Page{src: src, opts: opts, sessions: map[string]time.Time{}}
	if _, err := p.NewLoginToken(); err != nil {
		return nil, err
	}
	m := http.NewServeMux()
	m.HandleFunc("GET /login", p.serveLogin)
	m.Handle("GET /assets/", p.auth(http.FileServerFS(assets)))
	m.Handle("GET /{$}", p.auth(http.HandlerFunc(p.serveIndex)))
	m.Handle("GET /panels/{id}", p.auth(http.HandlerFunc(p.servePanel)))
	m.Handle("GET /events/requests", p.auth(http.HandlerFunc(p.serveRequestEvents)))
	p.mux = m
	return p, nil
}

// NewLoginToken replaces the login token with a fresh one and returns the
// path that logs in with it: "/login?token=<32 hex digits>". The token
// works once. Errors: the system's random source failing.
func (p *Page) NewLoginToken() (string, error) {
	t, err := randomHex(16)
	if err != nil {
		return "", err
	}
	p.mu.Lock()
	p.token = t
	p.mu.Unlock()
	return "/login?token=" + t, nil
}

// LoginPath is the path that logs in with the current token; "" once it
// was used.
func (p *Page) LoginPath() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.token == "" {
		return ""
	}
	return "/login?token=" + p.token
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// ServeHTTP refuses a Host that is not a loopback name (a page on another
// site that resolves its name to 127.0.0.1 must not read this one), then
// serves the page's routes.
func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) {
		http.Error(w, "the inspector answers only on a loopback address (127.0.0.1, ::1, localhost)", http.StatusMisdirectedRequest)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	p.mux.ServeHTTP(w, r)
}

// loopbackHost reports whether the Host header names a loopback address.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveLogin exchanges the one-time token for a session cookie and
// redirects to the page.
func (p *Page) serveLogin(w http.ResponseWriter, r *http.Request) {
	got := r.URL.Query().Get("token")
	p.mu.Lock()
	ok := p.token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(p.token)) == 1
	if ok {
		p.token = ""
	}
	p.mu.Unlock()
	if !ok {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		_ = loginFailed().Execute(w, nil)
		return
	}
	id, err := randomHex(32)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	exp := p.opts.Now().Add(sessionTTL)
	p.mu.Lock()
	for k, e := range p.sessions { // drop expired sessions
		if e.Before(p.opts.Now()) {
			delete(p.sessions, k)
		}
	}
	p.sessions[id] = exp
	p.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Expires: exp})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

var loginFailed = panelTemplate("login", `<!doctype html><html><head><meta charset="utf-8"><title>aggsim inspector: log in</title></head>
<body><h1>Not logged in</h1><p>The inspector needs the one-time login URL that <code>aggsim serve</code> printed.
A token works once; restart <code>aggsim serve</code> for a new one.</p></body></html>
`)

// auth lets requests with a live session through; others get 401 (and a
// page saying how to log in).
func (p *Page) auth(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(SessionCookie)
		ok := false
		if err == nil {
			p.mu.Lock()
			exp, found := p.sessions[c.Value]
			ok = found && exp.After(p.opts.Now())
			p.mu.Unlock()
		}
		if !ok {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusUnauthorized)
			_ = loginFailed().Execute(w, nil)
			return
		}
		h.ServeHTTP(w, r)
	})
}

var index = panelTemplate("index", `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>aggsim inspector</title>
<link rel="stylesheet" href="/assets/style.css">
<script src="/assets/htmx-2.0.11.min.js"></script>
<script src="/assets/live.js" defer></script>
</head><body>
<header><h1>aggsim inspector</h1><span class="server">{{.Server}}</span></header>
<main>
{{range .Panels}}<section class="panel" id="panel-{{.ID}}"><h2>{{.Title}}</h2>
<div id="{{.ID}}" hx-get="/panels/{{.ID}}" hx-trigger="load{{if .Every}}, every {{.Every}}{{end}}">loading…</div>
</section>
{{end}}</main></body></html>
`)

func (p *Page) serveIndex(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = index().Execute(w, struct {
		Server string
		Panels []Panel
	}{p.opts.Server, panels})
}

// servePanel renders one panel (htmx swaps it into its element).
func (p *Page) servePanel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	for _, pn := range panels {
		if pn.ID != id {
			continue
		}
		var b bytes.Buffer
		if err := pn.Render(p, &b, r); err != nil {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			template.HTMLEscape(w, []byte("error: "+err.Error()))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(b.Bytes())
		return
	}
	http.NotFound(w, r)
}

// serveRequestEvents streams request rows as server-sent events: the same
// stream as DebugRequestEventsPath, with each request rendered as its row
// of the requests panel.
func (p *Page) serveRequestEvents(w http.ResponseWriter, r *http.Request) {
	in := p.src.Inspector()
	if in == nil {
		http.Error(w, "request recording is off (--inspector-ring-size=0)", http.StatusNotFound)
		return
	}
	aggregator.ServeRequestEvents(w, r, in, func(rec *aggregator.InspectedRequest) ([]byte, error) {
		var b bytes.Buffer
		err := requestRow().Execute(&b, rec)
		return b.Bytes(), err
	})
}
