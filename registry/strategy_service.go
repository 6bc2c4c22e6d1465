package registry

import (
	"hash/fnv"
	"net/netip"
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
// ClusterIPs and NodePorts are derived from a hash of namespace/name
// (ServiceClusterIPRange, ServiceNodePortRange): deterministic, and unique
// in practice, though, unlike upstream's allocator, two Services could in
// principle hash to the same address; nothing in aggsim routes by it.
// The zero value is ready to use.
type ServiceStrategy struct {
	// Now is the clock for AGE cells; nil means time.Now.
	Now func() time.Time
}

// The ranges aggsim allocates from, kube-apiserver's defaults.
const (
	ServiceClusterIPRange = "10.96.0.0/12"
	ServiceNodePortMin    = 30000
	ServiceNodePortMax    = 32767
)

var (
	_ Strategy              = ServiceStrategy{}
	_ DeletedObjectReturner = ServiceStrategy{}
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

// PrepareForCreate clears status, defaults, and allocates the clusterIP,
// ipFamilies and nodePorts.
func (ServiceStrategy) PrepareForCreate(obj meta.Object) {
	s := obj.(*core.Service)
	s.Status = core.ServiceStatus{}
	core.DefaultService(s)
	allocateService(s)
}

// PrepareForUpdate keeps the old status, carries over the allocated
// clusterIP and nodePorts when the client left them out (as upstream's
// patchAllocatedValues), releases them when the Service becomes
// ExternalName, and bumps generation on spec change.
func (ServiceStrategy) PrepareForUpdate(obj, old meta.Object) {
	s, o := obj.(*core.Service), old.(*core.Service)
	s.Status = o.Status
	core.DefaultService(s)
	if s.Spec.Type == core.ServiceTypeExternalName {
		if o.Spec.Type != core.ServiceTypeExternalName && s.Spec.ClusterIP == o.Spec.ClusterIP {
			s.Spec.ClusterIP, s.Spec.ClusterIPs = "", nil
			s.Spec.IPFamilies, s.Spec.IPFamilyPolicy = nil, nil
		}
	} else if o.Spec.Type != core.ServiceTypeExternalName && s.Spec.ClusterIP == "" && len(s.Spec.ClusterIPs) == 0 {
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
		sp.ClusterIP = hashClusterIP(s.Namespace + "/" + s.Name)
		sp.ClusterIPs = []string{sp.ClusterIP}
	case len(sp.ClusterIPs) == 0:
		sp.ClusterIPs = []string{sp.ClusterIP}
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

// hashClusterIP maps key into 10.96.0.0/12, skipping the network address
// and 10.96.0.1 (the "kubernetes" Service's address upstream).
func hashClusterIP(key string) string {
	const size = 1 << 20 // a /12 has 2^20 addresses
	off := 2 + hash32(key)%(size-3)
	base := uint32(10)<<24 | uint32(96)<<16
	v := base + off
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}).String()
}

// PrepareForStatusUpdate keeps the old spec and metadata.
func (ServiceStrategy) PrepareForStatusUpdate(obj, old meta.Object) {
	s, o := obj.(*core.Service), old.(*core.Service)
	s.Spec = o.Spec
	keepMetadataForStatus(&s.ObjectMeta, &o.ObjectMeta)
}

// Validate runs ValidateService.
func (ServiceStrategy) Validate(obj meta.Object) meta.FieldErrors {
	return core.ValidateService(obj.(*core.Service))
}

// ValidateUpdate runs ValidateServiceUpdate.
func (ServiceStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors {
	return core.ValidateServiceUpdate(obj.(*core.Service), old.(*core.Service))
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
