// Package refsuite is aggsim's differential suite (issue 20): a catalogue
// of client scenarios (kubectl 1.33 invocations and raw HTTPS requests),
// a runner that plays them against one server and writes a transcript of
// every answer, a normaliser that removes only what must differ between
// two servers (timestamps, uids, resourceVersions, ports, certificate
// bytes, the admin's name, OpenAPI and Table column description texts,
// and the built-in groups of kube-apiserver that aggsim does not serve),
// and the comparison of two transcripts as a unified diff.
//
// `make e2e-reference` plays every scenario against a real kube-apiserver
// 1.33 and a fresh aggsim and compares them; `make capture-reference`
// writes the reference's normalised transcripts to testdata/reference/;
// cmd/aggsim's TestReferenceCaptures compares a fresh aggsim with those
// captures in `make test`. Scenarios on which aggsim differs on purpose
// are listed in testdata/reference/deliberate-differences.txt, each naming
// its README paragraph, and compared with aggsim's own captured transcript
// instead (deliberate.go); the summary line counts them as "deliberate".
//
// The package talks to servers only over HTTPS and through the kubectl
// binary: it must not import aggsim's server packages (aggregator,
// registry, discovery, proxy, certs), so it measures aggsim as any client
// sees it.
package refsuite
