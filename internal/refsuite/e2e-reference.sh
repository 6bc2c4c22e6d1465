#!/usr/bin/env bash
# Plays the differential suite (internal/refsuite) against a real
# kube-apiserver 1.33 and a fresh aggsim built from this tree; run by
# `make e2e-reference` and `make capture-reference` (which passes
# REFSUITE_FLAGS="-capture testdata/reference").
#   REFERENCE_DIR     ../shared/reference (its up.sh/down.sh/build/build.sh)
#   REFERENCE_BIN     the cached kube-apiserver (~/.cache/aggsim-reference/bin/kube-apiserver)
#   REF_API_PORT REF_ETCD_PORT REF_ETCD_PEER_PORT REF_AGGSIM_PORT   loopback ports (16443 16379 16380 16444)
#   REF_RUN           runtime folder, wiped at start (/tmp/aggsim-e2e-reference)
# Both servers are stopped on exit: the reference by down.sh, aggsim by its PID.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
GO=${GO:-go}
REFERENCE_DIR=$(cd "$ROOT" && cd "${REFERENCE_DIR:-../shared/reference}" 2>/dev/null && pwd) || {
  echo "no reference tooling at ${REFERENCE_DIR:-../shared/reference} (relative to $ROOT): set REFERENCE_DIR" >&2; exit 1; }
REFERENCE_BIN=${REFERENCE_BIN:-$HOME/.cache/aggsim-reference/bin/kube-apiserver}
REF_API_PORT=${REF_API_PORT:-16443}
REF_ETCD_PORT=${REF_ETCD_PORT:-16379}
REF_ETCD_PEER_PORT=${REF_ETCD_PEER_PORT:-16380}
REF_AGGSIM_PORT=${REF_AGGSIM_PORT:-16444}
REF_RUN=${REF_RUN:-/tmp/aggsim-e2e-reference}

if ! command -v etcd >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo;
  else echo "etcd is missing: install etcd-server (needs root or sudo)" >&2; exit 1; fi
  $SUDO apt-get update && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server
fi
if [ ! -x "$REFERENCE_BIN" ]; then
  echo "building kube-apiserver 1.33 with $REFERENCE_DIR/build/build.sh (5-8 min, once)"
  REF_BIN=$(dirname "$REFERENCE_BIN") "$REFERENCE_DIR/build/build.sh"
fi

rm -rf "$REF_RUN"
mkdir -p "$REF_RUN/bin"
(cd "$ROOT" && nice "$GO" build -o "$REF_RUN/bin/aggsim" ./cmd/aggsim && nice "$GO" build -o "$REF_RUN/bin/refsuite" ./internal/refsuite/cmd/refsuite)

AGG_PID=
cleanup() {
  if [ -n "$AGG_PID" ] && kill -0 "$AGG_PID" 2>/dev/null; then kill "$AGG_PID"; wait "$AGG_PID" 2>/dev/null || true; fi
  RUN="$REF_RUN/ref" "$REFERENCE_DIR/down.sh" >/dev/null || true
}
trap cleanup EXIT

RUN="$REF_RUN/ref" API_PORT=$REF_API_PORT ETCD_PORT=$REF_ETCD_PORT ETCD_PEER_PORT=$REF_ETCD_PEER_PORT \
  NO_BACKEND=1 APISERVER="$REFERENCE_BIN" "$REFERENCE_DIR/up.sh"

# --controllers=-namespace: the reference runs without kube-controller-manager,
# so a deleted namespace stays Terminating there (scenario ns-delete); it runs
# --authorization-mode=RBAC (shared/reference/up.sh).
"$REF_RUN/bin/aggsim" serve --data-dir "$REF_RUN/aggsim-data" --secure-port "$REF_AGGSIM_PORT" \
  --controllers=-namespace --authorization-mode=RBAC > "$REF_RUN/aggsim.log" 2>&1 &
AGG_PID=$!
PKI=$REF_RUN/aggsim-data/pki
for _ in $(seq 1 300); do
  if [ -f "$PKI/admin.key" ] && curl -fsS --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
      "https://127.0.0.1:$REF_AGGSIM_PORT/readyz" >/dev/null 2>&1; then break; fi
  kill -0 "$AGG_PID" 2>/dev/null || { echo "aggsim exited, see $REF_RUN/aggsim.log"; cat "$REF_RUN/aggsim.log"; exit 1; }
  sleep 0.1
done

cd "$ROOT"
"$REF_RUN/bin/refsuite" -reference-run "$REF_RUN/ref" -reference-url "https://127.0.0.1:$REF_API_PORT" \
  -aggsim-data-dir "$REF_RUN/aggsim-data" -aggsim-url "https://127.0.0.1:$REF_AGGSIM_PORT" \
  -work "$REF_RUN/work" ${REFSUITE_FLAGS:-}
