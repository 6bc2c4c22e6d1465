package core

// DefaultClientIPTimeoutSeconds is sessionAffinityConfig.clientIP.timeoutSeconds'
// default (3 h), as core/v1 defaults it.
const DefaultClientIPTimeoutSeconds int32 = 10800

// DefaultService applies core/v1 defaulting: type ClusterIP,
// sessionAffinity None, port protocol TCP, targetPort = port,
// internalTrafficPolicy Cluster (not for ExternalName),
// externalTrafficPolicy Cluster when ExternallyAccessible, no
// sessionAffinityConfig with affinity None, the ClientIP
// timeout, and allocateLoadBalancerNodePorts true for LoadBalancer.
func DefaultService(s *Service) {
	sp := &s.Spec
	if sp.Type == "" {
		sp.Type = ServiceTypeClusterIP
	}
	if sp.SessionAffinity == "" {
		sp.SessionAffinity = ServiceAffinityNone
	}
	if sp.SessionAffinity == ServiceAffinityNone {
		sp.SessionAffinityConfig = nil
	}
	if sp.SessionAffinity == ServiceAffinityClientIP {
		if sp.SessionAffinityConfig == nil {
			sp.SessionAffinityConfig = &SessionAffinityConfig{}
		}
		if sp.SessionAffinityConfig.ClientIP == nil {
			sp.SessionAffinityConfig.ClientIP = &ClientIPConfig{}
		}
		if sp.SessionAffinityConfig.ClientIP.TimeoutSeconds == nil {
			t := DefaultClientIPTimeoutSeconds
			sp.SessionAffinityConfig.ClientIP.TimeoutSeconds = &t
		}
	}
	for i := range sp.Ports {
		p := &sp.Ports[i]
		if p.Protocol == "" {
			p.Protocol = ProtocolTCP
		}
		if p.TargetPort.IsZero() {
			p.TargetPort = FromInt(p.Port)
		}
	}
	if sp.Type != ServiceTypeExternalName && sp.InternalTrafficPolicy == nil {
		v := TrafficPolicyCluster
		sp.InternalTrafficPolicy = &v
	}
	if ExternallyAccessible(s) && sp.ExternalTrafficPolicy == "" {
		sp.ExternalTrafficPolicy = TrafficPolicyCluster
	}
	if sp.Type == ServiceTypeLoadBalancer && sp.AllocateLoadBalancerNodePorts == nil {
		t := true
		sp.AllocateLoadBalancerNodePorts = &t
	}
}

// ExternallyAccessible reports whether traffic from outside the cluster
// reaches the Service: NodePort and LoadBalancer Services, and ClusterIP
// Services with externalIPs (upstream's service.ExternallyAccessible).
func ExternallyAccessible(s *Service) bool {
	return s.Spec.Type == ServiceTypeLoadBalancer || s.Spec.Type == ServiceTypeNodePort ||
		(s.Spec.Type == ServiceTypeClusterIP && len(s.Spec.ExternalIPs) > 0)
}

// DefaultEndpoints gives ports without a protocol TCP (core/v1 defaults).
func DefaultEndpoints(e *Endpoints) {
	for i := range e.Subsets {
		for j := range e.Subsets[i].Ports {
			if e.Subsets[i].Ports[j].Protocol == "" {
				e.Subsets[i].Ports[j].Protocol = ProtocolTCP
			}
		}
	}
}
