#!/usr/bin/env python3
"""Capture kube-apiserver 1.33's OpenAPI documents, trimmed to what aggsim serves itself.

Produced the files beside it with a real kube-apiserver v1.33.13 started by
../shared/reference/up.sh (NO_BACKEND=1, nothing else created):

    RUN=/tmp/ref-cap API_PORT=16443 ETCD_PORT=16379 ETCD_PEER_PORT=16380 NO_BACKEND=1 ./up.sh
    python3 registry/testdata/openapi-reference/capture.py https://127.0.0.1:16443 /tmp/ref-cap/pki

It GETs /openapi/v2, /openapi/v3 and the v3 documents of the keys below (curl with the admin client
certificate), keeps only the paths of the resources aggsim serves (core configmaps, endpoints, events, limitranges, namespaces, resourcequotas, serviceaccounts,
services; apiregistration, admissionregistration, flowcontrol, rbac, coordination and apiextensions v1; the authentication and authorization
reviews; the discovery paths /api/, /api/v1/, /apis/, /apis/<group>/, /apis/<group>/v1/; /version/), the definitions,
schemas and shared parameters those paths reach, and the index entries of the kept documents. Nothing
else is changed: key order and bytes of what is kept are upstream's (re-encoded compactly, as served).
"""
import json, subprocess, sys, os
from collections import OrderedDict

URL, PKI = sys.argv[1], sys.argv[2]
OUT = os.path.dirname(os.path.abspath(__file__))
GROUPS = {
    'apiregistration.k8s.io': None, 'admissionregistration.k8s.io': None,
    'flowcontrol.apiserver.k8s.io': None, 'rbac.authorization.k8s.io': None, 'coordination.k8s.io': None,
    'apiextensions.k8s.io': None,
    'authentication.k8s.io': {'tokenreviews', 'selfsubjectreviews'},
    'authorization.k8s.io': {'subjectaccessreviews', 'selfsubjectaccessreviews', 'selfsubjectrulesreviews',
                             'localsubjectaccessreviews'},
}
CORE = {'configmaps', 'endpoints', 'events', 'limitranges', 'namespaces', 'resourcequotas', 'serviceaccounts', 'services'}


def get(path):
    out = subprocess.run(['curl', '-sSf', '--cacert', PKI + '/ca.crt', '--cert', PKI + '/admin.crt',
                          '--key', PKI + '/admin.key', URL + path], check=True, capture_output=True).stdout
    return json.loads(out, object_pairs_hook=OrderedDict)


def served(p):
    if p in ('/api/', '/apis/', '/api/v1/', '/version/'):
        return True
    if p.startswith('/api/v1/'):
        rest = p[len('/api/v1/'):]
        rest = rest[len('watch/'):] if rest.startswith('watch/') else rest
        rest = rest[len('namespaces/{namespace}/'):] if rest.startswith('namespaces/{namespace}/') else rest
        return rest.split('/')[0] in CORE
    for g, res in GROUPS.items():
        if p == '/apis/%s/' % g or p == '/apis/%s/v1/' % g:
            return True
        pre = '/apis/%s/v1/' % g
        if p.startswith(pre):
            if res is None:
                return True
            rest = p[len(pre):]
            rest = rest[len('namespaces/{namespace}/'):] if rest.startswith('namespaces/{namespace}/') else rest
            return rest.split('/')[0] in res
    return False


def refs(v, prefix, out):
    if isinstance(v, dict):
        for k, x in v.items():
            if k == '$ref' and isinstance(x, str) and x.startswith(prefix):
                out.append(x[len(prefix):])
            else:
                refs(x, prefix, out)
    elif isinstance(v, list):
        for x in v:
            refs(x, prefix, out)
    return out


def reach(roots, defs, prefix):
    seen, queue = set(), list(roots)
    while queue:
        n = queue.pop()
        if n in seen or n not in defs:
            continue
        seen.add(n)
        queue += refs(defs[n], prefix, [])
    return seen


def dump(name, doc):
    with open(os.path.join(OUT, name), 'w') as f:
        json.dump(doc, f, separators=(',', ':'), ensure_ascii=False)


v2 = get('/openapi/v2')
v2['paths'] = OrderedDict((p, i) for p, i in v2['paths'].items() if served(p))
params = set(refs(v2['paths'], '#/parameters/', []))
v2['parameters'] = OrderedDict((k, x) for k, x in v2['parameters'].items() if k in params)
keep = reach(refs(v2['paths'], '#/definitions/', []) + refs(v2['parameters'], '#/definitions/', []),
             v2['definitions'], '#/definitions/')
v2['definitions'] = OrderedDict((k, x) for k, x in v2['definitions'].items() if k in keep)
dump('v2.json', v2)

keys = ['api', 'api/v1', 'apis', 'version'] + ['apis/' + g for g in GROUPS] + ['apis/%s/v1' % g for g in GROUPS]
index = get('/openapi/v3')
index['paths'] = OrderedDict((k, x) for k, x in index['paths'].items() if k in keys)
with open(os.path.join(OUT, 'v3-index-upstream.json'), 'w') as f:
    json.dump(index, f, separators=(',', ':'))
os.makedirs(os.path.join(OUT, 'v3'), exist_ok=True)
for k in keys:
    d = get('/openapi/v3/' + k)
    d['paths'] = OrderedDict((p, i) for p, i in d['paths'].items() if served(p))
    s = d['components']['schemas']
    keep = reach(refs(d['paths'], '#/components/schemas/', []), s, '#/components/schemas/')
    d['components']['schemas'] = OrderedDict((n, x) for n, x in s.items() if n in keep)
    dump('v3/' + k.replace('/', '_') + '.json', d)
