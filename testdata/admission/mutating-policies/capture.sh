#!/usr/bin/env bash
# Captures ref/<step>.code (status, then Warning headers) and ref/<step>.body
# for each line of steps.txt (name|method|path|content-type|body) from a
# freshly started kube-apiserver 1.33.13 with MutatingAdmissionPolicy on:
#   cd ../shared/reference && RUN=/tmp/ref-map API_PORT=7443 ETCD_PORT=7379 ETCD_PEER_PORT=7380 NO_BACKEND=1 \
#     EXTRA_APISERVER_FLAGS="--feature-gates=MutatingAdmissionPolicy=true --runtime-config=admissionregistration.k8s.io/v1alpha1=true" ./up.sh
#   PKI=/tmp/ref-map/pki URL=https://127.0.0.1:7443 ./capture.sh
# It waits 3 s after each write of a policy, binding or CRD (the reference's
# informers); aggsim reads its store on every request and needs no wait.
set -euo pipefail
cd "$(dirname "$0")"
: "${PKI:?}" "${URL:?}"
mkdir -p ref
while IFS='|' read -r name method path ct body; do
  args=(-sk --cert "$PKI/admin.crt" --key "$PKI/admin.key" -X "$method" -A curl/8.5.0 -D /tmp/capture-headers -o "ref/$name.body")
  [ -n "$ct" ] && args+=(-H "Content-Type: $ct" --data-binary "$body")
  curl "${args[@]}" "$URL$path"
  { awk 'NR==1{print $2}' /tmp/capture-headers; grep -i '^warning:' /tmp/capture-headers | sed 's/^[Ww]arning: //' | tr -d '\r' || true; } > "ref/$name.code"
  case "$method $path" in
    "GET "*) ;;
    *admissionregistration*|*customresourcedefinitions*) sleep 3 ;;
  esac
done < steps.txt
