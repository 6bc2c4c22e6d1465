// Command refsuite plays the differential suite (package refsuite) against
// a real kube-apiserver 1.33 started by ../shared/reference/up.sh and an
// aggsim started with `aggsim serve`, prints `same`, `deliberate` (a
// difference README documents, listed in deliberate-differences.txt, with
// aggsim answering as its captured transcript) or `differs` (with a
// unified diff) per scenario and the summary line, and with -capture
// writes the reference's normalised transcripts for `make test`. It
// starts and stops no server: the Makefile's e2e-reference and
// capture-reference targets do.
//
// It owns the command line only: the scenarios, their normalisation and
// comparison live in package refsuite; it must not start servers.
package main
