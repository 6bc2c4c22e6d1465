#!/bin/bash
# usage: probe.sh <kubeconfig-dir-with-pki> <url>
D=$1; U=$2
C="curl -sS --cacert $D/pki/ca.crt --cert $D/pki/admin.crt --key $D/pki/admin.key"
ns=gcp
$C -X POST -H 'Content-Type: application/json' $U/api/v1/namespaces -d '{"metadata":{"name":"'$ns'"}}' >/dev/null
mk() { $C -X POST -H 'Content-Type: application/json' $U/api/v1/namespaces/$ns/configmaps -d '{"metadata":{"name":"'$1'"'"$2"'}}' >/dev/null; }
del() { echo "### DELETE $1 $2 body=$3"; if [ -n "$3" ]; then $C -w '\n[%{http_code}]\n' -X DELETE -H 'Content-Type: application/json' "$U/api/v1/namespaces/$ns/configmaps/$1?$2" -d "$3"; else $C -w '\n[%{http_code}]\n' -X DELETE "$U/api/v1/namespaces/$ns/configmaps/$1?$2"; fi; }
mk a; del a 'propagationPolicy=Orphan'
mk b; del b 'propagationPolicy=Foreground'
mk c; del c 'propagationPolicy=Background'
mk d; del d 'orphanDependents=true'
mk e; del e 'orphanDependents=false'
mk f; del f 'orphanDependents=true&propagationPolicy=Orphan'
mk g; del g '' '{"orphanDependents":true,"propagationPolicy":"Foreground"}'
mk h; del h 'propagationPolicy=Bogus'
mk i ',"finalizers":["orphan"]'; del i ''
mk j ',"finalizers":["foregroundDeletion","x.io/y"]'; del j ''
mk k ',"finalizers":["x.io/y"]'; del k 'propagationPolicy=Orphan'; del k 'propagationPolicy=Foreground'; del k ''; del k 'propagationPolicy=Background'
mk l ',"finalizers":["orphan"]'; del l 'propagationPolicy=Background'
mk m; del m 'propagationPolicy=Orphan&dryRun=All'
echo "### events"
$C -X POST -H 'Content-Type: application/json' $U/api/v1/namespaces/$ns/events -d '{"metadata":{"name":"ev"},"involvedObject":{"namespace":"'$ns'"}, "reason":"r"}' -o /dev/null
$C -w '\n[%{http_code}]\n' -X DELETE "$U/api/v1/namespaces/$ns/events/ev?propagationPolicy=Orphan"
echo "### deletecollection"
mk n1; mk n2 ',"labels":{"x":"y"}'
$C -w '\n[%{http_code}]\n' -X DELETE "$U/api/v1/namespaces/$ns/configmaps?propagationPolicy=Foreground&labelSelector=x"
echo "### ns"
$C -X POST -H 'Content-Type: application/json' $U/api/v1/namespaces -d '{"metadata":{"name":"gcp2"}}' >/dev/null
$C -w '\n[%{http_code}]\n' -X DELETE "$U/api/v1/namespaces/gcp2?propagationPolicy=Orphan"
$C -w '\n[%{http_code}]\n' -X DELETE "$U/api/v1/namespaces/gcp2?propagationPolicy=Foreground"
$C -X POST -H 'Content-Type: application/json' $U/api/v1/namespaces -d '{"metadata":{"name":"gcp3"}}' >/dev/null
$C -w '\n[%{http_code}]\n' -X DELETE "$U/api/v1/namespaces/gcp3?orphanDependents=false"
$C -X POST -H 'Content-Type: application/json' $U/api/v1/namespaces -d '{"metadata":{"name":"gcp4"}}' >/dev/null
$C -w '\n[%{http_code}]\n' -X DELETE "$U/api/v1/namespaces/gcp4?propagationPolicy=Orphan&orphanDependents=true"
echo "### apiservice"
$C -X POST -H 'Content-Type: application/json' $U/apis/apiregistration.k8s.io/v1/apiservices -d '{"metadata":{"name":"v1.x.example.com"},"spec":{"group":"x.example.com","version":"v1","groupPriorityMinimum":1,"versionPriority":1,"service":{"namespace":"gcp","name":"s"}}}' -o /dev/null
$C -w '\n[%{http_code}]\n' -X DELETE "$U/apis/apiregistration.k8s.io/v1/apiservices/v1.x.example.com?propagationPolicy=Foreground"
