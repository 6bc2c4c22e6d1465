#!/bin/bash
# Prints kube-apiserver's answer to a server-side dry-run create of a
# ValidatingAdmissionPolicy (matchConstraints: configmaps CREATE) with one
# validation per expression below: the expression and a colon, then
# kubectl's answer indented by two spaces. policy-compile.txt is its output
# against kube-apiserver 1.33.13 (../shared/reference/up.sh):
#   KUBECONFIG=/tmp/ref-vapcel/kubeconfig ./probe-policies.sh > policy-compile.txt
probe() {
cat <<Y | kubectl create --dry-run=server -f - 2>&1 | sed 's/^/  /'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: probe}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: $(printf '%s' "$1" | python3 -c 'import json,sys;print(json.dumps(sys.stdin.read()))')
Y
}
exprs=()
for f in name generateName namespace uid UID resourceVersion generation creationTimestamp deletionTimestamp deletionGracePeriodSeconds labels annotations finalizers managedFields ownerReferences selfLink; do
  exprs+=("has(namespaceObject.metadata.$f)"); done
for f in spec.finalizers status.phase status.conditions kind apiVersion; do exprs+=("has(namespaceObject.$f)"); done
exprs+=("quantity('1Gi').isGreaterThan(quantity('1Mi'))" "isSemver('1.2.3')" "semver('1.2.3').major() == 1" "ip('1.2.3.4').family() == 4"
  "cidr('10.0.0.0/8').containsIP('10.1.1.1')" "format.dns1123Label().validate('abc').hasValue() == false" "url('https://x').getHost() == 'x'"
  "[1,2].isSorted()" "'abc'.find('b') == 'b'" "authorizer.group('').resource('pods').namespace('x').check('get').allowed()"
  "authorizer.requestResource.check('get').reason() == ''" "authorizer.serviceAccount('ns','sa').group('').resource('pods').check('get').errored()"
  "authorizer.group('').resource('pods').fieldSelector('a=b').labelSelector('x=y').check('list').allowed()" "quantity('1Gi') == 5" "isQuantity(1)"
  "authorizer.path('/healthz').check('get').allowed()" "authorizer.requestResource.subresource('x').name('y').check('get').error() == ''"
  "sets.contains([1],[1])" "[1].all(i, v, true)" "'a'.reverse() == 'a'" "optional.of(1).hasValue()" "request.userInfo.username == 'x'"
  "request.foo == 1" "object.x + 1" "variables.foo" "params.x" "bogus(1)"
  "request.uid == ''" "request.dryRun" "request.options.x == 1" "request.userInfo.extra['a'][0] == 'b'" "request.kind.kind == 'x'"
  "request.requestKind.group == ''" "request.resource.resource == ''" "request.requestSubResource == ''" "request.operation == 'CREATE'"
  "request.object == null" "request.name + 1 == 2" "namespaceObject.metadata.creationTimestamp > timestamp('2020-01-01T00:00:00Z')"
  "namespaceObject.status.conditions[0].lastTransitionTime == 1" "namespaceObject.metadata.generation == 'x'"
  "namespaceObject.metadata.deletionGracePeriodSeconds > 0" "namespaceObject.spec.finalizers[0] == 1" "authorizer.check('get')"
  "authorizer.requestResource == 1" "authorizer.group('x')" "request.userInfo.groups.exists(g, g == 'x')"
  "object.x" "request.options" "[object.x][0]" "object.x == object.y ? object.x : false"
  "object.data.all(k, object.data.all(k2, object.data.all(k3, k + k2 + k3 != '')))"
  "object.metadata.name.split('-').all(x, object.metadata.name.split('-').all(y, object.metadata.name.split('-').all(z, x+y+z != '')))")
for e in "${exprs[@]}"; do echo "$e:"; probe "$e"; done
