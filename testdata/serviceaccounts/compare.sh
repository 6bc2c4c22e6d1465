#!/bin/bash
# usage: sa-compare.sh <port> <pki>
P=$1; PKI=$2
C="curl -s --cacert $PKI/ca.crt --cert $PKI/admin.crt --key $PKI/admin.key -H Content-Type:application/json -X POST"
U=https://127.0.0.1:$P/api/v1/namespaces/default/serviceaccounts
norm() { python3 -c "
import json,sys,re
d=json.load(sys.stdin)
s=json.dumps(d,sort_keys=False)
s=re.sub(r'\"(token|creationTimestamp|time|expirationTimestamp|uid)\": \"[^\"]*\"', r'\"\1\": \"X\"', s)
s=re.sub(r'JTI=[0-9a-f-]+', 'JTI=X', s)
print(s)"; }
for body in '{"spec":{}}' '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"audiences":["a"]}}' '{"spec":{"expirationSeconds":599}}' '{"spec":{"expirationSeconds":4294967297}}' '{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"x"}}}' '{"spec":{"boundObjectRef":{"kind":"Secret","apiVersion":"v1","name":"x"}}}' '{"spec":{"boundObjectRef":{"kind":"Node","apiVersion":"v1","name":"x"}}}' '{"spec":{"boundObjectRef":{"kind":"ConfigMap","apiVersion":"v1","name":"x"}}}' '{"spec":{"boundObjectRef":{"kind":"Deployment","apiVersion":"apps/v1","name":"x"}}}' '{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1"}}}' '{"spec":{"audiences":["a","b"],"expirationSeconds":86400000}}' '{"metadata":{"name":"other"},"spec":{}}' '{"metadata":{"namespace":"other"},"spec":{}}' '{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","spec":{}}'; do echo "== $body"; $C -d "$body" "$U/default/token?fieldManager=cmp" | norm; done
echo "== nosuch"; $C -d '{"spec":{"expirationSeconds":599}}' $U/nosuch/token | norm
echo "== GET"; curl -s --cacert $PKI/ca.crt --cert $PKI/admin.crt --key $PKI/admin.key $U/default/token | norm
export KUBECONFIG=$3
kubectl delete sa trc >/dev/null 2>&1; kubectl create sa trc >/dev/null
T=$(kubectl create token trc); TA=$(kubectl create token trc --audience=foo)
R=https://127.0.0.1:$P/apis/authentication.k8s.io/v1/tokenreviews
for b in "{\"spec\":{\"token\":\"$T\"}}" "{\"spec\":{\"token\":\"$T\",\"audiences\":[\"foo\"]}}" "{\"spec\":{\"token\":\"$TA\"}}" "{\"spec\":{\"token\":\"$TA\",\"audiences\":[\"foo\",\"bar\"]}}" "{\"spec\":{\"token\":\"${T}x\"}}" '{"spec":{"token":"a.b.c"}}'; do echo "== review"; $C -d "$b" "$R?fieldManager=cmp" | python3 -c "import json,sys,re; d=json.load(sys.stdin); print(re.sub(r'JTI=[0-9a-f-]+','JTI=X',re.sub(r'\"uid\": \"[^\"]*\"','\"uid\": \"X\"',json.dumps(d['status']))))"; done
kubectl --token="$T" --kubeconfig=/dev/null --server=https://127.0.0.1:$P --certificate-authority=$PKI/ca.crt auth whoami | sed 's/[0-9a-f]\{8\}-[0-9a-f-]*/X/'
kubectl --token="$TA" --kubeconfig=/dev/null --server=https://127.0.0.1:$P --certificate-authority=$PKI/ca.crt auth whoami 2>&1
kubectl create token trc --duration=5m 2>&1; kubectl create token nosuch 2>&1; kubectl create token trc --bound-object-kind=Pod --bound-object-name=x 2>&1; kubectl create token trc --bound-object-kind=Secret --bound-object-name=x 2>&1
kubectl delete sa trc >/dev/null
sleep 11
$C -d "{\"spec\":{\"token\":\"$T\"}}" "$R" | python3 -c "import json,sys; d=json.load(sys.stdin); print(json.dumps(d['status']))"
kubectl create sa trc >/dev/null; sleep 11
$C -d "{\"spec\":{\"token\":\"$T\"}}" "$R" | python3 -c "import json,sys,re; d=json.load(sys.stdin); print(re.sub(r'[0-9a-f]{8}-[0-9a-f-]{27}','X',json.dumps(d['status'])))"
kubectl delete sa trc >/dev/null
for p in /.well-known/openid-configuration /openid/v1/jwks /.well-known/openid-configuration/; do curl -s -D- -o /tmp/oidc.body --cacert $PKI/ca.crt --cert $PKI/admin.crt --key $PKI/admin.key https://127.0.0.1:$P$p | grep -i 'HTTP\|content-type\|cache-control'; done
curl -s -X POST -o /dev/null -w '%{http_code}\n' --cacert $PKI/ca.crt --cert $PKI/admin.crt --key $PKI/admin.key https://127.0.0.1:$P/openid/v1/jwks
