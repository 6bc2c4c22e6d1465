package inspectorpage

import (
	"io"
	"net/http"
	"net/url"

	"github.com/aggsim/aggsim/aggregator"
)

// The live requests: a filter form and the list the page's script fills
// from /events/requests (newest first); each row opens to the whole hop.
func init() {
	register(Panel{ID: "requests", Title: "Requests, live", Order: 30, Render: renderRequests})
}

func renderRequests(p *Page, w io.Writer, r *http.Request) error {
	in := p.src.Inspector()
	q := r.URL.Query()
	f := aggregator.ParseRequestFilter(q)
	keep := url.Values{}
	for _, k := range []string{"user", "groupVersion", "code"} {
		if v := q.Get(k); v != "" {
			keep.Set(k, v)
		}
	}
	data := struct {
		On    bool
		Size  int
		F     aggregator.RequestFilter
		Query string
	}{On: in != nil, F: f, Query: keep.Encode()}
	if in != nil {
		data.Size = in.Size()
	}
	if q.Get("part") == "list" {
		return requestsPanel().ExecuteTemplate(w, "request-list", data)
	}
	return requestsPanel().Execute(w, data)
}

var requestsPanel = panelTemplate("requests", `{{if not .On}}<p>Request recording is off (<code>--inspector-ring-size=0</code>).</p>{{else}}
<form class="filters" hx-get="/panels/requests?part=list" hx-target="#request-stream" hx-trigger="input delay:400ms, submit">
<label>user <input name="user" value="{{.F.User}}" placeholder="jane"></label>
<label>group/version <input name="groupVersion" value="{{.F.GroupVersion}}" placeholder="wardle.example.com"></label>
<label>code <input name="code" value="{{.F.Code}}" placeholder="403 or 4xx"></label>
<span class="note">the last {{.Size}} requests are kept; open a row for the whole hop</span>
</form>
<div class="reqhead"><span>#</span><span>time</span><span>user</span><span>verb</span><span>path</span><span>authn · impersonation · authz</span><span>route</span><span>code</span><span>latency</span></div>
<div id="request-stream">{{template "request-list" .}}</div>{{end}}
{{define "request-list"}}<div id="request-list" data-events="/events/requests?{{.Query}}"></div>{{end}}`)

var requestRow = panelTemplate("row", `<details class="req {{codeClass .Code}}" data-id="{{.ID}}" data-user="{{.EffectiveUser}}" data-path="{{.Path}}" data-code="{{.Code}}">
<summary><span class="rid">#{{.ID}}</span><span class="time">{{clock .Time}}</span><span class="who">{{with .Authentication.User}}{{.Username}}{{else}}(unauthenticated){{end}}{{with .Impersonation}}{{with .User}} → <b class="as">{{.Username}}</b>{{end}}{{end}}</span><span class="verb">{{.Verb}}</span><span class="path">{{.Path}}{{with .Query}}?{{.}}{{end}}</span><span class="decision">{{with .Authentication.Method}}{{.}}{{else}}not authenticated{{end}}{{with .Impersonation}} · impersonation {{if .User}}allowed{{else}}refused{{end}}{{end}}{{with .Authorization}}{{with .Decision}} · {{.}}{{end}}{{end}}</span><span class="route">{{if eq .Route.Kind "proxied"}}→ {{.Route.APIService}}{{else}}local{{end}}</span><span class="code">{{.Code}}</span><span class="lat">{{micros .LatencyMicros}}</span></summary>
<div class="detail">
<section class="client"><h4>Client sent</h4>
<p>{{.Method}} <code>{{.Path}}{{with .Query}}?{{.}}{{end}}</code> over {{.Client.Protocol}} from {{.Client.RemoteAddr}}; audit ID <code>{{.AuditID}}</code></p>
<p>{{with .Client.Certificate}}client certificate <code>{{.Subject}}</code>, issuer <code>{{.Issuer}}</code>{{else}}no client certificate{{end}}</p>
{{template "hdr" .Client.Header}}</section>
<section class="identity"><h4>Who aggsim decided the caller is</h4>
{{with .Authentication.User}}<p>authenticated by <b>{{$.Authentication.Method}}</b> as <code>{{.Username}}</code>{{with .Groups}}, groups <code>{{join . ", "}}</code>{{end}}</p>{{else}}<p>authentication failed: 401</p>{{end}}
{{with .Impersonation}}<p>asked to impersonate:</p>{{template "hdr" .Requested}}{{with .User}}<p>runs as <code>{{.Username}}</code>{{with .Groups}}, groups <code>{{join . ", "}}</code>{{end}}</p>{{else}}<p>impersonation refused</p>{{end}}{{end}}
{{with .Authorization}}<p>authorization: <b>{{.Decision}}</b>{{with .Reason}}: {{.}}{{end}}</p>{{end}}
{{with .StoppedAt}}<p class="refused">refused at the {{.}} step</p>{{end}}</section>
{{if eq .Route.Kind "proxied"}}{{with .Route}}
<section class="removed"><h4>Removed before proxying</h4>{{with .RemovedHeaders}}<ul class="removed">{{range .}}<li>{{.}}</li>{{end}}</ul>{{else}}<p>nothing</p>{{end}}</section>
<section class="sent"><h4>Sent to the backend ({{.APIService}})</h4>
<p>{{if .Address}}https://{{.Address}}, verified as <code>{{.ServerName}}</code>{{else}}not sent: {{if not .Available}}the APIService is not Available (503){{else}}the Service did not resolve{{end}}{{end}}</p>
{{with .ClientCertificate}}<p>client certificate <code>{{.Subject}}</code>, issuer <code>{{.Issuer}}</code></p>{{end}}
{{with .SentHeader}}{{template "hdr" .}}{{end}}</section>
<section class="answer"><h4>The backend answered</h4>
{{if .BackendCode}}<p>{{.BackendCode}}; serving certificate <code>{{.BackendCertificate}}</code></p>{{template "hdr" .ResponseHeader}}{{else}}<p>no answer{{with .Error}}: {{.}}{{end}}</p>{{end}}</section>
{{end}}{{else}}<section class="local"><h4>Route</h4><p>served by aggsim itself</p></section>{{end}}
</div></details>
{{define "hdr"}}<table class="hdr">{{range $k, $vs := .}}{{range $vs}}<tr data-h="{{$k}}"><th>{{$k}}</th><td>{{.}}</td></tr>{{end}}{{end}}</table>{{end}}`)
