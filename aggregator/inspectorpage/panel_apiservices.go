package inspectorpage

import (
	"io"
	"net/http"
)

// The APIServices in the order /apis lists them, with why each stands
// where it does (DebugDiscoveryOrderPath); a name opens its details.
func init() {
	register(Panel{ID: "apiservices", Title: "APIServices, in discovery order", Order: 10, Every: "2s", Render: renderAPIServices})
}

func renderAPIServices(p *Page, w io.Writer, r *http.Request) error {
	o, err := p.src.DiscoveryOrder(r.Context())
	if err != nil {
		return err
	}
	return apiServicesPanel().Execute(w, o)
}

var apiServicesPanel = panelTemplate("apiservices", `<table class="apiservices">
<thead><tr><th>APIService</th><th>groupPriorityMinimum / versionPriority</th><th>service</th><th>Available</th><th>last transition</th><th>why here</th></tr></thead>
{{range .Groups}}<tbody class="group" data-group="{{.Name}}">
<tr class="grouprow"><th colspan="5">{{if .Name}}{{.Name}}{{else}}core (/api){{end}}</th><td class="why">{{.Why}}</td></tr>
{{range .Versions}}<tr class="apiservice" data-name="{{.Name}}" data-available="{{.Available}}">
<td><a href="#apiservice" hx-get="/panels/apiservice?name={{.Name}}" hx-target="#apiservice">{{.Name}}</a></td>
<td>{{if or .GroupPriorityMinimum .VersionPriority}}{{.GroupPriorityMinimum}} / {{.VersionPriority}}{{else}}—{{end}}</td><td>{{.Service}}</td>
<td class="avail {{lower .Available}}"><b>{{.Available}}</b>{{with .Reason}} ({{.}}){{end}}{{with .Message}}<div class="msg">{{.}}</div>{{end}}</td>
<td>{{with .LastTransitionTime}}{{since .Time}}{{end}}</td><td class="why">{{.Why}}</td></tr>
{{end}}</tbody>
{{end}}</table>`)
