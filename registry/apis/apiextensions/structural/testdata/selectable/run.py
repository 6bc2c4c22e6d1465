# POSTs CRDs with selectableFields / rule fieldPaths to the reference (dryRun=All); writes <name>.crd.json + <name>.status.txt
import json, subprocess, sys, os
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
schema = {"type": "object", "properties": {"metadata": {"type": "object"}, "spec": {"type": "object", "properties": {
    "s": {"type": "string"}, "i": {"type": "integer"}, "b": {"type": "boolean"}, "n": {"type": "number"}, "o": {"type": "object", "properties": {"x": {"type": "string"}}},
    "m": {"type": "object", "additionalProperties": {"type": "string"}}, "l": {"type": "array", "items": {"type": "string"}}, "e": {"type": "string", "enum": ["a"]}, "f": {"type": "string", "format": "date-time"},
    "q": {"type": "string"}, "r": {"type": "string"}}}}}
cases = {
  "selectable-bad": [".spec.n", ".spec.o", ".spec.o.x", ".spec.m.k", ".spec.m['k']", ".spec['s']", ".metadata.name", ".spec.nope", "spec.s", ".spec.s", "", ".spec.l[0]", ".spec.s."],
  "selectable-too-many": [".spec.s", ".spec.i", ".spec.b", ".spec.e", ".spec.f", ".spec.o.x", ".spec.m.a", ".spec.q", ".spec.r"],
  "selectable-ok": [".spec.s", ".spec.i", ".spec.b", ".spec.e", ".spec.f"],
}
rules = {"rule-fieldpaths": [".s", ".o.x", ".m.k", ".m['k']", "['s']", ".l[0]", ".nope", "s", ".o['x']", ".o.'x'"]}
curl = ["curl", "-sS", "--cacert", "/tmp/ref-schema/pki/ca.crt", "--cert", "/tmp/ref-schema/pki/admin.crt", "--key", "/tmp/ref-schema/pki/admin.key"]
def post(name, crd):
    r = subprocess.run(curl + ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@-", "-w", "\n[HTTP %{http_code}]\n",
        "https://127.0.0.1:17200/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All"], input=json.dumps(crd).encode(), capture_output=True)
    with open(os.path.join(out, name + ".crd.json"), "w") as f: json.dump(crd, f, indent=1, sort_keys=True)
    with open(os.path.join(out, name + ".status.txt"), "w") as f:
        f.write("$ curl -X POST " + name + ".crd.json to /apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All (admin cert)\n" + r.stdout.decode())
def crd(schema, sel=None):
    v = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}
    if sel is not None: v["selectableFields"] = [{"jsonPath": p} for p in sel]
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "things.schema.example.com"},
            "spec": {"group": "schema.example.com", "scope": "Namespaced", "names": {"plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList"}, "versions": [v]}}
for name, sel in cases.items(): post(name, crd(schema, sel))
for name, fps in rules.items():
    sc = json.loads(json.dumps(schema)); sc["properties"]["spec"]["x-kubernetes-validations"] = [{"rule": "true", "fieldPath": p} for p in fps]
    post(name, crd(sc))
