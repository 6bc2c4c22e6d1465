package storage

import (
	"strings"
)

// DefaultEtcdPrefix is the prefix of every key aggsim writes to etcd,
// kube-apiserver's --etcd-prefix default.
const DefaultEtcdPrefix = "/registry"

// upstreamPaths maps the generic store's "<group>/<resource>" (group
// "core" for the legacy group) onto the path kube-apiserver 1.33 stores
// that resource under, below --etcd-prefix: the plain resource name for
// the built-in groups (registry/<resource>/storage/storage.go upstream
// passes no group), with upstream's historical exceptions (services/specs,
// services/endpoints, minions). Resources not listed (apiregistration.k8s.io,
// apiextensions.k8s.io and custom resources) keep "<group>/<resource>", as
// upstream does for them.
var upstreamPaths = map[string]string{
	"core/configmaps":                               "configmaps",
	"core/endpoints":                                "services/endpoints",
	"core/events":                                   "events",
	"core/limitranges":                              "limitranges",
	"core/namespaces":                               "namespaces",
	"core/nodes":                                    "minions",
	"core/pods":                                     "pods",
	"core/resourcequotas":                           "resourcequotas",
	"core/secrets":                                  "secrets",
	"core/serviceaccounts":                          "serviceaccounts",
	"core/services":                                 "services/specs",
	"rbac.authorization.k8s.io/roles":               "roles",
	"rbac.authorization.k8s.io/rolebindings":        "rolebindings",
	"rbac.authorization.k8s.io/clusterroles":        "clusterroles",
	"rbac.authorization.k8s.io/clusterrolebindings": "clusterrolebindings",
	"admissionregistration.k8s.io/validatingwebhookconfigurations":   "validatingwebhookconfigurations",
	"admissionregistration.k8s.io/mutatingwebhookconfigurations":     "mutatingwebhookconfigurations",
	"admissionregistration.k8s.io/validatingadmissionpolicies":       "validatingadmissionpolicies",
	"admissionregistration.k8s.io/validatingadmissionpolicybindings": "validatingadmissionpolicybindings",
	"admissionregistration.k8s.io/mutatingadmissionpolicies":         "mutatingadmissionpolicies",
	"admissionregistration.k8s.io/mutatingadmissionpolicybindings":   "mutatingadmissionpolicybindings",
	"flowcontrol.apiserver.k8s.io/flowschemas":                       "flowschemas",
	"flowcontrol.apiserver.k8s.io/prioritylevelconfigurations":       "prioritylevelconfigurations",
	"coordination.k8s.io/leases":                                     "leases",
}

// rawKeyMarker starts the etcd path of a key outside "/registry/" (only
// tests write such keys): ':' is in no resource or group name, so these
// paths never meet a resource's.
const rawKeyMarker = "/:raw"

// etcdKeys translates between the generic store's keys
// ("/registry/<group>/<resource>/[<ns>/]<name>") and the etcd keys
// kube-apiserver uses ("<prefix>/<upstream path>/[<ns>/]<name>"). The
// translation is a bijection: every key maps to one etcd key and back.
type etcdKeys struct {
	prefix string            // --etcd-prefix without a trailing "/"
	back   map[string]string // upstream path + "/" → "/registry/<group>/<resource>/"
}

func newEtcdKeys(prefix string) etcdKeys {
	k := etcdKeys{prefix: strings.TrimSuffix(prefix, "/"), back: map[string]string{}}
	for gr, p := range upstreamPaths {
		k.back[p+"/"] = "/registry/" + gr + "/"
	}
	return k
}

// toEtcd returns the etcd key of key.
func (k etcdKeys) toEtcd(key string) string {
	rest, ok := strings.CutPrefix(key, "/registry/")
	if !ok {
		return k.prefix + rawKeyMarker + key
	}
	group, tail, ok1 := strings.Cut(rest, "/")
	resource, tail2, ok2 := strings.Cut(tail, "/")
	if ok1 && ok2 {
		if p, found := upstreamPaths[group+"/"+resource]; found {
			return k.prefix + "/" + p + "/" + tail2
		}
	}
	return k.prefix + "/" + rest
}

// fromEtcd returns the store key of an etcd key under k.prefix, and false
// for keys outside it.
func (k etcdKeys) fromEtcd(ekey string) (string, bool) {
	r, ok := strings.CutPrefix(ekey, k.prefix+"/")
	if !ok {
		return "", false
	}
	if raw, ok := strings.CutPrefix(r, rawKeyMarker[1:]); ok && strings.HasPrefix(raw, "/") {
		return raw, true
	}
	// The longest upstream path wins (services/specs/ over services/):
	// each "/"-ended prefix of r is looked up, longest first (a key has a
	// few segments; k.back has dozens of paths).
	for i := len(r) - 1; i >= 0; i-- {
		if r[i] != '/' {
			continue
		}
		if b, ok := k.back[r[:i+1]]; ok {
			return b + r[i+1:], true
		}
	}
	return "/registry/" + r, true
}

// rangeOf returns the etcd key prefix that holds every key under the store
// prefix p, and whether that range holds only such keys (then no filtering
// is needed and the order of the etcd keys is the order of the store's).
// A prefix inside one resource maps onto that resource's etcd path; any
// other prefix is served from the whole of k.prefix, filtered.
func (k etcdKeys) rangeOf(p string) (string, bool) {
	if strings.HasPrefix(p, "/registry/") && resourceOf(p) != "" {
		return k.toEtcd(p), true
	}
	if strings.HasPrefix(p, "/") && !strings.HasPrefix("/registry/", p) && !strings.HasPrefix(p, "/registry/") {
		// A raw prefix ("/a/", "/k"): only raw keys can match.
		return k.prefix + rawKeyMarker + p, true
	}
	return k.prefix + "/", false
}
