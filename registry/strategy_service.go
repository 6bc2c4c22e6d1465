package registry

import (
	"fmt"
	"hash/fnv"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// ServiceStrategy is the Strategy of core/v1 services
// (kubernetes/pkg/registry/core/service/strategy.go plus the defaulting
// of core/v1 defaults.go and the allocation of service/storage/alloc.go).
// Cluster IPs are allocated as upstream's allocator answers (Allocator):
// a requested address another Service holds is refused, an automatic one
// is the first free address from a start derived from a hash of
// namespace/name, in the upper part of ServiceClusterIPRange first (the
// lower 256 addresses are upstream's static band, preferred for requested
// addresses). NodePorts are still derived from a hash of
// namespace/name/port/protocol (ServiceNodePortMin..ServiceNodePortMax)
// and are not checked for collisions; nothing in aggsim routes by them.
// The zero value is ready to use.
type ServiceStrategy struct {
	// Now is the clock for AGE cells; nil means time.Now.
	Now func() time.Time
}

// The ranges aggsim allocates from: the service range the reference
// kube-apiserver of the differential suite runs with
// (--service-cluster-ip-range=10.96.0.0/16) and kube-apiserver's default
// node-port range.
const (
	ServiceClusterIPRange = "10.96.0.0/16"
	ServiceNodePortMin    = 30000
	ServiceNodePortMax    = 32767
)

var (
	_ Strategy              = ServiceStrategy{}
	_ DeletedObjectReturner = ServiceStrategy{}
	_ StatusValidator       = ServiceStrategy{}
	_ Allocator             = ServiceStrategy{}
	_ Warner                = ServiceStrategy{}
)

// Info describes services as /api/v1 discovery does (short name svc,
// category all, the proxy and status subresources).
func (ServiceStrategy) Info() ResourceInfo {
	return ResourceInfo{
		Group: GroupCore, Version: VersionV1,
		Kind: "Service", ListKind: "ServiceList",
		Resource: "services", Singular: "service",
		ShortNames:  []string{"svc"},
		Categories:  []string{"all"},
		Namespaced:  true,
		Verbs:       []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
		HasStatus:   true,
		StatusVerbs: []string{"get", "patch", "update"},
		Subresources: []SubresourceInfo{{Name: "proxy", Kind: "ServiceProxyOptions",
			Verbs: []string{"create", "delete", "get", "patch", "update"}}},
	}
}

// New returns an empty *Service.
func (ServiceStrategy) New() meta.Object { return &core.Service{} }

// PrepareForCreate clears status, defaults, and fills ipFamilies,
// ipFamilyPolicy and nodePorts; the clusterIP is the store's to allocate
// (Allocate).
func (ServiceStrategy) PrepareForCreate(obj meta.Object) {
	s := obj.(*core.Service)
	s.Status = core.ServiceStatus{}
	core.DefaultService(s)
	normalizeClusterIPs(s)
	if len(allocationErrors(s, nil)) == 0 {
		allocateService(s)
	}
}

// KubernetesServiceNamespace and KubernetesServiceName name the Service
// every kube-apiserver keeps for itself; it holds the first address of
// ServiceClusterIPRange (KubernetesServiceIP).
const (
	KubernetesServiceNamespace = "default"
	KubernetesServiceName      = "kubernetes"
	KubernetesServiceIP        = "10.96.0.1"
)

// needsClusterIP reports whether s is a Service that gets a cluster IP
// (neither ExternalName nor headless).
func needsClusterIP(s *core.Service) bool {
	return s.Spec.Type != core.ServiceTypeExternalName && s.Spec.ClusterIP != core.ClusterIPNone
}

// Allocates is true for a create of a Service that gets a cluster IP and
// for an update that gives one to a Service that had none (an
// ExternalName Service changing type); Services keep their address
// otherwise (Allocator).
func (ServiceStrategy) Allocates(obj, old meta.Object) bool {
	s := obj.(*core.Service)
	if !needsClusterIP(s) {
		return false
	}
	if old == nil {
		return true
	}
	return len(old.(*core.Service).Spec.ClusterIPs) == 0
}

// Allocate answers the allocator's errors (allocationErrors), refuses a
// requested cluster IP that a Service of stored holds (`failed to allocate
// IP <ip>: provided IP is already allocated`, except under dryRun, as
// upstream's dry-run allocator does not look), and else gives a Service
// without one the first free address (see ServiceStrategy) (Allocator).
// A range with no free address left is `failed to allocate a serviceIP:
// range is full`.
func (ServiceStrategy) Allocate(obj, old meta.Object, stored []meta.Object, dryRun bool) meta.FieldErrors {
	s := obj.(*core.Service)
	var o *core.Service
	if old != nil {
		o = old.(*core.Service)
	}
	if errs := allocationErrors(s, o); len(errs) > 0 {
		return errs
	}
	used := make(map[netip.Addr]bool, len(stored)+1)
	if s.Namespace != KubernetesServiceNamespace || s.Name != KubernetesServiceName {
		// The "kubernetes" Service holds it, even while it is missing
		// (upstream recreates it at once).
		used[netip.MustParseAddr(KubernetesServiceIP)] = true
	}
	for _, st := range stored {
		for _, ip := range st.(*core.Service).Spec.ClusterIPs {
			if a, ok := core.ParseIPSloppy(ip); ok {
				used[a.Unmap()] = true
			}
		}
	}
	if s.Spec.ClusterIP == "" {
		ip, ok := freeClusterIP(s.Namespace+"/"+s.Name, used)
		if !ok {
			return meta.FieldErrors{meta.Invalid("spec.clusterIPs", clusterIPList(nil), "failed to allocate a serviceIP: range is full")}
		}
		s.Spec.ClusterIP, s.Spec.ClusterIPs = ip, []string{ip}
		allocateService(s)
		return nil
	}
	if dryRun {
		return nil
	}
	for _, ip := range s.Spec.ClusterIPs {
		if a, ok := core.ParseIPSloppy(ip); ok && used[a.Unmap()] {
			return meta.FieldErrors{meta.Invalid("spec.clusterIPs", clusterIPList(s.Spec.ClusterIPs), "failed to allocate IP "+ip+": provided IP is already allocated")}
		}
	}
	return nil
}

// WarningsOnCreate are core.ServiceWarnings (Warner).
func (ServiceStrategy) WarningsOnCreate(obj meta.Object) []string {
	return core.ServiceWarnings(obj.(*core.Service))
}

// WarningsOnUpdate are core.ServiceWarnings of the new Service, on every
// update as upstream (Warner).
func (ServiceStrategy) WarningsOnUpdate(obj, _ meta.Object) []string {
	return core.ServiceWarnings(obj.(*core.Service))
}

// normalizeClusterIPs copies a clusterIP the client set into an empty
// clusterIPs, as upstream's strategy does before allocating.
func normalizeClusterIPs(s *core.Service) {
	if s.Spec.ClusterIP != "" && len(s.Spec.ClusterIPs) == 0 {
		s.Spec.ClusterIPs = []string{s.Spec.ClusterIP}
	}
}

// allocationErrors are the errors upstream's allocator answers before any
// other validation, and alone (service/storage/alloc.go: the
// clusterIP-related checks, then the IP families this single-stack IPv4
// cluster serves, then the allocation of the requested addresses in
// ServiceClusterIPRange). old is nil on create; on update only addresses
// old did not hold are allocated.
func allocationErrors(s, old *core.Service) meta.FieldErrors {
	if errs := core.ValidateServiceClusterIPs(s); len(errs) > 0 {
		return errs
	}
	sp := &s.Spec
	if sp.Type == core.ServiceTypeExternalName || headlessSelectorless(s) {
		return nil
	}
	if sp.IPFamilyPolicy != nil && *sp.IPFamilyPolicy == core.IPFamilyPolicyRequireDualStack {
		return meta.FieldErrors{meta.Invalid("spec.ipFamilyPolicy", *sp.IPFamilyPolicy, "this cluster is not configured for dual-stack services")}
	}
	if len(sp.IPFamilies) > 1 && (sp.IPFamilyPolicy == nil || *sp.IPFamilyPolicy == core.IPFamilyPolicySingleStack) {
		return meta.FieldErrors{meta.Invalid("spec.ipFamilyPolicy", core.IPFamilyPolicySingleStack, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified")}
	}
	for i, f := range sp.IPFamilies {
		if f == core.IPv6Protocol {
			return meta.FieldErrors{meta.Invalid(fmt.Sprintf("spec.ipFamilies[%d]", i), f, "not configured on this cluster")}
		}
	}
	for i, ip := range sp.ClusterIPs {
		if ip == core.ClusterIPNone {
			continue
		}
		if a, ok := core.ParseIPSloppy(ip); ok && a.Is6() && !a.Is4In6() {
			return meta.FieldErrors{meta.Invalid(fmt.Sprintf("spec.clusterIPs[%d]", i), clusterIPList(sp.ClusterIPs), "IPv6 is not configured on this cluster")}
		}
	}
	if old != nil && len(old.Spec.ClusterIPs) > 0 {
		return nil // allocated before; immutability is ValidateServiceUpdate's
	}
	for _, ip := range sp.ClusterIPs {
		if ip == core.ClusterIPNone {
			continue
		}
		a, _ := core.ParseIPSloppy(ip)
		rng := netip.MustParsePrefix(ServiceClusterIPRange)
		a4 := a.Unmap()
		switch {
		case !rng.Contains(a4) || a4 == rng.Addr() || a4 == lastAddr(rng):
			return meta.FieldErrors{meta.Invalid("spec.clusterIPs", clusterIPList(sp.ClusterIPs), "failed to allocate IP "+ip+": the provided network does not match the current range")}
		}
	}
	return nil
}

// headlessSelectorless reports a headless Service without a selector.
func headlessSelectorless(s *core.Service) bool {
	return s.Spec.ClusterIP == core.ClusterIPNone && len(s.Spec.Selector) == 0
}

// clusterIPList prints as upstream's %#v of []string.
type clusterIPList []string

// String prints []string{"a", "b"}.
func (l clusterIPList) String() string { return fmt.Sprintf("%#v", []string(l)) }

// lastAddr is the broadcast address of an IPv4 prefix.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	v |= 1<<(32-p.Bits()) - 1
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// PrepareForUpdate keeps the old status, carries over the allocated
// clusterIP and nodePorts when the client left them out (as upstream's
// patchAllocatedValues), releases them when the Service becomes
// ExternalName, and bumps generation on spec change.
func (ServiceStrategy) PrepareForUpdate(obj, old meta.Object) {
	s, o := obj.(*core.Service), old.(*core.Service)
	s.Status = o.Status
	core.DefaultService(s)
	dropTypeDependentFields(s, o)
	if s.Spec.Type != core.ServiceTypeExternalName && o.Spec.Type != core.ServiceTypeExternalName && s.Spec.ClusterIP == "" && len(s.Spec.ClusterIPs) == 0 {
		s.Spec.ClusterIP = o.Spec.ClusterIP
		s.Spec.ClusterIPs = append([]string(nil), o.Spec.ClusterIPs...)
		if len(s.Spec.IPFamilies) == 0 {
			s.Spec.IPFamilies = append([]string(nil), o.Spec.IPFamilies...)
		}
		if s.Spec.IPFamilyPolicy == nil {
			s.Spec.IPFamilyPolicy = o.Spec.IPFamilyPolicy
		}
	}
	if s.Spec.Type == core.ServiceTypeNodePort || s.Spec.Type == core.ServiceTypeLoadBalancer {
		for i := range s.Spec.Ports {
			p := &s.Spec.Ports[i]
			for _, op := range o.Spec.Ports {
				if p.NodePort == 0 && op.Port == p.Port && op.Protocol == p.Protocol {
					p.NodePort = op.NodePort
				}
			}
		}
	}
	allocateService(s)
}

// dropTypeDependentFields clears, when a Service changes type, the fields
// the new type does not use and the client left as they were (upstream's
// dropTypeDependentFields in service/strategy.go): clusterIPs, families
// and policy when it becomes ExternalName; nodePorts and
// healthCheckNodePort when it stops being NodePort/LoadBalancer;
// allocateLoadBalancerNodePorts and loadBalancerClass when it stops being
// LoadBalancer; externalTrafficPolicy when it stops being externally
// accessible; internalTrafficPolicy when it becomes ExternalName; and the
// load-balancer status of anything but a LoadBalancer.
func dropTypeDependentFields(s, o *core.Service) {
	sp, op := &s.Spec, &o.Spec
	if op.Type != core.ServiceTypeExternalName && sp.Type == core.ServiceTypeExternalName {
		if sp.ClusterIP == op.ClusterIP && slices.Equal(sp.ClusterIPs, op.ClusterIPs) {
			sp.ClusterIP, sp.ClusterIPs = "", nil
		}
		if slices.Equal(sp.IPFamilies, op.IPFamilies) {
			sp.IPFamilies = nil
		}
		if equalStringPtr(sp.IPFamilyPolicy, op.IPFamilyPolicy) {
			sp.IPFamilyPolicy = nil
		}
		if equalStringPtr(sp.InternalTrafficPolicy, op.InternalTrafficPolicy) {
			sp.InternalTrafficPolicy = nil
		}
	}
	needsNodePort := func(t string) bool { return t == core.ServiceTypeNodePort || t == core.ServiceTypeLoadBalancer }
	if needsNodePort(op.Type) && !needsNodePort(sp.Type) {
		same := len(sp.Ports) == len(op.Ports)
		for i := 0; same && i < len(sp.Ports); i++ {
			same = sp.Ports[i].NodePort == op.Ports[i].NodePort
		}
		if same {
			for i := range sp.Ports {
				sp.Ports[i].NodePort = 0
			}
		}
		if sp.HealthCheckNodePort == op.HealthCheckNodePort {
			sp.HealthCheckNodePort = 0
		}
	}
	if op.Type == core.ServiceTypeLoadBalancer && sp.Type != core.ServiceTypeLoadBalancer {
		if sp.AllocateLoadBalancerNodePorts != nil && op.AllocateLoadBalancerNodePorts != nil && *sp.AllocateLoadBalancerNodePorts == *op.AllocateLoadBalancerNodePorts {
			sp.AllocateLoadBalancerNodePorts = nil
		}
		if equalStringPtr(sp.LoadBalancerClass, op.LoadBalancerClass) {
			sp.LoadBalancerClass = nil
		}
	}
	if core.ExternallyAccessible(o) && !core.ExternallyAccessible(s) && sp.ExternalTrafficPolicy == op.ExternalTrafficPolicy {
		sp.ExternalTrafficPolicy = ""
	}
	if sp.Type != core.ServiceTypeLoadBalancer {
		s.Status.LoadBalancer = core.LoadBalancerStatus{}
	}
}

func equalStringPtr(a, b *string) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// allocateService fills clusterIP(s), ipFamilies, ipFamilyPolicy and
// nodePorts that are still empty. ExternalName Services get none.
func allocateService(s *core.Service) {
	sp := &s.Spec
	if sp.Type == core.ServiceTypeExternalName {
		return
	}
	switch {
	case sp.ClusterIP == "" && len(sp.ClusterIPs) > 0:
		sp.ClusterIP = sp.ClusterIPs[0]
	case sp.ClusterIP == "":
		// Allocate picks it.
	case len(sp.ClusterIPs) == 0:
		sp.ClusterIPs = []string{sp.ClusterIP}
	}
	if headlessSelectorless(s) {
		// Upstream's special case: such a Service gets both families
		// (RequireDualStack unless the client chose a policy), even on a
		// single-stack cluster.
		if sp.IPFamilyPolicy == nil {
			p := core.IPFamilyPolicyRequireDualStack
			sp.IPFamilyPolicy = &p
		}
		if len(sp.IPFamilies) == 0 {
			sp.IPFamilies = []string{core.IPv4Protocol}
			if *sp.IPFamilyPolicy != core.IPFamilyPolicySingleStack {
				sp.IPFamilies = append(sp.IPFamilies, core.IPv6Protocol)
			}
		}
	}
	if len(sp.IPFamilies) == 0 {
		family := core.IPv4Protocol
		if a, err := netip.ParseAddr(sp.ClusterIP); err == nil && a.Is6() && !a.Is4In6() {
			family = core.IPv6Protocol
		}
		sp.IPFamilies = []string{family}
	}
	if sp.IPFamilyPolicy == nil {
		p := core.IPFamilyPolicySingleStack
		sp.IPFamilyPolicy = &p
	}
	if sp.Type == core.ServiceTypeNodePort || (sp.Type == core.ServiceTypeLoadBalancer && (sp.AllocateLoadBalancerNodePorts == nil || *sp.AllocateLoadBalancerNodePorts)) {
		for i := range sp.Ports {
			if sp.Ports[i].NodePort == 0 {
				key := s.Namespace + "/" + s.Name + "/" + strconv.Itoa(int(sp.Ports[i].Port)) + "/" + sp.Ports[i].Protocol
				sp.Ports[i].NodePort = int32(ServiceNodePortMin + hash32(key)%(ServiceNodePortMax-ServiceNodePortMin+1))
			}
		}
	}
}

func hash32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// clusterIPStaticBand is the number of addresses at the start of
// ServiceClusterIPRange that automatic allocation uses only when the rest
// is full, as upstream's allocator reserves min(max(16, size/16), 256)
// addresses for requested ones (KEP-3070).
const clusterIPStaticBand = 256

// freeClusterIP returns the first address of ServiceClusterIPRange not in
// used, probing from an offset derived from key in the dynamic band
// (wrapping within it), then the static band; never the network,
// broadcast or 10.96.0.1 (the "kubernetes" Service's) addresses. ok is
// false when the range is full. Its cost grows with the number of used
// addresses only when they are contiguous from the start.
func freeClusterIP(key string, used map[netip.Addr]bool) (string, bool) {
	const size = 1 << 16 // a /16 has 2^16 addresses
	base := uint32(10)<<24 | uint32(96)<<16
	addr := func(off uint32) netip.Addr {
		v := base + off
		return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
	}
	dynamic := uint32(size - 1 - clusterIPStaticBand) // offsets 256 .. size-2
	start := hash32(key) % dynamic
	for i := range dynamic {
		off := clusterIPStaticBand + (start+i)%dynamic
		if a := addr(off); !used[a] {
			return a.String(), true
		}
	}
	for off := uint32(2); off < clusterIPStaticBand; off++ {
		if a := addr(off); !used[a] {
			return a.String(), true
		}
	}
	return "", false
}

// PrepareForStatusUpdate keeps the old spec and metadata.
func (ServiceStrategy) PrepareForStatusUpdate(obj, old meta.Object) {
	s, o := obj.(*core.Service), old.(*core.Service)
	s.Spec = o.Spec
	keepMetadataForStatus(&s.ObjectMeta, &o.ObjectMeta)
}

// Default applies core/v1 defaulting (Defaulter).
func (ServiceStrategy) Default(obj meta.Object) { core.DefaultService(obj.(*core.Service)) }

// ListMapKeys: ports are keyed by port and protocol (FieldSchemaProvider).
func (ServiceStrategy) ListMapKeys() map[string][]string {
	return map[string][]string{"spec.ports": {"port", "protocol"}}
}

// AtomicMaps: spec.selector is +mapType=atomic.
func (ServiceStrategy) AtomicMaps() []string { return []string{"spec.selector"} }

// Validate answers the allocator's errors alone when there are any (as
// upstream, whose allocator runs before validation), else runs
// ValidateService.
func (ServiceStrategy) Validate(obj meta.Object) meta.FieldErrors {
	s := obj.(*core.Service)
	if errs := allocationErrors(s, nil); len(errs) > 0 {
		return errs
	}
	return core.ValidateService(s)
}

// ValidateUpdate answers the allocator's errors alone when there are any,
// else runs ValidateServiceUpdate.
func (ServiceStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors {
	s, o := obj.(*core.Service), old.(*core.Service)
	if errs := allocationErrors(s, o); len(errs) > 0 {
		return errs
	}
	return core.ValidateServiceUpdate(s, o)
}

// ValidateStatusUpdate runs ValidateServiceStatusUpdate.
func (ServiceStrategy) ValidateStatusUpdate(obj, old meta.Object) meta.FieldErrors {
	return core.ValidateServiceStatusUpdate(obj.(*core.Service), old.(*core.Service))
}

// Canonicalize does nothing for Services.
func (ServiceStrategy) Canonicalize(meta.Object) {}

// TableColumns are NAME, TYPE, CLUSTER-IP, EXTERNAL-IP, PORT(S), AGE and,
// at priority 1 (-o wide), SELECTOR, as kubectl's service printer.
func (ServiceStrategy) TableColumns() []meta.TableColumnDefinition {
	return []meta.TableColumnDefinition{
		nameColumn(),
		stringColumn("Type", "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer."),
		stringColumn("Cluster-IP", "clusterIP is the IP address of the service and is usually assigned randomly."),
		stringColumn("External-IP", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service."),
		stringColumn("Port(s)", "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"),
		ageColumn(),
		{Name: "Selector", Type: "string", Priority: 1, Description: "Route service traffic to pods with label keys and values matching this selector."},
	}
}

// TableRow returns the cells kubectl prints for a Service.
func (st ServiceStrategy) TableRow(obj meta.Object) []any {
	s := obj.(*core.Service)
	clusterIP := s.Spec.ClusterIP
	if clusterIP == "" {
		clusterIP = "<none>"
	}
	return []any{s.Name, s.Spec.Type, clusterIP, serviceExternalIP(s), servicePorts(s.Spec.Ports),
		meta.TableAge(s.CreationTimestamp, nowOr(st.Now)), formatSelector(s.Spec.Selector)}
}

func serviceExternalIP(s *core.Service) string {
	switch s.Spec.Type {
	case core.ServiceTypeClusterIP, core.ServiceTypeNodePort:
		if len(s.Spec.ExternalIPs) > 0 {
			return strings.Join(s.Spec.ExternalIPs, ",")
		}
		return "<none>"
	case core.ServiceTypeLoadBalancer:
		var lb []string
		for _, in := range s.Status.LoadBalancer.Ingress {
			if in.IP != "" {
				lb = append(lb, in.IP)
			} else if in.Hostname != "" {
				lb = append(lb, in.Hostname)
			}
		}
		lbs := strings.Join(lb, ",")
		if len(lbs) > 16 {
			lbs = lbs[:13] + "..."
		}
		if len(s.Spec.ExternalIPs) > 0 {
			var all []string
			if lbs != "" {
				all = strings.Split(lbs, ",")
			}
			return strings.Join(append(all, s.Spec.ExternalIPs...), ",")
		}
		if lbs != "" {
			return lbs
		}
		return "<pending>"
	case core.ServiceTypeExternalName:
		return s.Spec.ExternalName
	}
	return "<unknown>"
}

func servicePorts(ports []core.ServicePort) string {
	if len(ports) == 0 {
		return "<none>"
	}
	pieces := make([]string, len(ports))
	for i, p := range ports {
		if p.NodePort > 0 {
			pieces[i] = strconv.Itoa(int(p.Port)) + ":" + strconv.Itoa(int(p.NodePort)) + "/" + p.Protocol
		} else {
			pieces[i] = strconv.Itoa(int(p.Port)) + "/" + p.Protocol
		}
	}
	return strings.Join(pieces, ",")
}

// formatSelector renders a map selector as "k=v,k2=v2" sorted by key, or
// "<none>".
func formatSelector(sel map[string]string) string {
	if len(sel) == 0 {
		return "<none>"
	}
	keys := make([]string, 0, len(sel))
	for k := range sel {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + sel[k]
	}
	return strings.Join(keys, ",")
}

// AllowCreateOnUpdate is true: PUT of a missing Service creates it.
func (ServiceStrategy) AllowCreateOnUpdate() bool { return true }

// AllowUnconditionalUpdate is true for Services.
func (ServiceStrategy) AllowUnconditionalUpdate() bool { return true }

// ReturnDeletedObject is true: DELETE answers with the Service.
func (ServiceStrategy) ReturnDeletedObject() bool { return true }

// SelectableFields adds spec.clusterIP and spec.type to name and
// namespace, the field selectors services support upstream (core/v1
// conversion.go).
func (ServiceStrategy) SelectableFields(obj meta.Object) map[string]string {
	svc := obj.(*core.Service)
	return map[string]string{"spec.clusterIP": svc.Spec.ClusterIP, "spec.type": svc.Spec.Type}
}
