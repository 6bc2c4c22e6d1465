// Command floorbench measures aggsim against the physical floor of what it
// does (issue 21): in one run, with one load generator, legs interleaved,
// it serves
//
//   - GET /apis (the legacy APIGroupList, Accept: application/json) from a
//     static TLS server answering aggsim's own /apis bytes, and from aggsim;
//   - GET of one 246-byte object of an aggregated API through a bare
//     net/http/httputil.ReverseProxy with the same TLS legs as aggsim
//     (client certificates verified against aggsim's client CA, HTTP/2 on
//     both legs, the front-proxy client certificate presented and the
//     backend verified against its CA for <service>.<namespace>.svc), and
//     through aggsim (authentication, authorization, routing, Service
//     resolution, identity headers, metrics);
//   - the same GET straight to the backend, for reference;
//   - two diagnostic legs that are no floors: the bare proxy sending the
//     request headers aggsim (and kube-apiserver) sends, and the static
//     server answering /apis with the response headers aggsim adds (a new
//     Audit-Id, Cache-Control), to show what those headers cost each
//     process;
//   - diagnostic legs of the bare proxy with aggsim's headers: one
//     constant Audit-Id to both sides (const id), to the backend only
//     (const be), to the client only (const cl); lower-case field names
//     (lower); no HPACK indexing towards the backend (noindex): what each
//     part of the headers costs the three processes;
//
// and prints each leg's requests per second (median of the rounds), the
// CPU time per request of the answering process, the backend and the load
// generator (from /proc), the ratios aggsim / floor of the requests per
// second (for the proxied GET also of the proxy's own CPU per request, and
// aggsim's rps over the bare proxy sending aggsim's headers: the floor
// doing what kube-apiserver sends), the ratios floor / aggsim of the total CPU per request (what the
// rps ratios tend to on an idle machine, and steadier on a shared one),
// and aggsim's peak RSS after the load legs. With -startup N it also measures aggsim's start-up
// as a process: exec to the first 200 from /readyz, N times with a fresh data
// dir (PKI generated) and N times with an existing one, interleaved, and
// prints the medians. With -compare OLD it also runs OLD's /apis and
// proxied-GET legs in the same rounds and prints the new / old ratios and
// the per-round differences of aggsim's CPU per request: on a shared
// machine, two binaries measured in separate runs differ by more than a
// change of a few µs does, and the same round's legs ran seconds apart.
//
// Every server is a separate process (aggsim is the binary built from this
// tree; the floors and the backend are this program run with -role), so no
// leg shares a heap or a scheduler with the load generator. The load
// generator is one HTTP/2 connection per leg multiplexing -c workers, like
// ../shared/reference/loadgen with -proto h2.
//
//	go run ./internal/floorbench                 # make bench-floor
//	go run ./internal/floorbench -startup 11     # start-up only
//	go run ./internal/floorbench -startup 10 -baseline /tmp/old -aggsim /tmp/new
//	                                             # start-up of two binaries, interleaved
//	go run ./internal/floorbench -startup 0 -aggsim /tmp/new -compare /tmp/old -legs '^/apis' -rounds 9
//	                                             # GET /apis of two binaries and the
//	                                             # static server, interleaved
//	go run ./internal/floorbench -startup 0 -aggsim /tmp/new -compare /tmp/old -legs '^GET (aggsim|bare)'
//	                                             # load legs of two binaries, interleaved
//
// -legs runs only the legs whose name matches; -compare adds the /apis and
// proxied legs of a second aggsim ("... -compare"); with -profile the
// diagnostic proxies also write CPU profiles of their whole run
// (<profile>-bare-<mode>.pprof).
//
// It listens on and connects to 127.0.0.1 only and stops only the
// processes it started. It owns nothing aggsim serves; it must not import
// aggsim's server packages (only certs, to read and issue certificates), so
// that it measures the binary as users run it.
package main
