// Package codepages drops from the page tables of `aggsim serve` the pages
// of its own executable that start-up faulted in (issue 21).
//
// Why: Go runs the initialisation of every linked package (about 240 in
// aggsim: the etcd client, gRPC, protobuf registrations, cel-go,
// prometheus) before main, and each package's init function, type
// descriptors and function metadata sit in their own part of the binary.
// The kernel maps the 64 KiB around every page a process faults in
// (fault-around), so start-up leaves about 23 MB of the binary mapped, of
// which an idle server uses about a third again. Those pages are clean
// copies of the file: dropping them from the page tables
// (madvise(MADV_DONTNEED)) leaves them in the page cache, shared and
// reclaimable as before, and the next use of one maps it again with a minor
// fault. What the process keeps mapped afterwards is what it uses.
//
// It owns no state. It reads /proc/self/exe, /proc/self/maps and
// /proc/self/pagemap and touches only private read-only mappings of the
// executable's file, and in them only pages that are the file's own: a page
// written by a debugger or an uprobe (an anonymous copy) is left alone. It
// must not decide for code it does not own: `aggsim serve` calls it once, a
// second after ready, unless --release-startup-pages=false (a benchmark
// that runs serve inside its test binary releases that binary's pages,
// which only costs their next use a minor fault); aggregatortest, whose
// executable is the user's test, does not.
package codepages
