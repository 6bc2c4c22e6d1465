package core

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"sort"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Validation of the core subset, with the messages of
// kubernetes/pkg/apis/core/validation/validation.go for the common errors.
// Rules aggsim does not need (label syntax, IP-family consistency,
// load-balancer source ranges, topology) are not checked.

var supportedProtocols = []string{ProtocolSCTP, ProtocolTCP, ProtocolUDP}

// ValidateNamespace checks a Namespace: the name is a DNS-1123 label, the
// object is cluster-scoped.
func ValidateNamespace(ns *Namespace) meta.FieldErrors {
	errs := validateObjectMeta(&ns.ObjectMeta, false, meta.NameIsDNSLabel)
	for i, f := range ns.Spec.Finalizers {
		if f == "" {
			errs = append(errs, meta.Required(fmt.Sprintf("spec.finalizers[%d]", i), ""))
		}
	}
	return errs
}

// ValidateNamespaceUpdate checks an update (also of /status).
func ValidateNamespaceUpdate(ns, old *Namespace) meta.FieldErrors {
	errs := validateObjectMetaUpdate(&ns.ObjectMeta, &old.ObjectMeta)
	return append(errs, ValidateNamespace(ns)...)
}

// ValidateNamespaceStatusUpdate checks a write to namespaces/<name>/status
// as upstream's ValidateNamespaceStatusUpdate: the metadata update rules,
// and status.phase Active while no deletionTimestamp is set, Terminating
// once it is (the field path is upstream's "status.Phase").
func ValidateNamespaceStatusUpdate(ns, old *Namespace) meta.FieldErrors {
	errs := validateObjectMetaUpdate(&ns.ObjectMeta, &old.ObjectMeta)
	if ns.DeletionTimestamp == nil {
		if ns.Status.Phase != NamespaceActive {
			errs = append(errs, meta.Invalid("status.Phase", ns.Status.Phase, "may only be 'Active' if `deletionTimestamp` is empty"))
		}
	} else if ns.Status.Phase != NamespaceTerminating {
		errs = append(errs, meta.Invalid("status.Phase", ns.Status.Phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"))
	}
	return errs
}

// ValidateNamespaceFinalizeUpdate checks a namespaces/finalize write, as
// upstream's ValidateNamespaceFinalizeUpdate: the metadata update rules,
// and each spec.finalizers entry a qualified name (one error per problem)
// that, without a '/', is a standard finalizer.
func ValidateNamespaceFinalizeUpdate(ns, old *Namespace) meta.FieldErrors {
	errs := validateObjectMetaUpdate(&ns.ObjectMeta, &old.ObjectMeta)
	for i, f := range ns.Spec.Finalizers {
		path := fmt.Sprintf("spec.finalizers[%d]", i)
		for _, msg := range meta.IsQualifiedName(f) {
			errs = append(errs, meta.Invalid(path, f, msg))
		}
		if !strings.Contains(f, "/") && !slices.Contains(standardFinalizers, f) {
			errs = append(errs, meta.Invalid(path, f, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return errs
}

// ValidateService checks a Service: the name is a DNS-1035 label; ports
// are required except for headless and ExternalName Services; each port
// has a valid number, protocol and targetPort; names are required when
// there is more than one port and must be unique DNS-1123 labels;
// ExternalName Services need spec.externalName.
func ValidateService(s *Service) meta.FieldErrors {
	errs := validateObjectMeta(&s.ObjectMeta, true, meta.NameIsDNS1035Label)
	headless := s.Spec.ClusterIP == ClusterIPNone

	if len(s.Spec.Ports) == 0 && !headless && s.Spec.Type != ServiceTypeExternalName {
		errs = append(errs, meta.Required("spec.ports", ""))
	}
	if s.Spec.Type == ServiceTypeExternalName {
		// The strategy copies clusterIP into clusterIPs first, so a clusterIP
		// shows here as clusterIPs, as upstream reports it.
		if len(s.Spec.ClusterIPs) > 0 || s.Spec.ClusterIP != "" {
			errs = append(errs, meta.Forbidden("spec.clusterIPs", "may not be set for ExternalName services"))
		}
		if len(s.Spec.IPFamilies) > 0 {
			errs = append(errs, meta.Forbidden("spec.ipFamilies", "may not be set for ExternalName services"))
		}
		if s.Spec.IPFamilyPolicy != nil {
			errs = append(errs, meta.Forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"))
		}
		name := strings.TrimSuffix(s.Spec.ExternalName, ".")
		if name == "" {
			errs = append(errs, meta.Required("spec.externalName", ""))
		} else {
			for _, msg := range meta.IsDNS1123Subdomain(name) {
				errs = append(errs, meta.Invalid("spec.externalName", s.Spec.ExternalName, msg))
			}
		}
	}

	names := map[string]bool{}
	for i := range s.Spec.Ports {
		errs = append(errs, validateServicePort(&s.Spec.Ports[i], len(s.Spec.Ports) > 1, names, s.Spec.Type, fmt.Sprintf("spec.ports[%d]", i))...)
	}
	if s.Spec.Selector != nil {
		errs = append(errs, meta.ValidateLabels(s.Spec.Selector, "spec.selector")...)
	}

	switch s.Spec.Type {
	case "":
		errs = append(errs, meta.Required("spec.type", ""))
	case ServiceTypeClusterIP, ServiceTypeNodePort, ServiceTypeLoadBalancer, ServiceTypeExternalName:
	default:
		errs = append(errs, meta.NotSupported("spec.type", s.Spec.Type, []string{ServiceTypeClusterIP, ServiceTypeExternalName, ServiceTypeLoadBalancer, ServiceTypeNodePort}))
	}
	switch s.Spec.SessionAffinity {
	case "":
		if s.Spec.Type != ServiceTypeExternalName {
			errs = append(errs, meta.Required("spec.sessionAffinity", ""))
		}
	case ServiceAffinityNone, ServiceAffinityClientIP:
	default:
		errs = append(errs, meta.NotSupported("spec.sessionAffinity", s.Spec.SessionAffinity, []string{ServiceAffinityClientIP, ServiceAffinityNone}))
	}
	errs = append(errs, ValidateServiceClusterIPs(s)...)
	for i, ip := range s.Spec.ExternalIPs {
		path := fmt.Sprintf("spec.externalIPs[%d]", i)
		if msgs := isValidIPForLegacyField(ip); len(msgs) > 0 {
			for _, msg := range msgs {
				errs = append(errs, meta.Invalid(path, ip, msg))
			}
		} else {
			errs = append(errs, validateNonSpecialIP(ip, path, false)...)
		}
	}
	errs = append(errs, validateServiceTrafficPolicies(s)...)
	return append(errs, validateDuplicateServicePorts(s)...)
}

// validateServiceTrafficPolicies checks externalTrafficPolicy (only for
// externally-accessible Services, then Cluster or Local), a
// healthCheckNodePort only where one is needed (LoadBalancer with Local),
// and internalTrafficPolicy's value, as upstream's
// validateServiceExternalTrafficPolicy and
// validateServiceInternalTrafficFieldsValue do (pkg/apis/core/validation).
// aggsim allocates no health-check node port, so its absence is not an
// error here.
func validateServiceTrafficPolicies(s *Service) meta.FieldErrors {
	var errs meta.FieldErrors
	policies := []string{TrafficPolicyCluster, TrafficPolicyLocal}
	etp := s.Spec.ExternalTrafficPolicy
	if !ExternallyAccessible(s) {
		if etp != "" {
			errs = append(errs, meta.Invalid("spec.externalTrafficPolicy", etp, "may only be set for externally-accessible services"))
		}
	} else if etp == "" {
		errs = append(errs, meta.Required("spec.externalTrafficPolicy", ""))
	} else if !slices.Contains(policies, etp) {
		errs = append(errs, meta.NotSupported("spec.externalTrafficPolicy", etp, policies))
	}
	needsHealthCheck := s.Spec.Type == ServiceTypeLoadBalancer && etp == TrafficPolicyLocal
	if !needsHealthCheck && s.Spec.HealthCheckNodePort != 0 {
		errs = append(errs, meta.Invalid("spec.healthCheckNodePort", s.Spec.HealthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
	}
	if itp := s.Spec.InternalTrafficPolicy; itp != nil && !slices.Contains(policies, *itp) {
		errs = append(errs, meta.NotSupported("spec.internalTrafficPolicy", *itp, policies))
	}
	return errs
}

// servicePortKey is the value upstream's duplicate-port cause prints: a
// core.ServicePort holding only protocol and port, in Go syntax.
type servicePortKey struct {
	protocol string
	port     int32
}

// String prints the key as upstream's %#v of core.ServicePort does.
func (k servicePortKey) String() string {
	return fmt.Sprintf(`core.ServicePort{Name:"", Protocol:%q, AppProtocol:(*string)(nil), Port:%d, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`, k.protocol, k.port)
}

// validateDuplicateServicePorts gives one Duplicate cause per port whose
// (protocol, port) pair an earlier port has, at spec.ports[i] (upstream's
// "Check for duplicate Ports" in ValidateService).
func validateDuplicateServicePorts(s *Service) meta.FieldErrors {
	var errs meta.FieldErrors
	seen := map[servicePortKey]bool{}
	for i, p := range s.Spec.Ports {
		k := servicePortKey{protocol: p.Protocol, port: p.Port}
		if seen[k] {
			errs = append(errs, &meta.FieldError{Type: meta.FieldValueDuplicate, Field: fmt.Sprintf("spec.ports[%d]", i), BadValue: k})
		}
		seen[k] = true
	}
	return errs
}

// goStrings is a list printed as Go's %#v of []string, as upstream's
// field.Invalid prints a []string value.
type goStrings []string

// String prints the list as []string{"a", "b"}.
func (g goStrings) String() string { return fmt.Sprintf("%#v", []string(g)) }

// ValidateServiceClusterIPs checks clusterIP, clusterIPs, ipFamilies and
// ipFamilyPolicy together, as upstream's
// ValidateServiceClusterIPsRelatedFields (validation.go): clusterIPs[0]
// equals clusterIP; 'None' only alone; valid IPs (leading zeros allowed,
// as for upstream's legacy IP fields); at most one per family; families
// and policy from the supported values; each IP of its listed family.
// ExternalName Services are not checked here.
func ValidateServiceClusterIPs(s *Service) meta.FieldErrors {
	sp := &s.Spec
	if sp.Type == ServiceTypeExternalName {
		return nil
	}
	var errs meta.FieldErrors
	if sp.ClusterIP != "" {
		if len(sp.ClusterIPs) == 0 {
			errs = append(errs, meta.Required("spec.clusterIPs", ""))
		} else if sp.ClusterIPs[0] != sp.ClusterIP {
			errs = append(errs, meta.Invalid("spec.clusterIPs", goStrings(sp.ClusterIPs), "first value must match `clusterIP`"))
		}
	} else if len(sp.ClusterIPs) != 0 {
		errs = append(errs, meta.Invalid("spec.clusterIPs", goStrings(sp.ClusterIPs), "must be empty when `clusterIP` is not specified"))
	}
	seen := map[string]bool{}
	for i, f := range sp.IPFamilies {
		path := fmt.Sprintf("spec.ipFamilies[%d]", i)
		if f != IPv4Protocol && f != IPv6Protocol {
			errs = append(errs, meta.NotSupported(path, f, []string{IPv4Protocol, IPv6Protocol}))
		}
		if seen[f] {
			errs = append(errs, &meta.FieldError{Type: meta.FieldValueDuplicate, Field: path, BadValue: f})
		}
		seen[f] = true
	}
	if sp.IPFamilyPolicy != nil {
		switch *sp.IPFamilyPolicy {
		case IPFamilyPolicySingleStack, IPFamilyPolicyPreferDualStack, IPFamilyPolicyRequireDualStack:
		default:
			errs = append(errs, meta.NotSupported("spec.ipFamilyPolicy", *sp.IPFamilyPolicy, []string{IPFamilyPolicyPreferDualStack, IPFamilyPolicyRequireDualStack, IPFamilyPolicySingleStack}))
		}
	}
	invalid := false
	for i, ip := range sp.ClusterIPs {
		if i == 0 && ip == ClusterIPNone {
			if len(sp.ClusterIPs) > 1 {
				invalid = true
				errs = append(errs, meta.Invalid("spec.clusterIPs", goStrings(sp.ClusterIPs), "'None' must be the first and only value"))
			}
			continue
		}
		for _, msg := range isValidIPForLegacyField(ip) {
			invalid = true
			errs = append(errs, meta.Invalid(fmt.Sprintf("spec.clusterIPs[%d]", i), ip, msg))
		}
	}
	if len(sp.ClusterIPs) > 2 {
		errs = append(errs, meta.Invalid("spec.clusterIPs", goStrings(sp.ClusterIPs), "may only hold up to 2 values"))
	}
	if invalid {
		return errs
	}
	if len(sp.ClusterIPs) > 1 {
		v6 := 0
		for _, ip := range sp.ClusterIPs {
			if isIPv6(ip) {
				v6++
			}
		}
		if v6 != 1 || len(sp.ClusterIPs) != 2 {
			errs = append(errs, meta.Invalid("spec.clusterIPs", goStrings(sp.ClusterIPs), "may specify no more than one IP for each IP family"))
		}
	}
	if sp.ClusterIP != ClusterIPNone && len(sp.ClusterIPs) > 0 && len(sp.IPFamilies) > 0 {
		for i, ip := range sp.ClusterIPs {
			if i >= len(sp.IPFamilies) {
				break
			}
			path := fmt.Sprintf("spec.clusterIPs[%d]", i)
			if sp.IPFamilies[i] == IPv4Protocol && isIPv6(ip) {
				errs = append(errs, meta.Invalid(path, ip, fmt.Sprintf("expected an IPv4 value as indicated by `ipFamilies[%d]`", i)))
			}
			if sp.IPFamilies[i] == IPv6Protocol && !isIPv6(ip) {
				errs = append(errs, meta.Invalid(path, ip, fmt.Sprintf("expected an IPv6 value as indicated by `ipFamilies[%d]`", i)))
			}
		}
	}
	return errs
}

// ParseIPSloppy parses an IP address as upstream's netutils.ParseIPSloppy:
// IPv4 parts may carry leading zeros, read as decimal ("010.1.1.1" is
// 10.1.1.1); zones are refused. ok is false for anything else.
func ParseIPSloppy(s string) (netip.Addr, bool) {
	if strings.Contains(s, ":") {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return netip.Addr{}, false
		}
		return a, true
	}
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return netip.Addr{}, false
	}
	var b [4]byte
	for i, p := range parts {
		if p == "" || len(p) > 8 {
			return netip.Addr{}, false
		}
		n := 0
		for _, c := range p {
			if c < '0' || c > '9' {
				return netip.Addr{}, false
			}
			n = n*10 + int(c-'0')
		}
		if n > 255 {
			return netip.Addr{}, false
		}
		b[i] = byte(n)
	}
	return netip.AddrFrom4(b), true
}

func isIPv6(s string) bool {
	a, ok := ParseIPSloppy(s)
	return ok && a.Is6() && !a.Is4In6()
}

// isValidIPForLegacyField is upstream's IsValidIPForLegacyField without
// the (alpha, off) strict checks: the value must parse sloppily.
func isValidIPForLegacyField(s string) []string {
	if _, ok := ParseIPSloppy(s); !ok {
		return []string{"must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"}
	}
	return nil
}

// validateNonSpecialIP is upstream's ValidateNonSpecialIP: the address must
// parse and not be unspecified, loopback (unless allowLoopback), link-local
// unicast or link-local multicast.
func validateNonSpecialIP(s, path string, allowLoopback bool) meta.FieldErrors {
	a, ok := ParseIPSloppy(s)
	if !ok {
		return meta.FieldErrors{meta.Invalid(path, s, "must be a valid IP address")}
	}
	a = a.Unmap()
	var errs meta.FieldErrors
	if a.IsUnspecified() {
		errs = append(errs, meta.Invalid(path, s, fmt.Sprintf("may not be unspecified (%s)", s)))
	}
	if a.IsLoopback() && !allowLoopback {
		errs = append(errs, meta.Invalid(path, s, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
	}
	if a.IsLinkLocalUnicast() {
		errs = append(errs, meta.Invalid(path, s, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
	}
	if a.IsLinkLocalMulticast() {
		errs = append(errs, meta.Invalid(path, s, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
	}
	return errs
}

// ValidateServiceStatusUpdate checks a write to services/status as
// upstream's ValidateServiceStatusUpdate: immutable metadata and the
// load-balancer status, which only a LoadBalancer Service may have.
func ValidateServiceStatusUpdate(s, old *Service) meta.FieldErrors {
	errs := validateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta)
	ingress := s.Status.LoadBalancer.Ingress
	if s.Spec.Type != ServiceTypeLoadBalancer && len(ingress) != 0 {
		return append(errs, meta.Forbidden("status.loadBalancer.ingress", "may only be used when `spec.type` is 'LoadBalancer'"))
	}
	for i, in := range ingress {
		path := fmt.Sprintf("status.loadBalancer.ingress[%d]", i)
		if in.IP != "" {
			for _, msg := range isValidIPForLegacyField(in.IP) {
				errs = append(errs, meta.Invalid(path+".ip", in.IP, msg))
			}
		}
		if in.Hostname != "" {
			for _, msg := range meta.IsDNS1123Subdomain(in.Hostname) {
				errs = append(errs, meta.Invalid(path+".hostname", in.Hostname, msg))
			}
			if _, ok := ParseIPSloppy(in.Hostname); ok {
				errs = append(errs, meta.Invalid(path+".hostname", in.Hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return errs
}

// validatePort checks what Service and Endpoints ports share, at path:
// the name (required when requireName; else, if set, a DNS-1123 label not
// yet in names, which records it; nil names checks no duplicates), the
// port number and the protocol.
func validatePort(name string, port int32, protocol string, requireName bool, names map[string]bool, path string) meta.FieldErrors {
	var errs meta.FieldErrors
	if requireName && name == "" {
		errs = append(errs, meta.Required(path+".name", ""))
	} else if name != "" {
		for _, msg := range meta.IsDNS1123Label(name) {
			errs = append(errs, meta.Invalid(path+".name", name, msg))
		}
		if names != nil {
			if names[name] {
				errs = append(errs, &meta.FieldError{Type: meta.FieldValueDuplicate, Field: path + ".name", BadValue: name})
			}
			names[name] = true
		}
	}
	for _, msg := range meta.IsValidPortNum(int(port)) {
		errs = append(errs, meta.Invalid(path+".port", port, msg))
	}
	return append(errs, validateProtocol(protocol, path+".protocol")...)
}

func validateServicePort(p *ServicePort, requireName bool, names map[string]bool, svcType, path string) meta.FieldErrors {
	errs := validatePort(p.Name, p.Port, p.Protocol, requireName, names, path)
	if p.TargetPort.Type == IntOrStringString {
		for _, msg := range meta.IsValidPortName(p.TargetPort.StrVal) {
			errs = append(errs, meta.Invalid(path+".targetPort", p.TargetPort.StrVal, msg))
		}
	} else {
		for _, msg := range meta.IsValidPortNum(int(p.TargetPort.IntVal)) {
			errs = append(errs, meta.Invalid(path+".targetPort", p.TargetPort.IntVal, msg))
		}
	}
	if p.NodePort != 0 {
		if svcType != ServiceTypeNodePort && svcType != ServiceTypeLoadBalancer {
			errs = append(errs, meta.Forbidden(path+".nodePort", "may not be used when `type` is '"+svcType+"'"))
		} else {
			for _, msg := range meta.IsValidPortNum(int(p.NodePort)) {
				errs = append(errs, meta.Invalid(path+".nodePort", p.NodePort, msg))
			}
		}
	}
	return errs
}

func validateProtocol(proto, path string) meta.FieldErrors {
	switch proto {
	case "":
		return meta.FieldErrors{meta.Required(path, "")}
	case ProtocolTCP, ProtocolUDP, ProtocolSCTP:
		return nil
	}
	return meta.FieldErrors{meta.NotSupported(path, proto, supportedProtocols)}
}

// ValidateServiceUpdate checks an update: immutable metadata, everything
// ValidateService checks, and that an allocated clusterIP does not change
// (unless the Service becomes or was ExternalName).
func ValidateServiceUpdate(s, old *Service) meta.FieldErrors {
	errs := validateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta)
	if s.Spec.Type != ServiceTypeExternalName && old.Spec.Type != ServiceTypeExternalName &&
		old.Spec.ClusterIP != "" && s.Spec.ClusterIP != old.Spec.ClusterIP {
		// Upstream reports the whole clusterIPs list as the value, printed
		// []string{"10.96.0.5"} (measured: svc-update-clusterip-immutable).
		errs = append(errs, meta.Invalid("spec.clusterIPs[0]", clusterIPsOf(s), "may not change once set"))
	}
	return append(errs, ValidateService(s)...)
}

// ValidateEndpoints checks Endpoints: the name is a DNS-1123 subdomain;
// each subset has addresses and ports; IPs are valid; ports have a valid
// number, protocol and (with several ports) a unique name.
//
// Unlike upstream, loopback addresses (127.0.0.0/8, ::1) are ALLOWED:
// aggsim is a single-machine sandbox whose backends listen on loopback,
// while kube-apiserver answers `may not be in the loopback range
// (127.0.0.0/8, ::1/128)`.
func ValidateEndpoints(e *Endpoints) meta.FieldErrors {
	errs := validateObjectMeta(&e.ObjectMeta, true, meta.NameIsDNSSubdomain)
	for i, ss := range e.Subsets {
		path := fmt.Sprintf("subsets[%d]", i)
		if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
			errs = append(errs, meta.Required(path, "must specify `addresses` or `notReadyAddresses`"))
		}
		for j := range ss.Addresses {
			errs = append(errs, validateEndpointAddress(&ss.Addresses[j], fmt.Sprintf("%s.addresses[%d]", path, j))...)
		}
		for j := range ss.NotReadyAddresses {
			errs = append(errs, validateEndpointAddress(&ss.NotReadyAddresses[j], fmt.Sprintf("%s.notReadyAddresses[%d]", path, j))...)
		}
		// Upstream accepts two ports of one subset with the same name
		// (measured: ep-invalid, 201 for ports "a":1 and "a":2).
		for j, p := range ss.Ports {
			errs = append(errs, validatePort(p.Name, p.Port, p.Protocol, len(ss.Ports) > 1, nil, fmt.Sprintf("%s.ports[%d]", path, j))...)
		}
	}
	return errs
}

func validateEndpointAddress(a *EndpointAddress, path string) meta.FieldErrors {
	var errs meta.FieldErrors
	for _, msg := range isValidIPForLegacyField(a.IP) {
		errs = append(errs, meta.Invalid(path+".ip", a.IP, msg))
	}
	if a.Hostname != "" {
		for _, msg := range meta.IsDNS1123Label(a.Hostname) {
			errs = append(errs, meta.Invalid(path+".hostname", a.Hostname, msg))
		}
	}
	if a.NodeName != nil && *a.NodeName != "" {
		for _, msg := range meta.IsDNS1123Subdomain(*a.NodeName) {
			errs = append(errs, meta.Invalid(path+".nodeName", *a.NodeName, msg))
		}
	}
	// Upstream checks the address a second time (ValidateNonSpecialIP), so a
	// bad IP has two causes; loopback stays allowed here (see above).
	return append(errs, validateNonSpecialIP(a.IP, path+".ip", true)...)
}

// ValidateEndpointsUpdate checks an update.
func ValidateEndpointsUpdate(e, old *Endpoints) meta.FieldErrors {
	errs := validateObjectMetaUpdate(&e.ObjectMeta, &old.ObjectMeta)
	return append(errs, ValidateEndpoints(e)...)
}

// MaxConfigMapSize is the largest total of keys and values a ConfigMap may
// hold (1 MiB), as upstream's corevalidation.MaxSecretSize.
const MaxConfigMapSize = 1 << 20

// ValidateConfigMap checks a ConfigMap: the name is a DNS-1123 subdomain;
// every key is a valid config key, unique across data and binaryData; the
// total size is at most 1 MiB.
func ValidateConfigMap(c *ConfigMap) meta.FieldErrors {
	errs := validateObjectMeta(&c.ObjectMeta, true, meta.NameIsDNSSubdomain)
	total := 0
	for _, k := range slices.Sorted(maps.Keys(c.Data)) {
		for _, msg := range meta.IsConfigMapKey(k) {
			errs = append(errs, meta.Invalid("data["+k+"]", k, msg))
		}
		total += len(k) + len(c.Data[k])
	}
	bkeys := make([]string, 0, len(c.BinaryData))
	for k := range c.BinaryData {
		bkeys = append(bkeys, k)
	}
	sort.Strings(bkeys)
	for _, k := range bkeys {
		for _, msg := range meta.IsConfigMapKey(k) {
			errs = append(errs, meta.Invalid("binaryData["+k+"]", k, msg))
		}
		if _, dup := c.Data[k]; dup {
			errs = append(errs, meta.Invalid("data["+k+"]", k, "duplicate of key present in binaryData"))
		}
		total += len(k) + len(c.BinaryData[k])
	}
	if total > MaxConfigMapSize {
		// Upstream names the whole object with the root path, printed "[]"
		// (measured: cm-large-body).
		errs = append(errs, &meta.FieldError{Type: meta.FieldValueTooLong, Field: "[]", Detail: fmt.Sprintf("may not be more than %d bytes", MaxConfigMapSize)})
	}
	return errs
}

// ValidateConfigMapUpdate checks an update: immutable metadata, the
// ConfigMap rules, and that an immutable ConfigMap keeps its data and
// stays immutable.
func ValidateConfigMapUpdate(c, old *ConfigMap) meta.FieldErrors {
	errs := validateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta)
	if old.Immutable != nil && *old.Immutable {
		if c.Immutable == nil || !*c.Immutable {
			errs = append(errs, meta.Forbidden("immutable", "field is immutable when `immutable` is set"))
		}
		if !equalStringMaps(c.Data, old.Data) {
			errs = append(errs, meta.Forbidden("data", "field is immutable when `immutable` is set"))
		}
		if !equalBytesMaps(c.BinaryData, old.BinaryData) {
			errs = append(errs, meta.Forbidden("binaryData", "field is immutable when `immutable` is set"))
		}
	}
	return append(errs, ValidateConfigMap(c)...)
}

func equalStringMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func equalBytesMaps(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || string(w) != string(v) {
			return false
		}
	}
	return true
}

// standardFinalizers are the finalizer names core objects may use without
// a domain prefix (core helper IsStandardFinalizerName).
var standardFinalizers = []string{FinalizerKubernetes, meta.FinalizerOrphanDependents, meta.FinalizerDeleteDependents}

// validateObjectMetaUpdate is core's ValidateObjectMetaUpdate:
// meta.ValidateObjectMetaUpdate plus the finalizer rules of
// validateObjectMeta.
func validateObjectMetaUpdate(m, old *meta.ObjectMeta) meta.FieldErrors {
	errs := meta.ValidateObjectMetaUpdate(m, old)
	if old.DeletionTimestamp != nil {
		// core checks the finalizers of an object being deleted a second
		// time, so upstream's Status lists that cause twice.
		for _, e := range errs {
			if e.Field == "metadata.finalizers" && e.Type == meta.FieldValueForbidden {
				errs = append(errs, e)
				break
			}
		}
	}
	return append(errs, validateKubeFinalizers(m)...)
}

// validateObjectMeta is core's ValidateObjectMeta: meta.ValidateObjectMeta
// plus, for each finalizer, the rule that a name without a '/' must be a
// standard one
// (validateKubeFinalizerName).
func validateObjectMeta(m *meta.ObjectMeta, namespaced bool, nameFn func(string, bool) []string) meta.FieldErrors {
	return append(meta.ValidateObjectMeta(m, namespaced, nameFn), validateKubeFinalizers(m)...)
}

// validateKubeFinalizers checks each finalizer at its index: one without a
// '/' must be a standard one (validateKubeFinalizerName; the qualified-name
// check itself is meta.ValidateFinalizers').
func validateKubeFinalizers(m *meta.ObjectMeta) meta.FieldErrors {
	var errs meta.FieldErrors
	for i, f := range m.Finalizers {
		path := fmt.Sprintf("metadata.finalizers[%d]", i)
		if !strings.Contains(f, "/") && !slices.Contains(standardFinalizers, f) {
			errs = append(errs, meta.Invalid(path, f, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return errs
}

// clusterIPsOf is the clusterIPs list of s as upstream sees it after
// normalising (clusterIPs[0] follows clusterIP): the value upstream
// reports when the primary cluster IP changes.
func clusterIPsOf(s *Service) []string {
	if len(s.Spec.ClusterIPs) > 0 && s.Spec.ClusterIPs[0] == s.Spec.ClusterIP {
		return s.Spec.ClusterIPs
	}
	if s.Spec.ClusterIP == "" {
		return []string{}
	}
	return append([]string{s.Spec.ClusterIP}, s.Spec.ClusterIPs[min(1, len(s.Spec.ClusterIPs)):]...)
}

// ValidateServiceAccount checks a ServiceAccount: its metadata, the name a
// DNS-1123 subdomain (validation.ValidateServiceAccount in
// pkg/apis/core/validation).
func ValidateServiceAccount(sa *ServiceAccount) meta.FieldErrors {
	return validateObjectMeta(&sa.ObjectMeta, true, meta.NameIsDNSSubdomain)
}

// ValidateServiceAccountUpdate checks an update: immutable metadata, then
// the ServiceAccount rules (validation.ValidateServiceAccountUpdate).
func ValidateServiceAccountUpdate(sa, old *ServiceAccount) meta.FieldErrors {
	errs := validateObjectMetaUpdate(&sa.ObjectMeta, &old.ObjectMeta)
	return append(errs, ValidateServiceAccount(sa)...)
}
