import json, subprocess, sys, os
sys.path.insert(0, "/tmp/schema-work")
from cases import cases
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, schema in cases.items():
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "things.schema.example.com"},
           "spec": {"group": "schema.example.com", "scope": "Namespaced",
                    "names": {"plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}]}}
    body = json.dumps(crd)
    cmd = ["curl", "-sS", "--cacert", "/tmp/ref-schema/pki/ca.crt", "--cert", "/tmp/ref-schema/pki/admin.crt", "--key", "/tmp/ref-schema/pki/admin.key",
           "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@-", "-w", "\n[HTTP %{http_code}]\n",
           "https://127.0.0.1:17200/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All"]
    r = subprocess.run(cmd, input=body.encode(), capture_output=True)
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(schema, f, indent=1, sort_keys=True)
    with open(os.path.join(out, name + ".status.txt"), "w") as f:
        f.write("$ POST one-version CRD things.schema.example.com with openAPIV3Schema = " + name + ".json, ?dryRun=All (curl, admin cert)\n")
        f.write(r.stdout.decode())
