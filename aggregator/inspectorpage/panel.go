package inspectorpage

import (
	"fmt"
	"html/template"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Panel is one section of the page. Register one from its own file's init.
type Panel struct {
	// ID names the panel: its route is /panels/<ID>, its element id <ID>.
	ID string
	// Title is the section heading.
	Title string
	// Order places the panel on the page, smallest first.
	Order int
	// Every is the htmx polling interval ("2s"); empty: loaded once (and
	// by the panel's own controls).
	Every string
	// Render writes the panel's HTML for r.
	Render func(p *Page, w io.Writer, r *http.Request) error
}

// panels are the registered panels, by Order.
var panels []Panel

// register adds p; it panics on a duplicate ID (a programming error).
func register(p Panel) {
	for _, q := range panels {
		if q.ID == p.ID {
			panic("inspectorpage: panel registered twice: " + p.ID)
		}
	}
	panels = append(panels, p)
	sort.SliceStable(panels, func(i, j int) bool { return panels[i].Order < panels[j].Order })
}

// funcs are the helpers every panel template may use.
var funcs = template.FuncMap{
	"join": strings.Join,
	"since": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return time.Since(t).Round(time.Second).String() + " ago"
	},
	"clock": func(t time.Time) string { return t.Local().Format("15:04:05.000") },
	"micros": func(us int64) string {
		if us < 1000 {
			return fmt.Sprintf("%d µs", us)
		}
		return fmt.Sprintf("%.1f ms", float64(us)/1000)
	},
	"codeClass": func(code int) string { return fmt.Sprintf("c%dxx", code/100) },
	"lower":     strings.ToLower,
}

// templates are every template of the package, as panelTemplate returned
// them (TestTemplatesParse parses each).
var templates []func() *template.Template

// panelTemplate returns a template parsed with funcs on first use, so that
// package initialisation (run by every process start, with the inspector
// on or off) parses nothing: the templates took about 0.8 ms of each start
// before main (GODEBUG=inittrace=1). Parsing panics on a syntax error
// (caught by TestTemplatesParse).
func panelTemplate(name, text string) func() *template.Template {
	t := sync.OnceValue(func() *template.Template {
		return template.Must(template.New(name).Funcs(funcs).Parse(text))
	})
	templates = append(templates, t)
	return t
}
