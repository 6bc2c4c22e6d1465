package inspectorpage

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/aggsim/aggsim/aggregator"
)

// Admission webhook configurations and ValidatingAdmissionPolicies with
// their last calls and the last refusals (DebugAdmissionPath, the same
// data as `aggsim explain webhook`).
func init() {
	register(Panel{ID: "admission", Title: "Admission webhooks and policies", Order: 37, Every: "3s", Render: renderAdmission})
}

// admissionSource is the part of the Source this panel needs; *aggregator.Server has it.
type admissionSource interface {
	AdmissionOverview(ctx context.Context) (*aggregator.AdmissionOverview, error)
}

// admissionRefusalsShown bounds the refusals the panel lists.
const admissionRefusalsShown = 10

func renderAdmission(p *Page, w io.Writer, r *http.Request) error {
	src, ok := p.src.(admissionSource)
	if !ok {
		return errors.New("this server does not report admission")
	}
	o, err := src.AdmissionOverview(r.Context())
	if err != nil {
		return err
	}
	if len(o.Refusals) > admissionRefusalsShown {
		o.Refusals = o.Refusals[:admissionRefusalsShown]
	}
	return admissionPanel().Execute(w, o)
}

var admissionPanel = panelTemplate("admission", `<h3>Webhook configurations</h3>
{{if not .Configurations}}<p class="note">none</p>{{else}}<table class="webhooks">
<thead><tr><th>configuration</th><th>webhook</th><th>failurePolicy</th><th>calls kept</th><th>last call</th></tr></thead>
{{range $c := .Configurations}}{{range .Webhooks}}<tr class="webhook" data-name="{{$c.Name}}/{{.Name}}"><td>{{$c.Kind}} {{$c.Name}}</td><td>{{.Name}}<div class="note">aggsim explain webhook {{$c.Name}}/{{.Name}}</div></td>
<td>{{.FailurePolicy}}</td><td>{{.Calls}}</td>
<td>{{with .LastCall}}{{clock .Time}} {{.Operation}} {{.Resource}} {{if .Namespace}}{{.Namespace}}/{{end}}{{.Name}}: <b>{{.Verdict}}</b> in {{printf "%.1f" .LatencyMillis}} ms{{with .Message}}<div>{{.}}</div>{{end}}{{with .Error}}<div>{{.}}</div>{{end}}{{else}}none{{end}}</td></tr>
{{end}}{{end}}</table>{{end}}
<h3>ValidatingAdmissionPolicies</h3>
{{if not .Policies}}<p class="note">none</p>{{else}}<table class="policies">
<thead><tr><th>policy</th><th>failurePolicy</th><th>bindings</th><th>refusals kept</th></tr></thead>
{{range .Policies}}<tr class="policy" data-name="{{.Name}}"><td>{{.Name}}</td><td>{{.FailurePolicy}}</td><td>{{join .Bindings ", "}}</td><td>{{.Refusals}}</td></tr>
{{end}}</table>{{end}}
{{with .MutatingPolicies}}<h3>MutatingAdmissionPolicies</h3>
<table class="mutating-policies">
<thead><tr><th>policy</th><th>failurePolicy</th><th>bindings</th><th>refusals kept</th></tr></thead>
{{range .}}<tr class="policy" data-name="{{.Name}}"><td>{{.Name}}</td><td>{{.FailurePolicy}}</td><td>{{join .Bindings ", "}}</td><td>{{.Refusals}}</td></tr>
{{end}}</table>{{end}}
<h3>Last refusals</h3>
{{if not .Refusals}}<p class="note">none</p>{{else}}<table class="refusals">
<thead><tr><th>when</th><th>refused by</th><th>request</th><th>answer</th></tr></thead>
{{range .Refusals}}<tr class="refusal"><td>{{clock .Time}}</td><td>{{if eq .By "policy"}}{{if .Mutating}}MutatingAdmissionPolicy{{else}}policy{{end}} {{.Policy}} (binding {{.Binding}}){{else}}webhook {{.Webhook}} ({{.Configuration}}){{with .FailurePolicy}}, call failed, failurePolicy {{.}}{{end}}{{end}}</td>
<td>{{.User}}: {{.Operation}} {{.Resource}} {{if .Namespace}}{{.Namespace}}/{{end}}{{.Name}}</td><td>{{.Code}} {{.Message}}</td></tr>
{{end}}</table>{{end}}`)
