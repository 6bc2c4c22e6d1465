U=$1; P=$2; C="curl -sS --cacert $P/ca.crt --cert $P/admin.crt --key $P/admin.key"
S=$U/api/v1/namespaces/default/services
try() { echo "== $1"; $C -D /dev/stderr -o /dev/null -X POST -H 'Content-Type: application/json' "$S?dryRun=All" -d "$2" 2>&1 | grep -i -E "^warning|^HTTP"; }
try "lb all" '{"apiVersion":"v1","kind":"Service","metadata":{"name":"lb","annotations":{"service.kubernetes.io/topology-aware-hints":"auto"}},"spec":{"type":"LoadBalancer","clusterIP":"10.96.09.9","externalIPs":["010.1.2.3","::ffff:1.2.3.4","2001:DB8::1"],"loadBalancerIP":"01.2.3.4","loadBalancerSourceRanges":["010.0.0.0/8","10.0.0.1/8","::ffff:1.2.3.0/120","2001:DB8::/32"],"externalName":"a.example.com","ports":[{"port":80}]}}'
try "externalname with externalIPs" '{"apiVersion":"v1","kind":"Service","metadata":{"name":"en"},"spec":{"type":"ExternalName","externalName":"a.example.com","externalIPs":["1.2.3.4"]}}'
try "clusterIP mapped" '{"apiVersion":"v1","kind":"Service","metadata":{"name":"m"},"spec":{"clusterIP":"::ffff:10.96.9.10","ports":[{"port":80}]}}'
