package aggregator

import (
	"encoding/json"
	"net/http"
	"slices"
)

// rootPaths is the body of GET / (metav1.RootPaths).
type rootPaths struct {
	Paths []string `json:"paths"`
}

// installIndex serves `/` and `/index.html` (both unlisted) with the
// sorted, de-duplicated listed paths of m, as kube-apiserver 1.33's
// IndexLister (k8s.io/apiserver pkg/server/routes/index.go, the union of
// the delegation chain's ListedPaths): 200, Content-Type application/json,
// the object indented by two spaces with no trailing newline. Paths
// registered unlisted (/debug/pprof, /debug/aggsim, ...) do not appear.
func installIndex(m *Mux) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := json.MarshalIndent(rootPaths{Paths: slices.Compact(m.ListedPaths())}, "", "  ")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b)
	})
	m.UnlistedHandle("/", h)
	m.UnlistedHandle("/index.html", h)
}
