// Command aggsim is a standalone Kubernetes API aggregation layer
// (kube-aggregator) emulating kube-apiserver 1.33: `serve`, `certs`,
// `demo-backend`, `explain` and `version`.
//
// This package owns flags, subcommands and the wiring of the packages
// below it (storage, certificates, the aggregator, the demo backend). It
// must not hold logic that tests cannot reach without a process: what a
// subcommand does lives in the packages it calls.
package main
