# `make e2e-sample-apiserver`: the real k8s.io/sample-apiserver behind aggsim
# (cmd/aggsim/sample_apiserver_e2e_test.go, issue 8). Paste into the Makefile
# (or `include testdata/sample-apiserver/e2e.mk`); add e2e-sample-apiserver
# to .PHONY. Installs Debian's etcd-server when etcd is missing (sudo when
# not root) and builds the sample once into a cache folder (about 2 minutes
# with a warm module cache, 8-11 minutes cold on 2 cores).
GO                       ?= go
SAMPLE_APISERVER_VERSION ?= v0.33.3
SAMPLE_APISERVER_DIR     ?= $(HOME)/.cache/aggsim/sample-apiserver-$(SAMPLE_APISERVER_VERSION)
SAMPLE_APISERVER_BIN     ?= $(SAMPLE_APISERVER_DIR)/sample-apiserver

e2e-sample-apiserver:
	@command -v etcd >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; \
	  elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; \
	  else echo "etcd is missing: install etcd-server (needs root or sudo)" >&2; exit 1; fi; \
	  $$SUDO apt-get update && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server; }
	@test -x $(SAMPLE_APISERVER_BIN) || { \
	  echo "building k8s.io/sample-apiserver@$(SAMPLE_APISERVER_VERSION) into $(SAMPLE_APISERVER_DIR)"; \
	  mkdir -p $(SAMPLE_APISERVER_DIR) && \
	  GOBIN=$(SAMPLE_APISERVER_DIR) nice $(GO) install k8s.io/sample-apiserver@$(SAMPLE_APISERVER_VERSION); }
	AGGSIM_E2E_SAMPLE_APISERVER=1 SAMPLE_APISERVER_BIN=$(SAMPLE_APISERVER_BIN) ETCD_BIN=$$(command -v etcd) \
	  $(GO) test -count=1 -timeout 20m -run '^TestSampleAPIServer$$' -v ./cmd/aggsim/
