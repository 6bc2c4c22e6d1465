package refsuite

// Scenarios returns the whole catalogue in report order. Every scenario
// owns the namespace rs-<name> and names its cluster-scoped objects after
// itself (rs-<name>-..., or labels rs=<name> for lists), so scenarios are
// independent and may run concurrently.
func Scenarios() []Scenario {
	var all []Scenario
	for _, f := range []func() []Scenario{
		configMapScenarios,
		namespaceScenarios,
		serviceScenarios,
		endpointsScenarios,
		policyScenarios,
		apiServiceScenarios,
		admissionScenarios,
		flowControlScenarios,
		rbacScenarios,
		reviewScenarios,
		serviceAccountScenarios, // scenarios_serviceaccounts.go
		discoveryScenarios,
		openAPIScenarios,
		healthScenarios,
		errorScenarios,
		watchScenarios,
	} {
		all = append(all, f()...)
	}
	return all
}
