U=$1; P=$2; C="curl -sS --cacert $P/ca.crt --cert $P/admin.crt --key $P/admin.key"
S=$U/api/v1/namespaces/default/services
svc() { echo "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"$1\"},\"spec\":{$2\"ports\":[{\"port\":80}]}}"; }
m() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("code"), d.get("message") or d["spec"].get("clusterIPs"))'; }
echo "== dryRun 10.96.0.1"; $C -X POST -H 'Content-Type: application/json' "$S?dryRun=All" -d "$(svc b '"clusterIP":"10.96.0.1",')" | m
echo "== create w 010.96.5.8"; $C -X POST -H 'Content-Type: application/json' $S -d "$(svc w '"clusterIP":"010.96.5.8",')" | m
echo "== create y 10.96.5.8"; $C -X POST -H 'Content-Type: application/json' $S -d "$(svc y '"clusterIP":"10.96.5.8",')" | m
echo "== create y2 010.96.5.8"; $C -X POST -H 'Content-Type: application/json' $S -d "$(svc y2 '"clusterIP":"010.96.5.8",')" | m
echo "== create en ExternalName"; $C -X POST -H 'Content-Type: application/json' $S -d '{"apiVersion":"v1","kind":"Service","metadata":{"name":"en"},"spec":{"type":"ExternalName","externalName":"x.example.com"}}' | m
echo "== en to ClusterIP 010.96.5.8"; $C -X PUT -H 'Content-Type: application/json' $S/en -d '{"apiVersion":"v1","kind":"Service","metadata":{"name":"en"},"spec":{"type":"ClusterIP","clusterIP":"010.96.5.8","ports":[{"port":80}]}}' | m
echo "== en to ClusterIP 10.96.7.7 warn?"; $C -D /dev/stderr -X PUT -H 'Content-Type: application/json' $S/en -d '{"apiVersion":"v1","kind":"Service","metadata":{"name":"en"},"spec":{"type":"ClusterIP","clusterIP":"010.96.7.7","ports":[{"port":80}]}}' 2>&1 | grep -i -E "^warning|^HTTP"
echo "== update en same (warn again?)"; $C -D /dev/stderr -X PUT -H 'Content-Type: application/json' $S/en -d '{"apiVersion":"v1","kind":"Service","metadata":{"name":"en","labels":{"x":"y"}},"spec":{"type":"ClusterIP","clusterIP":"010.96.7.7","ports":[{"port":80}]}}' 2>&1 | grep -i -E "^warning|^HTTP"
echo "== patch w label (warn?)"; $C -D /dev/stderr -X PATCH -H 'Content-Type: application/merge-patch+json' $S/w -d '{"metadata":{"labels":{"x":"y"}}}' 2>&1 | grep -i -E "^warning|^HTTP"
echo "== get w (warn?)"; $C -D /dev/stderr $S/w 2>&1 | grep -i -E "^warning|^HTTP"
echo "== externalIPs warn"; $C -D /dev/stderr -X POST -H 'Content-Type: application/json' $S -d "$(svc ex '"externalIPs":["010.1.2.3"],"loadBalancerSourceRanges":["010.0.0.0/8"],')" 2>&1 | grep -i -E "^warning|^HTTP|message"
echo "== ipv4 invalid 10.96.5.300"; $C -X POST -H 'Content-Type: application/json' $S -d "$(svc inv '"clusterIP":"10.96.5.300",')" | m
for n in w y y2 en ex inv; do $C -X DELETE $S/$n -o /dev/null; done
