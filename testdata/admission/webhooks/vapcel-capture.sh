#!/bin/bash
# Captures ref/<step>.{code,body,wh.jsonl} of vapcel-steps.txt (steps.txt's
# format: name|method|path|content-type|body) from a real kube-apiserver
# 1.33.13 started with ../shared/reference/up.sh:
#   URL=https://127.0.0.1:7543 PKI=/tmp/ref-vapcel/pki ./vapcel-capture.sh [steps-file]
# It waits 3 s after each policy, binding or namespace write for the
# server's informers. No webhook is involved: the .wh.jsonl files are empty.
set -u
cd "$(dirname "$0")"
steps=${1:-vapcel-steps.txt}
while IFS='|' read -r name method path ct body; do
  args=(-sk --cert "$PKI/admin.crt" --key "$PKI/admin.key" -A curl/8.5.0 -X "$method" -D /tmp/vapcel-hdr -o "ref/$name.body")
  [ -n "$ct" ] && args+=(-H "Content-Type: $ct")
  [ -n "$body" ] && args+=(--data-binary "$body")
  curl "${args[@]}" "$URL$path"
  { sed -n 's/\r$//; 1s/^HTTP\/[0-9.]* \([0-9]*\).*/\1/p' /tmp/vapcel-hdr
    sed -n 's/\r$//; s/^[Ww]arning: //p' /tmp/vapcel-hdr; } > "ref/$name.code"
  : > "ref/$name.wh.jsonl"
  case "$path" in *validatingadmissionpolic*|/api/v1/namespaces|/api/v1/namespaces/*[a-z]) sleep 3;; esac
  echo "$name $(head -1 "ref/$name.code")"
done < "$steps"
