#!/bin/bash
# usage: conv-sv.sh PORT PKI
P=$2; A="curl -sS --cacert $P/ca.crt --cert $P/admin.crt --key $P/admin.key"; U=https://127.0.0.1:$1
CRD='{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"things.sv.example.com"},"spec":{"group":"sv.example.com","scope":"Cluster","names":{"plural":"things","kind":"Thing"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}'
$A -X POST -H 'Content-Type: application/json' -d "$CRD" $U/apis/apiextensions.k8s.io/v1/customresourcedefinitions -o /dev/null
sleep 2
echo "== add v2 as storage"
$A -X PATCH -H 'Content-Type: application/json-patch+json' -d '[{"op":"replace","path":"/spec/versions","value":[{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}},{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}]' $U/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.sv.example.com | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["status"].get("storedVersions"))'
sleep 1
$A $U/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.sv.example.com | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["status"].get("storedVersions"))'
echo "== drop v1 from spec.versions"
$A -X PATCH -H 'Content-Type: application/json-patch+json' -d '[{"op":"replace","path":"/spec/versions","value":[{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}]' $U/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.sv.example.com; echo
echo "== status: storedVersions [v2] only"
$A -X PATCH -H 'Content-Type: application/merge-patch+json' -d '{"status":{"storedVersions":["v2"]}}' $U/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.sv.example.com/status | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("status",{}).get("storedVersions"), d.get("message"))'
echo "== status: storedVersions [] "
$A -X PATCH -H 'Content-Type: application/merge-patch+json' -d '{"status":{"storedVersions":[]}}' $U/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.sv.example.com/status | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("status",{}).get("storedVersions") if d.get("kind")!="Status" else d.get("message"))'
echo "== now drop v1"
$A -X PATCH -H 'Content-Type: application/json-patch+json' -d '[{"op":"replace","path":"/spec/versions","value":[{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}]' $U/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.sv.example.com | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("status",{}).get("storedVersions") if d.get("kind")!="Status" else d.get("message"))'
$A -X DELETE $U/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.sv.example.com -o /dev/null
