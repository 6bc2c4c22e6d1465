package inspectorpage

import (
	"io"
	"net/http"
)

// Namespaces being deleted and the namespace controller's conditions
// (DebugNamespacesPath); "why" opens what blocks one.
func init() {
	register(Panel{ID: "namespaces", Title: "Namespaces in Terminating", Order: 35, Every: "3s", Render: renderNamespaces})
}

func renderNamespaces(p *Page, w io.Writer, r *http.Request) error {
	list, err := p.src.TerminatingNamespaces(r.Context())
	if err != nil {
		return err
	}
	return namespacesPanel().Execute(w, list)
}

var namespacesPanel = panelTemplate("namespaces", `{{if not .}}<p class="note">none</p>{{else}}<table class="namespaces">
<thead><tr><th>namespace</th><th>deleted</th><th>finalizers</th><th>conditions</th></tr></thead>
{{range .}}<tr class="namespace" data-name="{{.Name}}"><td><a href="#namespace" hx-get="/panels/namespace?name={{.Name}}" hx-target="#namespace">{{.Name}}</a> (why?)</td>
<td>{{with .DeletionTimestamp}}{{since .Time}}{{end}}</td><td>{{join .Finalizers ", "}}</td>
<td>{{range .Conditions}}{{if eq .Status "True"}}<div><b>{{.Type}}</b>{{with .Message}}: {{.}}{{end}}</div>{{end}}{{end}}</td></tr>
{{end}}</table>{{end}}`)
