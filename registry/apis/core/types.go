package core

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Wire types of the legacy core subset aggsim serves (core group "", v1):
// Namespace, Service, Endpoints and ConfigMap. Fields, JSON names and
// omitempty follow k8s.io/api/core/v1/types.go; fields aggsim never acts
// on are kept so that objects round-trip unchanged.

// Namespace is a named scope: names of namespaced objects are unique within
// their namespace.
// ---
// Namespace mirrors core/v1.Namespace (cluster-scoped).
type Namespace struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// What the namespace asks for: its finalizers.
	Spec NamespaceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// The namespace's lifecycle phase and conditions, written by the server.
	Status NamespaceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// NamespaceSpec is what a namespace asks for.
// ---
// NamespaceSpec mirrors core/v1.NamespaceSpec.
type NamespaceSpec struct {
	// Parties that must finish cleaning up before the namespace is removed;
	// a terminating namespace is deleted once the list is empty.
	// ---
	// Finalizers; "kubernetes" is added on create as upstream does.
	// +listType=atomic
	Finalizers []string `json:"finalizers,omitempty" protobuf:"bytes,1,rep,name=finalizers"`
}

// Namespace phases.
const (
	NamespaceActive      = "Active"
	NamespaceTerminating = "Terminating"
	// FinalizerKubernetes is the spec.finalizers entry every namespace gets.
	FinalizerKubernetes = "kubernetes"
	// LabelMetadataName is the label upstream sets to the namespace's name.
	LabelMetadataName = "kubernetes.io/metadata.name"
)

// NamespaceStatus is the observed state of a namespace.
// ---
// NamespaceStatus mirrors core/v1.NamespaceStatus.
type NamespaceStatus struct {
	// Active, or Terminating once deletion has begun.
	// +openapi:enum=Active
	// +openapi:enum=Terminating
	Phase string `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase"`
	// The namespace's current conditions, one per type.
	// +listType=map
	// +listMapKey=type
	Conditions []NamespaceCondition `json:"conditions,omitempty" patchMergeKey:"type" patchStrategy:"merge" protobuf:"bytes,2,rep,name=conditions"`
}

// NamespaceCondition is one observation of a namespace's state.
// ---
// NamespaceCondition mirrors core/v1.NamespaceCondition.
type NamespaceCondition struct {
	// The condition's type.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Whether the condition holds: True, False or Unknown.
	Status string `json:"status" protobuf:"bytes,2,opt,name=status"`
	// When the status last changed.
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// A CamelCase word for why the status last changed.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// A sentence for people about the last change.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// NamespaceList is a list of Namespaces.
type NamespaceList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The Namespace objects.
	Items []Namespace `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// Service types, protocols and policies (core/v1 constants).
const (
	ServiceTypeClusterIP    = "ClusterIP"
	ServiceTypeNodePort     = "NodePort"
	ServiceTypeLoadBalancer = "LoadBalancer"
	ServiceTypeExternalName = "ExternalName"

	ProtocolTCP  = "TCP"
	ProtocolUDP  = "UDP"
	ProtocolSCTP = "SCTP"

	ServiceAffinityNone     = "None"
	ServiceAffinityClientIP = "ClientIP"

	// ClusterIPNone marks a headless Service.
	ClusterIPNone = "None"

	IPv4Protocol = "IPv4"
	IPv6Protocol = "IPv6"

	IPFamilyPolicySingleStack      = "SingleStack"
	IPFamilyPolicyPreferDualStack  = "PreferDualStack"
	IPFamilyPolicyRequireDualStack = "RequireDualStack"
	TrafficPolicyCluster           = "Cluster"
	TrafficPolicyLocal             = "Local"
)

// Service gives the pods chosen by a label selector one stable virtual
// address and set of ports, or makes a DNS alias of an outside name.
// ---
// Service mirrors core/v1.Service (namespaced).
type Service struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// How the Service is exposed and where its traffic goes.
	Spec ServiceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// The Service's load balancer and conditions, written by the system;
	// read-only.
	Status ServiceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ServiceSpec is what the creator of a Service asks for.
// ---
// ServiceSpec mirrors core/v1.ServiceSpec.
type ServiceSpec struct {
	// The ports the Service exposes.
	// +listType=map
	// +listMapKey=port
	// +listMapKey=protocol
	Ports []ServicePort `json:"ports,omitempty" patchMergeKey:"port" patchStrategy:"merge" protobuf:"bytes,1,rep,name=ports"`
	// Traffic goes to the pods whose labels include all these pairs. Without
	// a selector the Service's endpoints are left to someone else to manage.
	// Ignored for ExternalName Services.
	// +mapType=atomic
	Selector map[string]string `json:"selector,omitempty" protobuf:"bytes,2,rep,name=selector"`
	// The Service's virtual IP, usually allocated at random; "None" makes a
	// headless Service.
	ClusterIP string `json:"clusterIP,omitempty" protobuf:"bytes,3,opt,name=clusterIP"`
	// The Service's virtual IPs, at most one per IP family; the first is
	// clusterIP.
	// +listType=atomic
	ClusterIPs []string `json:"clusterIPs,omitempty" protobuf:"bytes,18,rep,name=clusterIPs"`
	// How the Service is exposed: ClusterIP (the default), NodePort,
	// LoadBalancer or ExternalName.
	// +openapi:enum=ClusterIP
	// +openapi:enum=ExternalName
	// +openapi:enum=LoadBalancer
	// +openapi:enum=NodePort
	Type string `json:"type,omitempty" protobuf:"bytes,4,opt,name=type"`
	// Further IP addresses at which the cluster's nodes accept traffic for
	// the Service; Kubernetes does not manage them.
	// +listType=atomic
	ExternalIPs []string `json:"externalIPs,omitempty" protobuf:"bytes,5,rep,name=externalIPs"`
	// ClientIP keeps each client on one endpoint; None (the default) does
	// not.
	// +openapi:enum=ClientIP
	// +openapi:enum=None
	SessionAffinity string `json:"sessionAffinity,omitempty" protobuf:"bytes,7,opt,name=sessionAffinity"`
	// Deprecated: the IP address asked of the load balancer of a
	// LoadBalancer Service.
	LoadBalancerIP string `json:"loadBalancerIP,omitempty" protobuf:"bytes,8,opt,name=loadBalancerIP"`
	// The client CIDR ranges a LoadBalancer Service's load balancer lets
	// through, where the platform supports it.
	// +listType=atomic
	LoadBalancerSourceRanges []string `json:"loadBalancerSourceRanges,omitempty" protobuf:"bytes,9,rep,name=loadBalancerSourceRanges"`
	// The DNS name an ExternalName Service is an alias (CNAME) of; a
	// lowercase RFC 1123 hostname.
	ExternalName string `json:"externalName,omitempty" protobuf:"bytes,10,opt,name=externalName"`
	// Where traffic arriving at the Service's external addresses (node
	// ports, load balancer) goes: Cluster (any ready endpoint) or Local
	// (only endpoints on the receiving node). Only for NodePort and
	// LoadBalancer Services.
	// +openapi:enum=Cluster
	// +openapi:enum=Local
	ExternalTrafficPolicy string `json:"externalTrafficPolicy,omitempty" protobuf:"bytes,11,opt,name=externalTrafficPolicy"`
	// The node port on which a load balancer checks whether a node has local
	// endpoints, for a LoadBalancer Service with externalTrafficPolicy
	// Local.
	HealthCheckNodePort int32 `json:"healthCheckNodePort,omitempty" protobuf:"varint,12,opt,name=healthCheckNodePort"`
	// When true, the addresses of endpoints that are not ready are published
	// as if they were.
	PublishNotReadyAddresses bool `json:"publishNotReadyAddresses,omitempty" protobuf:"varint,13,opt,name=publishNotReadyAddresses"`
	// The settings of session affinity.
	SessionAffinityConfig *SessionAffinityConfig `json:"sessionAffinityConfig,omitempty" protobuf:"bytes,14,opt,name=sessionAffinityConfig"`
	// The IP families (IPv4, IPv6) of the Service's clusterIPs, in the same
	// order.
	// +listType=atomic
	// +openapi:enum=
	// +openapi:enum=IPv4
	// +openapi:enum=IPv6
	IPFamilies []string `json:"ipFamilies,omitempty" protobuf:"bytes,19,rep,name=ipFamilies"`
	// How many IP families the Service gets: SingleStack (one),
	// PreferDualStack (two where the cluster has both) or RequireDualStack
	// (two).
	// +openapi:enum=PreferDualStack
	// +openapi:enum=RequireDualStack
	// +openapi:enum=SingleStack
	IPFamilyPolicy *string `json:"ipFamilyPolicy,omitempty" protobuf:"bytes,17,opt,name=ipFamilyPolicy"`
	// Whether a LoadBalancer Service gets node ports; defaults to true.
	AllocateLoadBalancerNodePorts *bool `json:"allocateLoadBalancerNodePorts,omitempty" protobuf:"varint,20,opt,name=allocateLoadBalancerNodePorts"`
	// The load balancer implementation that serves a LoadBalancer Service;
	// absent, the platform's default one. Cannot be changed once set.
	LoadBalancerClass *string `json:"loadBalancerClass,omitempty" protobuf:"bytes,21,opt,name=loadBalancerClass"`
	// Where traffic to the clusterIP goes: Cluster (any ready endpoint, the
	// default) or Local (only endpoints on the sending node).
	// +openapi:enum=Cluster
	// +openapi:enum=Local
	InternalTrafficPolicy *string `json:"internalTrafficPolicy,omitempty" protobuf:"bytes,22,opt,name=internalTrafficPolicy"`
	// A preference for how traffic is spread over the endpoints, such as
	// PreferClose (nearby endpoints first).
	TrafficDistribution *string `json:"trafficDistribution,omitempty" protobuf:"bytes,23,opt,name=trafficDistribution"`
}

// SessionAffinityConfig holds the settings of session affinity.
// ---
// SessionAffinityConfig mirrors core/v1.SessionAffinityConfig.
type SessionAffinityConfig struct {
	// The settings of ClientIP affinity.
	ClientIP *ClientIPConfig `json:"clientIP,omitempty" protobuf:"bytes,1,opt,name=clientIP"`
}

// ClientIPConfig holds the settings of ClientIP session affinity.
// ---
// ClientIPConfig mirrors core/v1.ClientIPConfig; TimeoutSeconds defaults
// to 10800 (3 hours).
type ClientIPConfig struct {
	// How long, in seconds, a client stays with one endpoint, 1 to 86400;
	// defaults to 10800 (3 hours).
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty" protobuf:"varint,1,opt,name=timeoutSeconds"`
}

// ServicePort is one port a Service exposes.
// ---
// ServicePort mirrors core/v1.ServicePort.
type ServicePort struct {
	// The port's name, a DNS label unique in the Service; required when the
	// Service has more than one port.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// TCP (the default), UDP or SCTP.
	// +default="TCP"
	// +openapi:enum=SCTP
	// +openapi:enum=TCP
	// +openapi:enum=UDP
	Protocol string `json:"protocol,omitempty" protobuf:"bytes,2,opt,name=protocol"`
	// The application protocol spoken on the port, such as http or
	// kubernetes.io/h2c.
	AppProtocol *string `json:"appProtocol,omitempty" protobuf:"bytes,6,opt,name=appProtocol"`
	// The port number the Service exposes.
	Port int32 `json:"port" protobuf:"varint,3,opt,name=port"`
	// The port on the selected pods the traffic goes to, by number or by
	// container port name; defaults to port.
	TargetPort IntOrString `json:"targetPort,omitempty" protobuf:"bytes,4,opt,name=targetPort"`
	// The port on every node at which a NodePort or LoadBalancer Service is
	// reached; usually allocated by the system.
	NodePort int32 `json:"nodePort,omitempty" protobuf:"varint,5,opt,name=nodePort"`
}

// ServiceStatus is the observed state of a Service.
// ---
// ServiceStatus mirrors core/v1.ServiceStatus.
type ServiceStatus struct {
	// The load balancer in front of the Service, if any.
	LoadBalancer LoadBalancerStatus `json:"loadBalancer,omitempty" protobuf:"bytes,1,opt,name=loadBalancer"`
	// The Service's current conditions.
	// +listType=map
	// +listMapKey=type
	Conditions []meta.Condition `json:"conditions,omitempty" patchMergeKey:"type" patchStrategy:"merge" protobuf:"bytes,2,rep,name=conditions"`
}

// LoadBalancerStatus says where a load balancer can be reached.
// ---
// LoadBalancerStatus mirrors core/v1.LoadBalancerStatus.
type LoadBalancerStatus struct {
	// The load balancer's ingress points.
	// +listType=atomic
	Ingress []LoadBalancerIngress `json:"ingress,omitempty" protobuf:"bytes,1,rep,name=ingress"`
}

// LoadBalancerIngress is one address of a load balancer.
// ---
// LoadBalancerIngress mirrors core/v1.LoadBalancerIngress.
type LoadBalancerIngress struct {
	// The address, for a load balancer reached by IP.
	IP string `json:"ip,omitempty" protobuf:"bytes,1,opt,name=ip"`
	// The DNS name, for a load balancer reached by name.
	Hostname string `json:"hostname,omitempty" protobuf:"bytes,2,opt,name=hostname"`
	// How traffic for the IP reaches the nodes: VIP (still addressed to the
	// IP) or Proxy (readdressed to a node or pod by the load balancer).
	IPMode *string `json:"ipMode,omitempty" protobuf:"bytes,3,opt,name=ipMode"`
	// The state of the Service's ports on this ingress point.
	// +listType=atomic
	Ports []PortStatus `json:"ports,omitempty" protobuf:"bytes,4,rep,name=ports"`
}

// PortStatus is the state of one Service port on a load balancer.
// ---
// PortStatus mirrors core/v1.PortStatus.
type PortStatus struct {
	// The Service port's number.
	Port int32 `json:"port" protobuf:"varint,1,opt,name=port"`
	// The Service port's protocol: TCP, UDP or SCTP.
	// +openapi:enum=SCTP
	// +openapi:enum=TCP
	// +openapi:enum=UDP
	Protocol string `json:"protocol" protobuf:"bytes,2,opt,name=protocol"`
	// What is wrong with the port, as a CamelCase reason; absent when
	// nothing is.
	// +optional
	Error *string `json:"error,omitempty" protobuf:"bytes,3,opt,name=error"`
}

// ServiceList holds a list of services.
// ---
// ServiceList is a list of Services.
type ServiceList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The Service objects.
	Items []Service `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// IntOrStringType tells which member of an IntOrString is set.
type IntOrStringType int

// The two IntOrString kinds.
const (
	IntOrStringInt IntOrStringType = iota
	IntOrStringString
)

// IntOrString is a value that is either an integer or a string, such as a
// port given by number or by name.
// ---
// IntOrString is a JSON value that is either an integer or a string
// (targetPort: 8443 or targetPort: https), as
// k8s.io/apimachinery/pkg/util/intstr.IntOrString.
// +upstreamPackage=k8s.io/apimachinery/pkg/util/intstr
// +openapi:type=string
// +openapi:format=int-or-string
type IntOrString struct {
	Type   IntOrStringType
	IntVal int32
	StrVal string
}

// FromInt returns an IntOrString holding i.
func FromInt(i int32) IntOrString { return IntOrString{Type: IntOrStringInt, IntVal: i} }

// FromString returns an IntOrString holding s.
func FromString(s string) IntOrString { return IntOrString{Type: IntOrStringString, StrVal: s} }

// IsZero reports whether v is the integer 0 or the empty string (unset).
func (v IntOrString) IsZero() bool {
	if v.Type == IntOrStringString {
		return v.StrVal == ""
	}
	return v.IntVal == 0
}

// String returns the value as text ("8443" or "https").
func (v IntOrString) String() string {
	if v.Type == IntOrStringString {
		return v.StrVal
	}
	return strconv.Itoa(int(v.IntVal))
}

// MarshalJSON writes a JSON number or string.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	if v.Type == IntOrStringString {
		return json.Marshal(v.StrVal)
	}
	return json.Marshal(v.IntVal)
}

// UnmarshalJSON accepts a JSON number (int32) or string; null leaves the
// zero value. Anything else is an error.
func (v *IntOrString) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		v.Type = IntOrStringString
		v.IntVal = 0
		return json.Unmarshal(b, &v.StrVal)
	}
	var i int32
	if err := json.Unmarshal(b, &i); err != nil {
		return fmt.Errorf("intstr: %w", err)
	}
	*v = IntOrString{Type: IntOrStringInt, IntVal: i}
	return nil
}

// Endpoints lists the addresses and ports behind a Service. Deprecated in
// v1.33+: use discovery.k8s.io/v1 EndpointSlice.
// ---
// Endpoints mirrors core/v1.Endpoints (namespaced, same name as its Service).
type Endpoints struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Groups of addresses with the ports they serve; the endpoints are all
	// of them together.
	// +listType=atomic
	Subsets []EndpointSubset `json:"subsets,omitempty" protobuf:"bytes,2,rep,name=subsets"`
}

// EndpointSubset is a set of addresses that all serve the same ports.
// ---
// EndpointSubset mirrors core/v1.EndpointSubset.
type EndpointSubset struct {
	// Addresses ready to serve the ports.
	// +listType=atomic
	Addresses []EndpointAddress `json:"addresses,omitempty" protobuf:"bytes,1,rep,name=addresses"`
	// Addresses that serve the ports but are not ready.
	// +listType=atomic
	NotReadyAddresses []EndpointAddress `json:"notReadyAddresses,omitempty" protobuf:"bytes,2,rep,name=notReadyAddresses"`
	// The ports served at every address of the subset.
	// +listType=atomic
	Ports []EndpointPort `json:"ports,omitempty" protobuf:"bytes,3,rep,name=ports"`
}

// EndpointAddress is the IP address of one endpoint.
// ---
// EndpointAddress mirrors core/v1.EndpointAddress.
// +structType=atomic
type EndpointAddress struct {
	// The endpoint's IP address.
	IP string `json:"ip" protobuf:"bytes,1,opt,name=ip"`
	// The endpoint's hostname.
	Hostname string `json:"hostname,omitempty" protobuf:"bytes,3,opt,name=hostname"`
	// The node the endpoint runs on.
	NodeName *string `json:"nodeName,omitempty" protobuf:"bytes,4,opt,name=nodeName"`
	// The object, usually a pod, that provides the endpoint.
	TargetRef *ObjectReference `json:"targetRef,omitempty" protobuf:"bytes,2,opt,name=targetRef"`
}

// EndpointPort is one port served at an endpoint's addresses.
// ---
// EndpointPort mirrors core/v1.EndpointPort.
// +structType=atomic
type EndpointPort struct {
	// The port's name, the same as that of the Service port it serves.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// The port number.
	Port int32 `json:"port" protobuf:"varint,2,opt,name=port"`
	// TCP (the default), UDP or SCTP.
	// +openapi:enum=SCTP
	// +openapi:enum=TCP
	// +openapi:enum=UDP
	Protocol string `json:"protocol,omitempty" protobuf:"bytes,3,opt,name=protocol"`
	// The application protocol spoken on the port.
	AppProtocol *string `json:"appProtocol,omitempty" protobuf:"bytes,4,opt,name=appProtocol"`
}

// ObjectReference points at one object (or a part of it) by kind,
// namespace, name and, optionally, UID and version.
// ---
// ObjectReference mirrors core/v1.ObjectReference.
// +structType=atomic
type ObjectReference struct {
	// The object's kind.
	Kind string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	// The object's namespace.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,2,opt,name=namespace"`
	// The object's name.
	Name string `json:"name,omitempty" protobuf:"bytes,3,opt,name=name"`
	// The object's UID.
	UID string `json:"uid,omitempty" protobuf:"bytes,4,opt,name=uid"`
	// The object's API version.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,5,opt,name=apiVersion"`
	// The object's resourceVersion the reference is to, if a particular one.
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`
	// The part of the object meant, when not the whole object, as a field
	// path such as spec.containers{name}.
	FieldPath string `json:"fieldPath,omitempty" protobuf:"bytes,7,opt,name=fieldPath"`
}

// EndpointsList is a list of Endpoints objects. Deprecated in v1.33+.
// ---
// EndpointsList is a list of Endpoints.
type EndpointsList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The Endpoints objects.
	Items []Endpoints `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ConfigMap holds configuration that is not secret, as key/value pairs, for
// pods and programs to read.
// ---
// ConfigMap mirrors core/v1.ConfigMap (namespaced). aggsim keeps
// kube-system/extension-apiserver-authentication in one, as kube-apiserver does.
type ConfigMap struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// When true, data and binaryData can no longer be changed (metadata
	// still can), and immutable cannot be unset.
	// ---
	// Immutable, once true, forbids changes to Data and BinaryData.
	Immutable *bool `json:"immutable,omitempty" protobuf:"varint,4,opt,name=immutable"`
	// Text values by key; keys consist of letters, digits, '-', '_' and '.'.
	// ---
	// Data holds UTF-8 values.
	Data map[string]string `json:"data,omitempty" protobuf:"bytes,2,rep,name=data"`
	// Binary values by key, base64 in JSON; keys as for data, and not also
	// used in data.
	// ---
	// BinaryData holds arbitrary bytes (base64 on the wire).
	BinaryData map[string][]byte `json:"binaryData,omitempty" protobuf:"bytes,3,rep,name=binaryData"`
}

// ConfigMapList is a list of ConfigMap objects.
// ---
// ConfigMapList is a list of ConfigMaps.
type ConfigMapList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The ConfigMap objects.
	Items []ConfigMap `json:"items" protobuf:"bytes,2,rep,name=items"`
}
