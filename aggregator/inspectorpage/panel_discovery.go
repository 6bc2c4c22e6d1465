package inspectorpage

import (
	"io"
	"net/http"
)

// The discovery documents side by side: legacy /apis and aggregated /apis
// with their ETags, and per group its documents, entry hash and freshness
// (DebugDiscoveryPath).
func init() {
	register(Panel{ID: "discovery", Title: "Discovery documents", Order: 40, Every: "5s", Render: renderDiscovery})
}

func renderDiscovery(p *Page, w io.Writer, _ *http.Request) error {
	return discoveryPanel().Execute(w, p.src.DiscoveryDocuments())
}

var discoveryPanel = panelTemplate("discovery", `<p class="note">as served at {{clock .Time}}: legacy <code>{{.Legacy.ContentType}}</code>{{with .Legacy.ETag}}, ETag <code>{{.}}</code>{{end}}; aggregated <code>{{.Aggregated.ContentType}}</code>, ETag <code>{{.Aggregated.ETag}}</code></p>
<table class="discovery"><thead><tr><th>group</th><th>legacy /apis/&lt;group&gt;</th><th>aggregated entry</th><th>entry hash</th><th>freshness</th></tr></thead>
{{range .Groups}}<tr data-group="{{.Name}}"><th>{{.Name}}</th><td><pre>{{printf "%s" .Legacy}}</pre></td><td><details><summary>entry</summary><pre>{{printf "%s" .Aggregated}}</pre></details></td><td><code>{{.EntryHash}}</code></td><td>{{range $v, $f := .Freshness}}{{$v}}: {{$f}}<br>{{end}}</td></tr>
{{end}}</table>
<div class="side"><details><summary>legacy /apis</summary><pre>{{printf "%s" .Legacy.Body}}</pre></details><details><summary>aggregated /apis</summary><pre>{{printf "%s" .Aggregated.Body}}</pre></details></div>`)
