// Package latencybench holds the measuring loop shared by the proxy
// benchmarks (proxy.BenchmarkProxy and aggregatortest's
// BenchmarkAggregatorProxy): one request function called b.N times by one
// or many concurrent clients, with latency percentiles reported beside
// ns/op and allocs/op. It imports no aggsim package, so any test may use
// it without an import cycle.
package latencybench
