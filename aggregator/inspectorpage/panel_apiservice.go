package inspectorpage

import (
	"io"
	"net/http"
)

// One APIService in detail: the explain checks, the resolved address, the
// backend's certificate chain against caBundle and the server name, and
// advice (DebugAPIServicesPath/<name>). Runs the checks now.
func init() {
	register(Panel{ID: "apiservice", Title: "One APIService", Order: 20, Render: renderAPIService})
}

func renderAPIService(p *Page, w io.Writer, r *http.Request) error {
	name := r.URL.Query().Get("name")
	if name == "" {
		_, err := io.WriteString(w, `<p class="note">Pick an APIService above.</p>`)
		return err
	}
	e, err := p.src.ExplainAPIService(r.Context(), name)
	if err != nil {
		return err
	}
	return apiServicePanel().Execute(w, e)
}

var apiServicePanel = panelTemplate("apiservice", `<div class="explain" data-name="{{.Name}}">
<h3>{{.Name}} <button hx-get="/panels/apiservice?name={{.Name}}" hx-target="#apiservice">check again</button></h3>
<p>group/version <code>{{.Group}}/{{.Version}}</code>, service <code>{{.Service}}</code></p>
{{with .Condition}}<p>stored condition: <b>{{.Status}}</b> ({{.Reason}}) {{.Message}}{{if not .LastTransitionTime.IsZero}}, since {{since .LastTransitionTime.Time}}{{end}}</p>{{end}}
<p>checked now: <b>{{.Verdict.Status}}</b> ({{.Verdict.Reason}}) {{.Verdict.Message}}</p>
<ol class="checks">{{range .Checks}}<li class="{{.Result}}"><b>{{.Name}}</b> {{.Result}}{{with .Detail}}: {{.}}{{end}}</li>{{end}}</ol>
{{with .ProbeURL}}<p>probe: GET <code>{{.}}</code></p>{{end}}
{{with .Address}}<p>resolved address: <code>{{.}}</code></p>{{end}}
{{with .ServerName}}<p>the proxy verifies the serving certificate for <code>{{.}}</code>{{if $.InsecureSkipTLSVerify}} — no: insecureSkipTLSVerify{{end}}</p>{{end}}
{{with .CABundle}}<p>caBundle:</p><ul>{{range .}}<li><code>{{.Subject}}</code></li>{{end}}</ul>{{end}}
{{with .PresentedCertificates}}<p>the backend presented:</p><ol>{{range .}}<li><code>{{.Subject}}</code>, SANs <code>{{join .SANs ", "}}</code>, issuer <code>{{.Issuer}}</code></li>{{end}}</ol>{{end}}
{{with .HandshakeError}}<p class="refused">handshake: {{.}}</p>{{end}}
{{with .Verification}}<p>verification: <b>{{.}}</b></p>{{end}}
<p>{{if .ProxyWillFail}}<b class="refused">proxying will fail</b>: {{.ProxyProblem}}{{else}}proxying will work{{end}}</p>
<p class="advice">advice: {{.Advice}}</p></div>`)
