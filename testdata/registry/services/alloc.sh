# usage: alloc.sh URL PKI  — Service allocation scenario
U=$1; P=$2; C="curl -sS --cacert $P/ca.crt --cert $P/admin.crt --key $P/admin.key"
S=$U/api/v1/namespaces/default/services
svc() { echo "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"$1\"},\"spec\":{$2\"ports\":[{\"port\":80}]}}"; }
echo "== create a 10.96.0.10"; $C -X POST -H 'Content-Type: application/json' $S -d "$(svc a '"clusterIP":"10.96.0.10",')" -o /dev/null -w '%{http_code}\n'
echo "== create b 10.96.0.10"; $C -X POST -H 'Content-Type: application/json' $S -d "$(svc b '"clusterIP":"10.96.0.10",')"; echo
echo "== create b clusterIPs 10.96.0.10"; $C -X POST -H 'Content-Type: application/json' $S -d "$(svc b '"clusterIPs":["10.96.0.10"],')"; echo
echo "== create b 10.96.0.1"; $C -X POST -H 'Content-Type: application/json' $S -d "$(svc b '"clusterIP":"10.96.0.1",')"; echo
echo "== dryRun b 10.96.0.10"; $C -X POST -H 'Content-Type: application/json' "$S?dryRun=All" -d "$(svc b '"clusterIP":"10.96.0.10",')" -o /dev/null -w '%{http_code}\n'
echo "== delete a"; $C -X DELETE $S/a -o /dev/null -w '%{http_code}\n'
echo "== create b 10.96.0.10 after delete"; $C -X POST -H 'Content-Type: application/json' $S -d "$(svc b '"clusterIP":"10.96.0.10",')" -o /dev/null -w '%{http_code}\n'
echo "== b to ExternalName"; $C -X PUT -H 'Content-Type: application/json' $S/b -d '{"apiVersion":"v1","kind":"Service","metadata":{"name":"b"},"spec":{"type":"ExternalName","externalName":"x.example.com","ports":[{"port":80}]}}' -o /dev/null -w '%{http_code}\n'
echo "== create c 10.96.0.10 after ExternalName"; $C -X POST -H 'Content-Type: application/json' $S -d "$(svc c '"clusterIP":"10.96.0.10",')" -o /dev/null -w '%{http_code}\n'
echo "== warn 010.96.5.8"; $C -D - -X POST -H 'Content-Type: application/json' $S -d "$(svc w '"clusterIP":"010.96.5.8",')" | grep -i -E '^(HTTP|warning)|clusterIP'
echo "== warn dryRun 010.96.5.9"; $C -D - -X POST -H 'Content-Type: application/json' "$S?dryRun=All" -d "$(svc w2 '"clusterIP":"010.96.5.9",')" | grep -i -E '^(HTTP|warning)|clusterIP'
echo "== warn clusterIPs"; $C -D - -X POST -H 'Content-Type: application/json' "$S" -d "$(svc w3 '"clusterIPs":["010.096.5.10"],')" | grep -i -E '^(HTTP|warning)|clusterIP'
echo "== auto allocation count"; for i in 1 2 3; do $C -X POST -H 'Content-Type: application/json' $S -d "$(svc auto$i '')" -o /dev/null -w '%{http_code} '; done; echo
for n in a b c w w3 auto1 auto2 auto3; do $C -X DELETE $S/$n -o /dev/null; done
