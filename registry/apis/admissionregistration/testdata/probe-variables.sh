#!/bin/bash
# Like probe-policies.sh, for policies with variables: each entry's header
# is the variables JSON, a tab, the validations JSON and a colon.
# policy-variables.txt is its output against kube-apiserver 1.33.13:
#   KUBECONFIG=/tmp/ref-vapcel/kubeconfig ./probe-variables.sh > policy-variables.txt
probe() { # variables-json validations-json
printf '%s\t%s:\n' "$1" "$2"
cat <<Y | kubectl create --dry-run=server -f - 2>&1 | sed 's/^/  /'
{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"probe"},"spec":{
"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
"variables":$1,"validations":$2}}
Y
}
q() { printf '%s' "$1" | python3 -c 'import json,sys;print(json.dumps(sys.stdin.read()))'; }
v='[{"name":"a","expression":"1"},{"name":"s","expression":"\"x\""},{"name":"o","expression":"object.metadata"},{"name":"l","expression":"[1,2]"},{"name":"b","expression":"variables.a + 1"}]'
for e in "variables.a == 'x'" "variables.a == 1" "variables.s + 1 == 2" "variables.zz == 1" "variables.o.name == 1" "variables.l[0] == 'x'" \
  "variables.b > 0" "variables.a" "variables.s" "variables == 1" "variables.a.foo == 1" "type(variables) == int"; do
  probe "$v" "[{\"expression\":$(q "$e")}]"; done
probe '[{"name":"a","expression":"variables.b"},{"name":"b","expression":"1"}]' '[{"expression":"true"}]'
probe '[{"name":"a","expression":"1 + \"x\""}]' '[{"expression":"variables.a == 1"}]'
probe "$v" '[{"expression":"true","messageExpression":"variables.a"}]'
probe "$v" '[{"expression":"true","messageExpression":"variables.s"}]'
probe '[{"name":"a","expression":"1"},{"name":"a","expression":"\"s\""}]' '[{"expression":"variables.a == 1"}]'
probe '[{"name":"d","expression":"authorizer.requestResource.check(\"get\")"}]' '[{"expression":"variables.d.allowed()","messageExpression":"variables.d.reason()"}]'
probe '[{"name":"d","expression":"authorizer.requestResource.check(\"get\")"}]' '[{"expression":"variables.d"}]'
