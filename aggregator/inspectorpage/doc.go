// Package inspectorpage is aggsim's web inspector (issue 18): a page that
// shows the aggregation layer at work — the APIServices in discovery order
// and why, one APIService's checks, live requests with the proxy hop, and
// the discovery documents.
//
// # What it owns
//
//   - Page (page.go): an http.Handler for a loopback-only listener. Access
//     takes a one-time login token (printed in `aggsim serve`'s banner as
//     a URL) that is exchanged for a session cookie; requests whose Host is
//     not a loopback name are refused (DNS rebinding). Every route is a
//     read-only GET.
//   - The panels (panel_*.go), one small file each: a title, an optional
//     refresh interval and a server-rendered html/template over the data
//     the aggregator serves as JSON under /debug/aggsim/... (Source). Adding
//     a panel is adding one such file.
//   - The assets (assets/): htmx 2 (vendored from npm with its licence),
//     the style sheet and a few lines of script that append server-sent
//     request rows; embedded, no build step.
//
// # What it must not do
//
// Compute anything the JSON does not carry: the page is a view of
// aggregator's inspector data (Source), not a second source. It changes
// nothing on the server and never listens beyond loopback.
package inspectorpage
