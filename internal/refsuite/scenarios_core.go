package refsuite

const (
	nsPath  = "/api/v1/namespaces"
	svcPath = "/api/v1/namespaces/${ns}/services"
	epPath  = "/api/v1/namespaces/${ns}/endpoints"
)

func nsBody(name, labels string) string {
	return `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + name + `","labels":{` + labels + `}}}`
}

func namespaceScenarios() []Scenario {
	const th = "namespaces"
	return []Scenario{
		sc("ns-create-get", th, post(nsPath, nsBody("${ns}", `"rs":"${sc}"`)), get(nsPath+"/${ns}"),
			kubectl("get", "ns", "${ns}", "-o", "yaml")),
		sc("ns-create-kubectl", th, kubectl("create", "namespace", "${ns}"), kubectl("get", "namespace", "${ns}"),
			kubectl("get", "namespace", "${ns}", "-o", "wide"), kubectl("describe", "namespace", "${ns}")),
		sc("ns-create-invalid", th, post(nsPath, nsBody("Bad_NS", "")), post(nsPath, nsBody("", "")),
			post(nsPath, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${ns}","labels":{"kubernetes.io/metadata.name":"other"}}}`),
			kubectl("create", "namespace", "UPPER")),
		sc("ns-create-exists", th, mkns(), post(nsPath, nsBody("${ns}", "")), kubectl("create", "ns", "${ns}")),
		sc("ns-list-selector", th,
			quiet(post(nsPath, nsBody("${ns}-a", `"rs":"${sc}","x":"1"`))),
			quiet(post(nsPath, nsBody("${ns}-b", `"rs":"${sc}"`))),
			get(nsPath+"?labelSelector=rs%3D${sc}"),
			get(nsPath+"?labelSelector=rs%3D${sc},x"),
			get(nsPath+"?labelSelector=rs%3D${sc}&limit=1"),
			get(nsPath+"?fieldSelector=metadata.name%3D${ns}-b"),
			get(nsPath+"?fieldSelector=status.phase%3DActive,metadata.name%3D${ns}-a"),
			get(nsPath+"?fieldSelector=spec.finalizers%3Dkubernetes"),
			kubectl("get", "ns", "-l", "rs=${sc}"),
			get(nsPath+"?labelSelector=rs%3D${sc}", acceptTable)),
		sc("ns-builtin", th, get(nsPath+"/default"), get(nsPath+"/kube-system", acceptTable),
			kubectl("get", "ns", "kube-public", "kube-node-lease", "-o", "name")),
		sc("ns-update-labels", th, mkns(),
			patch(nsPath+"/${ns}", "merge", `{"metadata":{"labels":{"team":"a"}}}`),
			patch(nsPath+"/${ns}", "merge", `{"metadata":{"labels":{"kubernetes.io/metadata.name":null}}}`),
			patch(nsPath+"/${ns}", "json", `[{"op":"replace","path":"/metadata/labels/kubernetes.io~1metadata.name","value":"x"}]`),
			kubectl("label", "ns", "${ns}", "team=b", "--overwrite"),
			kubectl("get", "ns", "${ns}", "-o", "yaml")),
		sc("ns-update-put", th, save(post(nsPath, nsBody("${ns}", "")), "rv", "metadata.resourceVersion"),
			put(nsPath+"/${ns}", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${ns}","resourceVersion":"${rv}","annotations":{"a":"b"}},"spec":{"finalizers":[]}}`),
			put(nsPath+"/${ns}", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${ns}","resourceVersion":"${rv}"}}`)),
		sc("ns-status-subresource", th, mkns(), get(nsPath+"/${ns}/status"),
			patch(nsPath+"/${ns}/status", "merge", `{"status":{"phase":"Terminating"}}`),
			patch(nsPath+"/${ns}/status", "merge", `{"status":{"conditions":[{"type":"NamespaceDeletionDiscoveryFailure","status":"False","reason":"ResourcesDiscovered","message":"ok","lastTransitionTime":"2025-01-01T00:00:00Z"}]}}`),
			get(nsPath+"/${ns}")),
		sc("ns-finalize-subresource", th, mkns(),
			put(nsPath+"/${ns}/finalize", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${ns}"},"spec":{"finalizers":["example.com/x"]}}`),
			put(nsPath+"/${ns}/finalize", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"},"spec":{}}`),
			get(nsPath+"/${ns}")),
		sc("ns-delete", th, mkns(), del(nsPath+"/${ns}"), get(nsPath+"/${ns}"),
			post(cmPath, cmA), del(nsPath+"/${ns}")),
		sc("ns-delete-builtin", th, del(nsPath+"/default"), del(nsPath+"/kube-system"), del(nsPath+"/nope-${sc}")),
		sc("ns-apply-server-side", th,
			patch(nsPath+"/${ns}?fieldManager=tool", "apply", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n  labels:\n    a: b\n"),
			kubectlIn("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n  annotations:\n    x: y\n", "apply", "--server-side", "-f", "-"),
			kubectl("get", "ns", "${ns}", "-o", "yaml", "--show-managed-fields")),
		sc("ns-deletecollection", th, request("DELETE", nsPath+"?labelSelector=rs%3D${sc}", "")),
	}
}

const svcClusterIP = `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","labels":{"app":"web"}},"spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80,"targetPort":8080}]}}`

func serviceScenarios() []Scenario {
	const th = "services"
	return []Scenario{
		sc("svc-clusterip-defaults", th, mkns(), post(svcPath, svcClusterIP), get(svcPath+"/web")),
		sc("svc-clusterip-fixed", th, mkns(),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"fixed"},"spec":{"clusterIP":"10.96.200.10","ports":[{"port":443,"protocol":"TCP"}]}}`),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"dup"},"spec":{"clusterIP":"10.96.200.10","ports":[{"port":443}]}}`),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"out"},"spec":{"clusterIP":"192.168.0.10","ports":[{"port":443}]}}`)),
		sc("svc-headless", th, mkns(),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"hl"},"spec":{"clusterIP":"None","selector":{"a":"b"},"ports":[{"port":53,"protocol":"UDP"}]}}`),
			kubectl("get", "svc", "hl", "-n", "${ns}", "-o", "yaml")),
		sc("svc-nodeport", th, mkns(),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"np"},"spec":{"type":"NodePort","ports":[{"port":80}]}}`),
			kubectl("get", "svc", "np", "-n", "${ns}")),
		sc("svc-loadbalancer", th, mkns(),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"lb"},"spec":{"type":"LoadBalancer","ports":[{"port":80,"nodePort":31080}]}}`),
			kubectl("get", "svc", "lb", "-n", "${ns}", "-o", "wide")),
		sc("svc-externalname", th, mkns(),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"ext"},"spec":{"type":"ExternalName","externalName":"example.com"}}`),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"bad"},"spec":{"type":"ExternalName","externalName":"Not A Name"}}`),
			kubectl("get", "svc", "-n", "${ns}")),
		sc("svc-kubectl-create", th, mkns(),
			kubectl("create", "service", "clusterip", "api", "-n", "${ns}", "--tcp=443:6443"),
			kubectl("create", "service", "externalname", "db", "-n", "${ns}", "--external-name=db.example.com"),
			kubectl("create", "service", "nodeport", "np", "-n", "${ns}", "--tcp=80:8080", "--node-port=30999"),
			kubectl("get", "svc", "-n", "${ns}", "-o", "wide"),
			kubectl("get", "svc", "db", "-n", "${ns}", "-o", "yaml")),
		sc("svc-invalid-ports", th, mkns(),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"noports"},"spec":{}}`),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"dups"},"spec":{"ports":[{"name":"a","port":80},{"name":"a","port":80}]}}`),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"unnamed"},"spec":{"ports":[{"port":80},{"port":81}]}}`),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"range"},"spec":{"ports":[{"port":70000,"targetPort":0}]}}`),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"proto"},"spec":{"ports":[{"port":80,"protocol":"ICMP"}]}}`)),
		sc("svc-invalid-type", th, mkns(),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"t"},"spec":{"type":"Bogus","ports":[{"port":80}]}}`),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"np"},"spec":{"type":"ClusterIP","ports":[{"port":80,"nodePort":30001}]}}`),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"aff"},"spec":{"sessionAffinity":"Sticky","ports":[{"port":80}]}}`),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"ip"},"spec":{"clusterIP":"not-an-ip","ports":[{"port":80}]}}`)),
		sc("svc-status-loadbalancer", th, mkns(), quiet(post(svcPath, svcClusterIP)),
			patch(svcPath+"/web/status", "merge", `{"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.1"}]}}}`),
			get(svcPath+"/web/status")),
		sc("svc-update-type-externalname", th, mkns(), quiet(post(svcPath, svcClusterIP)),
			patch(svcPath+"/web", "merge", `{"spec":{"type":"ExternalName","externalName":"example.com","clusterIP":"","clusterIPs":null,"selector":null}}`),
			patch(svcPath+"/web", "merge", `{"spec":{"type":"ClusterIP","externalName":null}}`)),
		sc("svc-update-clusterip-immutable", th, mkns(), quiet(post(svcPath, svcClusterIP)),
			patch(svcPath+"/web", "merge", `{"spec":{"clusterIP":"10.96.201.1","clusterIPs":["10.96.201.1"]}}`)),
		sc("svc-patch-strategic-ports", th, mkns(), quiet(post(svcPath, svcClusterIP)),
			patch(svcPath+"/web", "strategic", `{"spec":{"ports":[{"name":"https","port":443}]}}`),
			patch(svcPath+"/web", "strategic", `{"spec":{"ports":[{"$patch":"delete","port":80}]}}`),
			patch(svcPath+"/web", "json", `[{"op":"add","path":"/spec/ports/-","value":{"name":"m","port":9090}}]`),
			kubectl("get", "svc", "web", "-n", "${ns}", "-o", "jsonpath={.spec.ports}")),
		sc("svc-apply-server-side", th, mkns(),
			patch(svcPath+"/web?fieldManager=a", "apply", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n    name: http\n"),
			patch(svcPath+"/web?fieldManager=b", "apply", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 81\n    name: metrics\n"),
			patch(svcPath+"/web?fieldManager=b", "apply", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n    name: other\n"),
			kubectl("get", "svc", "web", "-n", "${ns}", "-o", "yaml", "--show-managed-fields")),
		sc("svc-list-field-selector", th, mkns(), quiet(post(svcPath, svcClusterIP)),
			quiet(post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"ext"},"spec":{"type":"ExternalName","externalName":"example.com"}}`)),
			get(svcPath+"?fieldSelector=spec.type%3DExternalName"),
			get(svcPath+"?fieldSelector=spec.clusterIP%3DNone"),
			get(svcPath+"?fieldSelector=spec.ports%3D80"),
			kubectl("get", "svc", "-n", "${ns}", "--field-selector=metadata.name=web", "-o", "name")),
		sc("svc-table", th, mkns(), quiet(post(svcPath, svcClusterIP)),
			get(svcPath, acceptTable), kubectl("get", "services", "-n", "${ns}", "-o", "wide", "--show-labels"),
			kubectl("describe", "svc", "web", "-n", "${ns}")),
		sc("svc-delete", th, mkns(), quiet(post(svcPath, svcClusterIP)), del(svcPath+"/web"), del(svcPath+"/web"),
			kubectl("delete", "svc", "web", "-n", "${ns}")),
		sc("svc-deletecollection", th, mkns(), quiet(post(svcPath, svcClusterIP)), del(svcPath)),
		sc("svc-proxy-subresource", th, mkns(), quiet(post(svcPath, svcClusterIP)), get(svcPath+"/web/proxy/")),
		sc("svc-dual-stack-fields", th, mkns(),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"ds"},"spec":{"ipFamilyPolicy":"PreferDualStack","ports":[{"port":80}]}}`),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"v6"},"spec":{"ipFamilies":["IPv6"],"ports":[{"port":80}]}}`)),
		sc("svc-traffic-policies", th, mkns(),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"tp"},"spec":{"type":"NodePort","externalTrafficPolicy":"Local","internalTrafficPolicy":"Local","ports":[{"port":80,"nodePort":30123}]}}`),
			post(svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"bad"},"spec":{"externalTrafficPolicy":"Local","ports":[{"port":80}]}}`)),
	}
}

const epBody = `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"api"},"subsets":[{"addresses":[{"ip":"192.0.2.10"}],"ports":[{"name":"https","port":8443}]}]}`

func endpointsScenarios() []Scenario {
	const th = "endpoints"
	return []Scenario{
		sc("ep-create-get", th, mkns(), post(epPath, epBody), get(epPath+"/api"), kubectl("get", "endpoints", "api", "-n", "${ns}", "-o", "yaml")),
		sc("ep-table", th, mkns(), quiet(post(epPath, epBody)), kubectl("get", "ep", "-n", "${ns}"), get(epPath, acceptTable),
			kubectl("describe", "ep", "api", "-n", "${ns}")),
		sc("ep-invalid", th, mkns(),
			post(epPath, `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"a"},"subsets":[{"addresses":[{"ip":"not-an-ip"}],"ports":[{"port":80}]}]}`),
			post(epPath, `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"b"},"subsets":[{"addresses":[{"ip":"192.0.2.1"}],"ports":[{"port":0,"protocol":"XX"}]}]}`),
			post(epPath, `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"c"},"subsets":[{"addresses":[{"ip":"192.0.2.1"}],"ports":[{"name":"a","port":1},{"name":"a","port":2}]}]}`),
			post(epPath, `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"d"},"subsets":[{"addresses":[{"ip":"224.0.0.1"}],"ports":[{"port":80}]}]}`)),
		sc("ep-loopback", th, mkns(),
			post(epPath, `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"lo"},"subsets":[{"addresses":[{"ip":"127.0.0.1"}],"ports":[{"port":8443}]}]}`)),
		sc("ep-not-ready-and-targets", th, mkns(),
			post(epPath, `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"nr"},"subsets":[{"addresses":[{"ip":"192.0.2.1","hostname":"h1","targetRef":{"kind":"Pod","name":"p","namespace":"${ns}"}}],"notReadyAddresses":[{"ip":"192.0.2.2"}],"ports":[{"name":"a","port":1,"appProtocol":"https"}]}]}`)),
		sc("ep-patch-and-update", th, mkns(), quiet(post(epPath, epBody)),
			patch(epPath+"/api", "strategic", `{"subsets":[{"addresses":[{"ip":"192.0.2.11"}],"ports":[{"name":"https","port":8443}]}]}`),
			patch(epPath+"/api", "merge", `{"metadata":{"labels":{"a":"b"}}}`),
			put(epPath+"/api", `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"api"},"subsets":[]}`)),
		sc("ep-apply-server-side", th, mkns(),
			patch(epPath+"/api?fieldManager=ctl", "apply", "apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: api\nsubsets:\n- addresses:\n  - ip: 192.0.2.20\n  ports:\n  - port: 443\n    name: https\n"),
			kubectl("get", "ep", "api", "-n", "${ns}", "-o", "yaml", "--show-managed-fields")),
		sc("ep-list-delete", th, mkns(), quiet(post(epPath, epBody)), get(epPath), get("/api/v1/endpoints?fieldSelector=metadata.namespace%3D${ns}"),
			del(epPath+"/api"), del(epPath+"?labelSelector=x")),
	}
}

const (
	evPath    = "/api/v1/namespaces/${ns}/events"
	quotaPath = "/api/v1/namespaces/${ns}/resourcequotas"
	limitPath = "/api/v1/namespaces/${ns}/limitranges"
)

// policyScenarios cover core/v1 events, resourcequotas and limitranges,
// which kubectl describe reads: an object's events, a namespace's quotas
// and limit ranges.
func policyScenarios() []Scenario {
	const th = "events-quotas-limits"
	const event = `{"apiVersion":"v1","kind":"Event","metadata":{"name":"e1"},"involvedObject":{"kind":"ConfigMap","name":"a","namespace":"${ns}","apiVersion":"v1"},"reason":"Tested","message":"hello there ","type":"Normal","source":{"component":"probe"},"firstTimestamp":"2025-01-01T00:00:00Z","lastTimestamp":"2025-01-02T00:00:00Z","count":2}`
	const quota = `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"pods":"10","requests.cpu":"1.5","limits.memory":"2048Mi","requests.memory":"1.5Gi","count/configmaps":1000,"requests.storage":"0.0000000001k","example.com/gpu":"2"}}}`
	const limits = `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"l"},"spec":{"limits":[{"type":"Container","max":{"memory":"1Gi"},"min":{"memory":"100Mi"}},{"type":"Pod","max":{"cpu":"2"}}]}}`
	return []Scenario{
		sc("ev-create-get", th, mkns(), post(evPath, event), get(evPath+"/e1"),
			get(evPath+"?fieldSelector=involvedObject.name%3Da,involvedObject.kind%3DConfigMap"),
			get(evPath+"?fieldSelector=involvedObject.name%3Db"),
			get(evPath+"?fieldSelector=spec.bogus%3Dx"),
			get(evPath, acceptTable),
			kubectl("get", "events", "-n", "${ns}", "-o", "yaml")),
		sc("ev-invalid", th, mkns(),
			post(evPath, `{"apiVersion":"v1","kind":"Event","metadata":{"name":"Bad_Name"},"involvedObject":{"kind":"ConfigMap","name":"a","namespace":"other"}}`),
			post(evPath, `{"apiVersion":"v1","kind":"Event","metadata":{"name":"e2","labels":{"a":"b c"}},"involvedObject":{"kind":"ConfigMap","name":"a"},"eventTime":"2025-01-01T00:00:00.000000Z","series":{"count":1}}`),
			post(evPath, `{"apiVersion":"v1","kind":"Event","metadata":{"name":"Bad_Name"},"involvedObject":{"kind":"ConfigMap","name":"a","namespace":"${ns}"}}`),
			post(evPath, `{"apiVersion":"v1","kind":"Event","metadata":{"name":"e3"},"involvedObject":{"kind":"ConfigMap","name":"a","namespace":"${ns}"},"eventTime":"2025-01-01T00:00:00Z"}`),
			post(evPath, `{"apiVersion":"v1","kind":"Event","metadata":{"name":"e4"},"involvedObject":{"kind":"ConfigMap","name":"a","namespace":"${ns}"},"eventTime":"2025-01-01T00:00:00.123456Z","reportingComponent":"example.com/ctl","reportingInstance":"ctl-1","action":"Do","reason":"Done","series":{"count":3,"lastObservedTime":"2025-01-01T00:00:01.000000Z"}}`)),
		sc("ev-describe-object", th, mkns(),
			quiet(post("/api/v1/namespaces/${ns}/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`)),
			kubectl("describe", "cm", "a", "-n", "${ns}"),
			kubectl("get", "events", "-n", "${ns}")),
		sc("quota-create-get", th, mkns(), post(quotaPath, quota),
			kubectl("get", "quota", "q", "-n", "${ns}", "-o", "yaml"),
			patch(quotaPath+"/q/status", "merge", `{"status":{"hard":{"pods":"10","limits.memory":"2Gi"},"used":{"pods":"3"}}}`),
			get(quotaPath, acceptTable),
			kubectl("get", "resourcequotas", "-n", "${ns}"),
			kubectl("describe", "quota", "q", "-n", "${ns}"),
			patch(quotaPath+"/q", "merge", `{"spec":{"scopes":["NotTerminating"]}}`),
			del(quotaPath+"/q")),
		sc("quota-invalid", th, mkns(),
			post(quotaPath, `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"pods":"x1"}}}`),
			// One bad hard key a request: upstream checks them in map order.
			post(quotaPath, `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"foo":"1","cpu":"1"},"scopes":["BestEffort","NotBestEffort","Foo"]}}`),
			post(quotaPath, `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"storage":"1"}}}`),
			post(quotaPath, `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"cpu":"-1.5","pods":"1"}}}`),
			post(quotaPath, `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"a/b":"1.5"}}}`),
			post(quotaPath, `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"c/d":"0.1m"}}}`),
			post(quotaPath, `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"In"},{"scopeName":"BestEffort","operator":"In","values":["x"]}]}}}`)),
		sc("limits-create-get", th, mkns(), post(limitPath, limits),
			kubectl("get", "limits", "-n", "${ns}", "-o", "yaml"),
			get(limitPath, acceptTable),
			kubectl("describe", "limitrange", "l", "-n", "${ns}"),
			del(limitPath+"/l")),
		sc("limits-invalid", th, mkns(),
			post(limitPath, `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"l"},"spec":{"limits":[{"type":"Container","max":{"cpu":"1"},"min":{"cpu":"2"},"maxLimitRequestRatio":{"cpu":"0.5"}},{"type":"Pod","default":{"cpu":"1"}},{"type":"Container"},{"type":"Foo","max":{"bar":"1"}},{"type":"PersistentVolumeClaim"}]}}`),
			post(limitPath, `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"m"},"spec":{"limits":[{"type":"Container","max":{"memory":"1Gi"},"min":{"memory":"100Mi"},"maxLimitRequestRatio":{"memory":"20"}}]}}`),
			post(limitPath, `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"n"},"spec":{}}`)),
		sc("ns-describe-quota-limits", th, mkns(),
			quiet(post(quotaPath, `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"pods":"10"}}}`)),
			quiet(post(limitPath, `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"l"},"spec":{"limits":[{"type":"Pod","max":{"cpu":"2"}}]}}`)),
			kubectl("describe", "namespace", "${ns}"),
			kubectl("get", "events,quota,limits", "-n", "${ns}")),
	}
}
