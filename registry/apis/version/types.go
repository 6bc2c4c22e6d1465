package version

// Info is the version of the API server and the build it runs.
// ---
// Info mirrors k8s.io/apimachinery/pkg/version.Info as kube-apiserver 1.33
// serves it at /version. Upstream documents only the version numbers; the
// build fields have no description in its OpenAPI documents, and neither
// do aggsim's (their Go documentation is after the "---" lines).
type Info struct {
	// The major version of the server, "1".
	Major string `json:"major"`
	// The minor version of the server, "33".
	Minor string `json:"minor"`
	// The major version of the API the server emulates.
	EmulationMajor string `json:"emulationMajor,omitempty"`
	// The minor version of the API the server emulates.
	EmulationMinor string `json:"emulationMinor,omitempty"`
	// The major version of the oldest server the cluster's data stays
	// compatible with.
	MinCompatibilityMajor string `json:"minCompatibilityMajor,omitempty"`
	// The minor version of the oldest server the cluster's data stays
	// compatible with.
	MinCompatibilityMinor string `json:"minCompatibilityMinor,omitempty"`
	// ---
	// GitVersion is the server's full version, "v1.33.13".
	GitVersion string `json:"gitVersion"`
	// ---
	// GitCommit is the commit the server was built from.
	GitCommit string `json:"gitCommit"`
	// ---
	// GitTreeState is "clean" or "dirty".
	GitTreeState string `json:"gitTreeState"`
	// ---
	// BuildDate is when the server was built (RFC 3339).
	BuildDate string `json:"buildDate"`
	// ---
	// GoVersion is the Go release the server was built with.
	GoVersion string `json:"goVersion"`
	// ---
	// Compiler is the Go compiler ("gc").
	Compiler string `json:"compiler"`
	// ---
	// Platform is "<GOOS>/<GOARCH>".
	Platform string `json:"platform"`
}
