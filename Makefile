# aggsim — see README.md. Every target works on a fresh clone with Go, gcc and kubectl.
GO        ?= go
BIN       ?= bin/aggsim
# DATA_DIR empty: the default data dir ($XDG_STATE_HOME/aggsim or ~/.local/state/aggsim),
# which README's walkthrough uses.
DATA_DIR  ?=
FUZZTIME  ?= 3s
# Every Fuzz* target in the tree runs for FUZZTIME in `make test` (their seed
# corpora also run as plain unit tests in every `go test`).

.PHONY: build run test unit fuzz bench bench-floor bench-rss pgo lint clean e2e-sample-apiserver e2e-etcd e2e-reference capture-reference

# CGO_ENABLED=0: a static binary (Go's own resolver; no libc mapped in),
# 2 MB less idle RSS (issue 21; make bench-rss).
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/aggsim

run: build
	$(BIN) serve --demo $(if $(DATA_DIR),--data-dir $(DATA_DIR))

test: lint unit fuzz

# Tests whose CEL cost-budget cases skip under -race (it slows CEL about
# tenfold: minutes, and requests that time out) run again without it.
NORACE_TESTS = TestRuntimeCostMatchesReference|TestPolicyCELMatchesReference|TestPolicyVariableErrorsMatchReference

unit:
	$(GO) test -race -count=1 -timeout 15m ./...
	$(GO) test -count=1 -run '^($(NORACE_TESTS))$$' ./registry/apis/apiextensions/celrules/ ./aggregator/aggregatortest/

# A run that fails with only "context deadline exceeded" and writes no
# failing input is Go's own -fuzztime race (golang/go#75804, fixed in Go
# 1.27; this module builds with 1.26): that target runs once more. Any
# other failure, or a second one, fails.
fuzz:
	@set -e; log=$$(mktemp); trap 'rm -f $$log' EXIT; \
	for f in $$(grep -rlE --include='*_test.go' '^func Fuzz' . | sort); do \
	  pkg=./$$(dirname $$f | sed 's|^\./||'); \
	  for name in $$(grep -hoE '^func Fuzz[A-Za-z0-9_]+' $$f | cut -c6-); do \
	    for try in 1 2; do \
	      echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
	      if $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg > $$log 2>&1; then cat $$log; break; fi; \
	      cat $$log; \
	      if [ $$try = 1 ] && grep -q 'context deadline exceeded' $$log && ! grep -q 'Failing input written' $$log; then \
	        echo "fuzz: $$name stopped on Go's -fuzztime race (golang/go#75804), no failing input written: running it once more"; \
	        continue; \
	      fi; \
	      exit 1; \
	    done; \
	  done; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 30m ./...

# Issue 21: aggsim against its floors (a static TLS server for /apis, a bare
# httputil.ReverseProxy for the proxied GET) in one run, legs interleaved,
# plus start-up as a process (fresh and existing data dir). About 90 s.
FLOOR_FLAGS ?=
bench-floor:
	$(GO) run ./internal/floorbench $(FLOOR_FLAGS)

# Issue 21: idle RSS of a fresh `aggsim serve` (VmRSS, RssAnon, RssFile in kB,
# median of 5 starts, each measured 5 s after its banner; and the same with
# --release-startup-pages=false, as VmRSS-kept and RssFile-kept). About 70 s.
bench-rss:
	$(GO) test -run '^$$' -bench ServeIdleRSS -benchtime 5x ./cmd/aggsim/

# Issue 21: the CPU profile the compiler optimises aggsim with (profile-guided
# optimisation: go build reads cmd/aggsim/default.pgo). It merges aggsim's
# profiles under the /apis and proxied-GET loads of bench-floor (10 s each)
# with one of aggregatortest's start-ups. Regenerate it after large changes to
# those paths; a stale profile only optimises less. About 2 minutes.
pgo:
	@d=$$(mktemp -d) && \
	  $(GO) run ./internal/floorbench -startup 0 -legs '^(/apis aggsim|GET aggsim proxy)$$' -rounds 1 -d 10s -profile $$d/floor && \
	  $(GO) test -run '^$$' -bench StartToFirstDiscovery -benchtime 300x -o $$d/aggt.test -cpuprofile $$d/start.pprof ./aggregator/aggregatortest/ && \
	  $(GO) tool pprof -proto $$d/floor-apis.pprof $$d/floor-proxy.pprof $$d/start.pprof > cmd/aggsim/default.pgo && \
	  rm -rf $$d && ls -l cmd/aggsim/default.pgo

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The real k8s.io/sample-apiserver behind aggsim (issue 8): installs Debian's
# etcd-server when etcd is missing, builds the sample at a pinned version into a
# cache folder once, and runs cmd/aggsim's TestSampleAPIServer with kubectl.
SAMPLE_APISERVER_VERSION ?= v0.33.3
SAMPLE_APISERVER_DIR     ?= $(HOME)/.cache/aggsim/sample-apiserver-$(SAMPLE_APISERVER_VERSION)
SAMPLE_APISERVER_BIN     ?= $(SAMPLE_APISERVER_DIR)/sample-apiserver

e2e-sample-apiserver:
	@command -v etcd >/dev/null 2>&1 || { if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; \
	  else echo "etcd is missing: install etcd-server (needs root or sudo)" >&2; exit 1; fi; \
	  $$SUDO apt-get update && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server; }
	@test -x $(SAMPLE_APISERVER_BIN) || { mkdir -p $(SAMPLE_APISERVER_DIR) && \
	  GOBIN=$(SAMPLE_APISERVER_DIR) nice $(GO) install k8s.io/sample-apiserver@$(SAMPLE_APISERVER_VERSION); }
	AGGSIM_E2E_SAMPLE_APISERVER=1 SAMPLE_APISERVER_BIN=$(SAMPLE_APISERVER_BIN) ETCD_BIN=$$(command -v etcd) \
	  $(GO) test -count=1 -timeout 20m -run '^TestSampleAPIServer$$' -v ./cmd/aggsim/

# One etcd and three `aggsim serve --storage=etcd` replicas on loopback (issue
# 17, cmd/aggsim/etcd_e2e_test.go): writes spread over the replicas, a watch on
# B seeing A's writes, an APIService registered on A proxied through C, SIGKILL of
# a replica during writes, an etcd restart, compaction → 410 and relist. Installs
# Debian's etcd-server when etcd is missing, as e2e-sample-apiserver does.
e2e-etcd:
	@command -v etcd >/dev/null 2>&1 || { if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; \
	  else echo "etcd is missing: install etcd-server (needs root or sudo)" >&2; exit 1; fi; \
	  $$SUDO apt-get update && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server; }
	AGGSIM_E2E_ETCD=1 ETCD_BIN=$$(command -v etcd) \
	  $(GO) test -count=1 -timeout 5m -run '^TestEtcdReplicasE2E$$' -v ./cmd/aggsim/

# The differential suite (issue 20, internal/refsuite): every scenario played
# against the real kube-apiserver 1.33 (the cached binary, or built once by
# $(REFERENCE_DIR)/build/build.sh) and a fresh aggsim built from this tree,
# on fixed loopback ports; prints same/deliberate/differs per scenario and
# "N/M scenarios equal to the reference or deliberately different" (the
# deliberate ones: testdata/reference/deliberate-differences.txt). capture-reference also writes the reference's
# normalised answers to testdata/reference/, which `make test` compares
# with (cmd/aggsim TestReferenceCaptures).
REFERENCE_DIR      ?= ../shared/reference
REFERENCE_BIN      ?= $(HOME)/.cache/aggsim-reference/bin/kube-apiserver
REF_API_PORT       ?= 16443
REF_ETCD_PORT      ?= 16379
REF_ETCD_PEER_PORT ?= 16380
REF_AGGSIM_PORT    ?= 16444
REF_ENV = GO=$(GO) REFERENCE_DIR=$(REFERENCE_DIR) REFERENCE_BIN=$(REFERENCE_BIN) REF_API_PORT=$(REF_API_PORT) \
  REF_ETCD_PORT=$(REF_ETCD_PORT) REF_ETCD_PEER_PORT=$(REF_ETCD_PEER_PORT) REF_AGGSIM_PORT=$(REF_AGGSIM_PORT)

e2e-reference:
	$(REF_ENV) internal/refsuite/e2e-reference.sh

capture-reference:
	$(REF_ENV) REFSUITE_FLAGS="-capture $(CURDIR)/testdata/reference" internal/refsuite/e2e-reference.sh

clean:
	rm -rf bin

# The web inspector's browser test (issue 18): installs Debian's chromium when
# no Chromium is on PATH, then runs cmd/aggsim's TestInspectorBrowser, which
# then must not skip. `make test` runs it too (and skips it without chromium).
.PHONY: chromium e2e-inspector
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; \
	  else echo "chromium is missing: install Debian's chromium (needs root or sudo)" >&2; exit 1; fi; \
	  $$SUDO apt-get update && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }

e2e-inspector: chromium
	AGGSIM_REQUIRE_BROWSER=1 $(GO) test -count=1 -timeout 5m -run '^TestInspectorBrowser$$' -v ./cmd/aggsim/
