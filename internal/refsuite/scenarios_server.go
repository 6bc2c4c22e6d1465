package refsuite

// servedGroupVersions are the group versions aggsim serves itself.
var servedGroupVersions = []string{
	"apiregistration.k8s.io/v1", "authentication.k8s.io/v1", "authorization.k8s.io/v1",
	"admissionregistration.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1",
}

func discoveryScenarios() []Scenario {
	const th = "discovery"
	out := []Scenario{
		sc("disc-api", th, get("/api"), get("/api/"), get("/api/v1")),
		sc("disc-apis", th, get("/apis")),
		sc("disc-aggregated-apis", th, get("/apis", acceptAggr), get("/api", acceptAggr)),
		sc("disc-aggregated-fallback", th,
			get("/apis", "Accept: application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"),
			get("/apis", "Accept: application/json;g=apidiscovery.k8s.io;v=v9;as=APIGroupDiscoveryList")),
		sc("disc-unknown", th, get("/apis/nope.example.com"), get("/apis/nope.example.com/v1"), get("/api/v2"),
			get("/apis/apiregistration.k8s.io/v9")),
		sc("disc-kubectl-api-resources", th,
			kubectl("api-resources", "--api-group=admissionregistration.k8s.io"),
			kubectl("api-resources", "--api-group=flowcontrol.apiserver.k8s.io", "-o", "wide"),
			kubectl("api-resources", "--api-group=authorization.k8s.io", "-o", "name"),
			kubectl("api-resources", "--api-group=apiregistration.k8s.io", "--namespaced=false")),
	}
	for _, gv := range servedGroupVersions {
		g := gv[:len(gv)-3]
		out = append(out, sc("disc-group-"+shortGroup(g), th, get("/apis/"+g), get("/apis/"+gv), get("/apis/"+gv, acceptProtobuf)))
	}
	return out
}

func shortGroup(g string) string {
	switch g {
	case "apiregistration.k8s.io":
		return "apiregistration"
	case "authentication.k8s.io":
		return "authentication"
	case "authorization.k8s.io":
		return "authorization"
	case "admissionregistration.k8s.io":
		return "admissionregistration"
	case "flowcontrol.apiserver.k8s.io":
		return "flowcontrol"
	}
	return g
}

func openAPIScenarios() []Scenario {
	const th = "openapi"
	out := []Scenario{
		sc("openapi-v2", th, get("/openapi/v2", "Accept: application/json")),
		sc("openapi-v2-protobuf", th, get("/openapi/v2", "Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf")),
		sc("openapi-v3-index", th, get("/openapi/v3")),
		sc("openapi-v3-core", th, get("/openapi/v3/api/v1")),
		sc("openapi-v3-missing", th, get("/openapi/v3/apis/nope.example.com/v1"), get("/openapi/v3/apis")),
		sc("explain-configmap", th, kubectl("explain", "configmap")),
		sc("explain-service-ports", th, kubectl("explain", "services.spec.ports")),
		sc("explain-namespace-recursive", th, kubectl("explain", "namespace", "--recursive")),
		sc("explain-endpoints-subsets", th, kubectl("explain", "endpoints.subsets.addresses")),
		sc("explain-apiservice", th, kubectl("explain", "apiservice.spec")),
		sc("explain-webhooks", th, kubectl("explain", "validatingwebhookconfigurations.webhooks.clientConfig"),
			kubectl("explain", "mutatingwebhookconfiguration.webhooks", "--recursive")),
		sc("explain-vap", th, kubectl("explain", "validatingadmissionpolicy.spec", "--recursive")),
		sc("explain-flowcontrol", th, kubectl("explain", "flowschema.spec"), kubectl("explain", "prioritylevelconfigurations.spec.limited")),
		sc("explain-reviews", th, kubectl("explain", "subjectaccessreviews.spec"), kubectl("explain", "tokenreview.status")),
		sc("explain-unknown", th, kubectl("explain", "configmap.nope"), kubectl("explain", "nopes")),
	}
	for _, gv := range servedGroupVersions {
		out = append(out, sc("openapi-v3-"+shortGroup(gv[:len(gv)-3]), th, get("/openapi/v3/apis/"+gv)))
	}
	return out
}

func healthScenarios() []Scenario {
	const th = "health"
	out := []Scenario{
		sc("version", th, get("/version"), get("/version/"), kubectl("version", "-o", "json")),
		sc("health-unknown-check", th, get("/healthz/nope"), get("/livez/nope"), get("/readyz/nope")),
		sc("health-exclude", th, get("/readyz?exclude=etcd&exclude=nope"), get("/livez?verbose&exclude=ping")),
		sc("health-kubectl-raw", th, kubectl("get", "--raw", "/readyz"), kubectl("get", "--raw", "/livez?verbose")),
	}
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		out = append(out,
			sc("health"+p[1:]+"-plain", th, get(p), get(p+"/ping"), request("HEAD", p, "")),
			sc("health"+p[1:]+"-verbose", th, get(p+"?verbose"), get(p+"?verbose=false")))
	}
	return out
}
