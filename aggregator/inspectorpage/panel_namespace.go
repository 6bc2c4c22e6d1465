package inspectorpage

import (
	"io"
	"net/http"
)

// One namespace: what blocks its deletion, the APIServices that make
// discovery fail and why, the content left, and what would unblock it
// (DebugNamespacesPath/<name>, aggsim explain namespace).
func init() {
	register(Panel{ID: "namespace", Title: "One namespace", Order: 36, Render: renderNamespace})
}

func renderNamespace(p *Page, w io.Writer, r *http.Request) error {
	name := r.URL.Query().Get("name")
	if name == "" {
		_, err := io.WriteString(w, `<p class="note">Pick a Terminating namespace above.</p>`)
		return err
	}
	e, err := p.src.ExplainNamespace(r.Context(), name)
	if err != nil {
		return err
	}
	return namespacePanel().Execute(w, e)
}

var namespacePanel = panelTemplate("namespace", `<div class="explain-namespace" data-name="{{.Name}}">
<h3>{{.Name}} <button hx-get="/panels/namespace?name={{.Name}}" hx-target="#namespace">check again</button></h3>
<p>phase <b>{{.Phase}}</b>{{with .SpecFinalizers}}, finalizers <code>{{join . ", "}}</code>{{end}}{{if not .ControllerEnabled}}; the namespace controller is off{{end}}</p>
{{with .DiscoveryError}}<p class="refused">discovery fails: {{.}}</p>{{end}}
{{with .Blockers}}<p>blocked by:</p><ul>{{range .}}<li><code>{{.APIService}}</code> ({{.GroupVersion}}){{with .Explanation}}: {{.Verdict.Reason}} — {{.Verdict.Message}}{{end}}{{with .Error}}: {{.}}{{end}}</li>{{end}}</ul>{{end}}
{{with .Content}}<p>content left:</p><ul>{{range .}}<li><code>{{.Resource}}</code>: {{.Count}}{{with .Error}} ({{.}}){{end}}</li>{{end}}</ul>{{end}}
<p>what would unblock it:</p><ul class="advice">{{range .Advice}}<li>{{.}}</li>{{end}}</ul></div>`)
