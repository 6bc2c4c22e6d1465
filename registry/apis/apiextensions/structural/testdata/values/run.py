import json, subprocess, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from schema import schema, objects
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
curl = ["curl", "-sS", "--cacert", "/tmp/ref-schema/pki/ca.crt", "--cert", "/tmp/ref-schema/pki/admin.crt", "--key", "/tmp/ref-schema/pki/admin.key"]
base = "https://127.0.0.1:17200"
crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "values.schema.example.com"},
       "spec": {"group": "schema.example.com", "scope": "Namespaced", "names": {"plural": "values", "singular": "value", "kind": "Value", "listKind": "ValueList"},
                "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}]}}
if len(sys.argv) > 2 and sys.argv[2] == "create":
    r = subprocess.run(curl + ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@-", base + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"], input=json.dumps(crd).encode(), capture_output=True)
    print(r.stdout.decode()[:300]); sys.exit(0)
with open(os.path.join(out, "schema.json"), "w") as f:
    json.dump(schema, f, indent=1, sort_keys=True)
for name, spec in objects.items():
    obj = {"apiVersion": "schema.example.com/v1", "kind": "Value", "metadata": {"name": name}, "spec": spec}
    body = json.dumps(obj)
    r = subprocess.run(curl + ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@-", "-w", "\n[HTTP %{http_code}]\n",
                       base + "/apis/schema.example.com/v1/namespaces/default/values?fieldValidation=Ignore&dryRun=All"], input=body.encode(), capture_output=True)
    with open(os.path.join(out, name + ".object.json"), "w") as f:
        f.write(body + "\n")
    with open(os.path.join(out, name + ".status.txt"), "w") as f:
        f.write("$ curl -X POST " + name + ".object.json to /apis/schema.example.com/v1/namespaces/default/values?fieldValidation=Ignore&dryRun=All (CRD values.schema.example.com with schema.json)\n")
        f.write(r.stdout.decode())
