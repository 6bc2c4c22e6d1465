#!/bin/bash
export KUBECONFIG=$1
F=/work/shared/testdata/kube-1.33/crd
kubectl apply -f $F/fixtures/crds/restaurant.example.com_pizzas.yaml >/dev/null 2>&1; kubectl wait --for=condition=Established crd/pizzas.restaurant.example.com >/dev/null; sleep 2
kubectl delete pizzas.restaurant.example.com --all >/dev/null 2>&1
cat <<Y > /tmp/conv-ssa-obj.yaml
apiVersion: restaurant.example.com/v1alpha1
kind: Pizza
metadata:
  name: ssa
  namespace: default
spec:
  size: large
  cheese: blue
  replicas: 3
  toppings:
  - name: ham
    amount: 20
Y
kubectl apply --server-side -f /tmp/conv-ssa-obj.yaml 2>&1
kubectl get pizzas.v1beta1.restaurant.example.com ssa -o json --show-managed-fields | python3 -c 'import json,sys; d=json.load(sys.stdin); m=d["metadata"]; [x.pop("time",None) for x in m["managedFields"]]; print(json.dumps({"apiVersion":d["apiVersion"],"mf":m["managedFields"],"gen":m["generation"],"spec":d["spec"]},sort_keys=True))'
kubectl get pizzas.v1alpha1.restaurant.example.com ssa -o json 2>/dev/null| python3 -c 'import json,sys; d=json.load(sys.stdin); m=d["metadata"]; print(json.dumps({"apiVersion":d["apiVersion"],"spec":d["spec"]},sort_keys=True))'
kubectl patch pizzas.v1alpha1.restaurant.example.com ssa --type=json -p '[{"op":"replace","path":"/spec/replicas","value":4}]' 2>&1
kubectl get pizzas.v1beta1.restaurant.example.com ssa -o json --show-managed-fields | python3 -c 'import json,sys; d=json.load(sys.stdin); m=d["metadata"]; [x.pop("time",None) for x in m["managedFields"]]; print(json.dumps({"mf":m["managedFields"],"gen":m["generation"],"spec":d["spec"]},sort_keys=True))'
kubectl delete pizzas.restaurant.example.com ssa 2>&1
