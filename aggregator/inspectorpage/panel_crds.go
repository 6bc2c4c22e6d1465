package inspectorpage

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/aggsim/aggsim/aggregator"
)

// CustomResourceDefinitions with their versions, the APIService each
// served version is routed by, and their conditions (DebugCRDsPath).
func init() {
	register(Panel{ID: "crds", Title: "CustomResourceDefinitions", Order: 36, Every: "3s", Render: renderCRDs})
}

// crdSource is the part of the Source this panel needs; *aggregator.Server has it.
type crdSource interface {
	CRDs(ctx context.Context) ([]aggregator.CRDOverview, error)
}

func renderCRDs(p *Page, w io.Writer, r *http.Request) error {
	src, ok := p.src.(crdSource)
	if !ok {
		return errors.New("this server does not report CRDs")
	}
	list, err := src.CRDs(r.Context())
	if err != nil {
		return err
	}
	return crdsPanel().Execute(w, list)
}

var crdsPanel = panelTemplate("crds", `{{if not .}}<p class="note">none</p>{{else}}<table class="crds">
<thead><tr><th>name</th><th>kind</th><th>scope</th><th>versions (served, storage)</th><th>conversion</th><th>conditions</th></tr></thead>
{{range .}}<tr class="crd" data-name="{{.Name}}"><td>{{.Name}}{{if .Terminating}} <b>(terminating)</b>{{end}}</td><td>{{.Kind}}</td><td>{{.Scope}}</td>
<td>{{range .Versions}}<div><a href="#apiservice" hx-get="/panels/apiservice?name={{.APIService}}" hx-target="#apiservice">{{.Name}}</a>{{if .Served}} served{{end}}{{if .Storage}} storage{{end}}{{if .Deprecated}} deprecated{{end}}</div>{{end}}</td>
<td>{{.Conversion}}</td>
<td>{{range .Conditions}}<div><b>{{.Type}}</b> {{.Status}}{{with .Reason}} ({{.}}){{end}}{{with .Message}}: {{.}}{{end}}</div>{{end}}</td></tr>
{{end}}</table>{{end}}`)
