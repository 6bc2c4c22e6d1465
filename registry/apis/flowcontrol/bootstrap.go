package flowcontrol

// AutoUpdateAnnotation is the annotation kube-apiserver's APF config
// producer puts on the objects it creates ("true"): while it is "true",
// the producer puts the object's spec back to its bootstrap value
// (upstream k8s.io/api/flowcontrol/v1 AutoUpdateAnnotationKey).
const AutoUpdateAnnotation = "apf.kubernetes.io/autoupdate-spec"

// The names of the mandatory objects, whose spec cannot be changed
// (upstream pkg/apis/flowcontrol/bootstrap, mandatory.go).
const (
	// NameExempt names the mandatory exempt FlowSchema and priority level.
	NameExempt = "exempt"
	// NameCatchAll names the mandatory catch-all FlowSchema and priority
	// level.
	NameCatchAll = "catch-all"
)

// BootstrapFlowSchemaNames are the FlowSchemas kube-apiserver 1.33
// creates at start-up, mandatory ones first, then the suggested ones in
// upstream's order (upstream pkg/apis/flowcontrol/bootstrap/default.go).
var BootstrapFlowSchemaNames = []string{
	NameExempt, NameCatchAll,
	"probes", "system-leader-election", "endpoint-controller", "workload-leader-election",
	"system-node-high", "system-nodes", "kube-controller-manager", "kube-scheduler",
	"kube-system-service-accounts", "service-accounts", "global-default",
}

// BootstrapPriorityLevelNames are the PriorityLevelConfigurations
// kube-apiserver 1.33 creates at start-up, mandatory ones first.
var BootstrapPriorityLevelNames = []string{
	NameExempt, NameCatchAll,
	"system", "node-high", "leader-election", "workload-high", "workload-low", "global-default",
}

// IsMandatory reports whether name is one of the mandatory objects
// (exempt, catch-all) of either kind.
func IsMandatory(name string) bool { return name == NameExempt || name == NameCatchAll }

// Compact builders of the bootstrap specs.

func groups(names ...string) []Subject {
	out := make([]Subject, len(names))
	for i, n := range names {
		out[i] = Subject{Kind: "Group", Group: &GroupSubject{Name: n}}
	}
	return out
}

func user(name string) Subject { return Subject{Kind: "User", User: &UserSubject{Name: name}} }

func serviceAccount(ns, name string) Subject {
	return Subject{Kind: "ServiceAccount", ServiceAccount: &ServiceAccountSubject{Namespace: ns, Name: name}}
}

func all() []string { return []string{"*"} }

// everything is the rule of every request: all resources (cluster scope
// and every namespace) and all non-resource URLs.
func everything(subjects ...Subject) []PolicyRulesWithSubjects {
	return []PolicyRulesWithSubjects{{
		Subjects:         subjects,
		ResourceRules:    []ResourcePolicyRule{{Verbs: all(), APIGroups: all(), Resources: all(), ClusterScope: true, Namespaces: all()}},
		NonResourceRules: []NonResourcePolicyRule{{Verbs: all(), NonResourceURLs: all()}},
	}}
}

// namespaced is a rule over resources in every namespace.
func namespaced(verbs []string, group string, resources ...string) ResourcePolicyRule {
	return ResourcePolicyRule{Verbs: verbs, APIGroups: []string{group}, Resources: resources, Namespaces: all()}
}

func fs(level string, precedence int32, distinguisher string, rules []PolicyRulesWithSubjects) FlowSchemaSpec {
	s := FlowSchemaSpec{PriorityLevelConfiguration: PriorityLevelConfigurationReference{Name: level}, MatchingPrecedence: precedence, Rules: rules}
	if distinguisher != "" {
		s.DistinguisherMethod = &FlowDistinguisherMethod{Type: distinguisher}
	}
	return s
}

// BootstrapFlowSchema returns a fresh copy of the spec of the bootstrap
// FlowSchema name, as kube-apiserver 1.33 creates it (defaults included);
// false when name is not one (upstream bootstrap/default.go).
func BootstrapFlowSchema(name string) (FlowSchemaSpec, bool) {
	authenticated := func() []Subject { return groups("system:unauthenticated", "system:authenticated") }
	gcu := []string{"get", "create", "update"}
	switch name {
	case NameExempt:
		return fs("exempt", 1, "", everything(groups("system:masters")...)), true
	case NameCatchAll:
		return fs("catch-all", 10000, "ByUser", everything(authenticated()...)), true
	case "probes":
		return fs("exempt", 2, "", []PolicyRulesWithSubjects{{
			Subjects:         authenticated(),
			NonResourceRules: []NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/readyz", "/livez"}}},
		}}), true
	case "system-leader-election":
		return fs("leader-election", 100, "ByUser", []PolicyRulesWithSubjects{{
			Subjects:      []Subject{user("system:kube-controller-manager"), user("system:kube-scheduler"), serviceAccount("kube-system", "*")},
			ResourceRules: []ResourcePolicyRule{namespaced(gcu, "coordination.k8s.io", "leases")},
		}}), true
	case "endpoint-controller":
		return fs("workload-high", 150, "ByUser", []PolicyRulesWithSubjects{{
			Subjects: []Subject{user("system:kube-controller-manager"),
				serviceAccount("kube-system", "endpoint-controller"), serviceAccount("kube-system", "endpointslicemirroring-controller")},
			ResourceRules: []ResourcePolicyRule{namespaced(gcu, "", "endpoints")},
		}}), true
	case "workload-leader-election":
		return fs("leader-election", 200, "ByUser", []PolicyRulesWithSubjects{{
			Subjects:      []Subject{serviceAccount("kube-system", "*")},
			ResourceRules: []ResourcePolicyRule{namespaced(gcu, "", "endpoints", "configmaps"), namespaced(gcu, "coordination.k8s.io", "leases")},
		}}), true
	case "system-node-high":
		nodes := ResourcePolicyRule{Verbs: all(), APIGroups: []string{""}, Resources: []string{"nodes", "nodes/status"}, ClusterScope: true, Namespaces: all()}
		return fs("node-high", 400, "ByUser", []PolicyRulesWithSubjects{{
			Subjects:      groups("system:nodes"),
			ResourceRules: []ResourcePolicyRule{nodes, namespaced(all(), "coordination.k8s.io", "leases")},
		}}), true
	case "system-nodes":
		return fs("system", 500, "ByUser", everything(groups("system:nodes")...)), true
	case "kube-controller-manager":
		return fs("workload-high", 800, "ByNamespace", everything(user("system:kube-controller-manager"))), true
	case "kube-scheduler":
		return fs("workload-high", 800, "ByNamespace", everything(user("system:kube-scheduler"))), true
	case "kube-system-service-accounts":
		return fs("workload-high", 900, "ByNamespace", everything(serviceAccount("kube-system", "*"))), true
	case "service-accounts":
		return fs("workload-low", 9000, "ByUser", everything(groups("system:serviceaccounts")...)), true
	case "global-default":
		return fs("global-default", 9900, "ByUser", everything(authenticated()...)), true
	}
	return FlowSchemaSpec{}, false
}

// queued is a Limited level that queues excess requests.
func queued(shares, lendable, queues, handSize int32) PriorityLevelConfigurationSpec {
	return PriorityLevelConfigurationSpec{Type: "Limited", Limited: &LimitedPriorityLevelConfiguration{
		NominalConcurrencyShares: ptr(shares),
		LimitResponse:            LimitResponse{Type: "Queue", Queuing: &QueuingConfiguration{Queues: queues, HandSize: handSize, QueueLengthLimit: 50}},
		LendablePercent:          ptr(lendable),
	}}
}

// BootstrapPriorityLevel returns a fresh copy of the spec of the
// bootstrap PriorityLevelConfiguration name, as kube-apiserver 1.33
// creates it; false when name is not one (upstream bootstrap/default.go).
func BootstrapPriorityLevel(name string) (PriorityLevelConfigurationSpec, bool) {
	switch name {
	case NameExempt:
		return PriorityLevelConfigurationSpec{Type: "Exempt", Exempt: &ExemptPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(0)), LendablePercent: ptr(int32(0))}}, true
	case NameCatchAll:
		return PriorityLevelConfigurationSpec{Type: "Limited", Limited: &LimitedPriorityLevelConfiguration{
			NominalConcurrencyShares: ptr(int32(5)), LimitResponse: LimitResponse{Type: "Reject"}, LendablePercent: ptr(int32(0)),
		}}, true
	case "system":
		return queued(30, 33, 64, 6), true
	case "node-high":
		return queued(40, 25, 64, 6), true
	case "leader-election":
		return queued(10, 0, 16, 4), true
	case "workload-high":
		return queued(40, 50, 128, 6), true
	case "workload-low":
		return queued(100, 90, 128, 6), true
	case "global-default":
		return queued(20, 50, 128, 6), true
	}
	return PriorityLevelConfigurationSpec{}, false
}
