#!/bin/bash
# usage: cap.sh ref|agg  -- the reference capture of TestCustomResourceManagedFieldsAsUpstream
S=$1; NS=${2:-mf1}; K="kubectl --kubeconfig /tmp/$S-revref/kubeconfig"
SRV=$($K config view --minify -o jsonpath='{.clusters[0].cluster.server}')
P=/tmp/$S-revref/pki; [ $S = agg ] && P=/tmp/agg-revref/pki
CERT=$(ls $P/admin*.crt | head -1); KEY=$(ls $P/admin*.key | head -1)
c() { curl -sk --cert $CERT --key $KEY -A 'kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0' "$@"; echo; }
$K create ns $NS >/dev/null 2>&1
c -X POST -H 'Content-Type: application/json' $SRV/api/v1/namespaces/$NS/configmaps -d '{"metadata":{"name":"owner"}}' > /dev/null
UID_=$($K get cm owner -n $NS -o jsonpath='{.metadata.uid}')
B=$SRV/apis/restaurant.example.com/v1beta1/namespaces/$NS/pizzas
c -X POST -H 'Content-Type: application/json' $B -d '{"apiVersion":"restaurant.example.com/v1beta1","kind":"Pizza","metadata":{"name":"held","finalizers":["restaurant.example.com/paid"],"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"'$UID_'"}]},"spec":{"replicas":1,"toppings":[{"name":"ham"}]}}' > /dev/null
c -X PATCH -H 'Content-Type: application/merge-patch+json' "$B/held?fieldManager=patcher" -d '{"metadata":{"finalizers":["restaurant.example.com/paid","x.example.com/y"]},"spec":{"replicas":2}}' >/dev/null
c -X PATCH -H 'Content-Type: application/merge-patch+json' "$B/held/scale?fieldManager=scaler" -d '{"spec":{"replicas":3}}' >/dev/null
c $B/held | sed "s/$UID_/OWNER-UID/g" | python3 -c 'import json,sys; o=json.load(sys.stdin); print(json.dumps(o["metadata"]["managedFields"], indent=2))'
