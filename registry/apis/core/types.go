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

// Namespace provides a scope for Names. Use of multiple namespaces is
// optional.
// ---
// Namespace mirrors core/v1.Namespace (cluster-scoped).
type Namespace struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec defines the behavior of the Namespace.
	Spec NamespaceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status describes the current status of a Namespace.
	Status NamespaceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// NamespaceSpec describes the attributes on a Namespace.
// ---
// NamespaceSpec mirrors core/v1.NamespaceSpec.
type NamespaceSpec struct {
	// Finalizers is an opaque list of values that must be empty to permanently
	// remove object from storage.
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

// NamespaceStatus is information about the current status of a Namespace.
// ---
// NamespaceStatus mirrors core/v1.NamespaceStatus.
type NamespaceStatus struct {
	// Phase is the current lifecycle phase of the namespace.
	// +openapi:enum=Active
	// +openapi:enum=Terminating
	Phase string `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase"`
	// Represents the latest available observations of a namespace's current
	// state.
	// +listType=map
	// +listMapKey=type
	Conditions []NamespaceCondition `json:"conditions,omitempty" patchMergeKey:"type" patchStrategy:"merge" protobuf:"bytes,2,rep,name=conditions"`
}

// NamespaceCondition contains details about state of namespace.
// ---
// NamespaceCondition mirrors core/v1.NamespaceCondition.
type NamespaceCondition struct {
	// Type of namespace controller condition.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status of the condition, one of True, False, Unknown.
	Status string `json:"status" protobuf:"bytes,2,opt,name=status"`
	// Last time the condition transitioned from one status to another.
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Unique, one-word, CamelCase reason for the condition's last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// Human-readable message indicating details about last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// NamespaceList is a list of Namespaces.
type NamespaceList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of Namespace objects.
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

// Service is a named abstraction of software service (for example, mysql)
// consisting of local port (for example 3306) that the proxy listens on, and
// the selector that determines which pods will answer requests sent through
// the proxy.
// ---
// Service mirrors core/v1.Service (namespaced).
type Service struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec defines the behavior of a service.
	Spec ServiceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Most recently observed status of the service. Populated by the system.
	// Read-only.
	Status ServiceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ServiceSpec describes the attributes that a user creates on a service.
// ---
// ServiceSpec mirrors core/v1.ServiceSpec.
type ServiceSpec struct {
	// The list of ports that are exposed by this service.
	// +listType=map
	// +listMapKey=port
	// +listMapKey=protocol
	Ports []ServicePort `json:"ports,omitempty" patchMergeKey:"port" patchStrategy:"merge" protobuf:"bytes,1,rep,name=ports"`
	// Route service traffic to pods with label keys and values matching this
	// selector.
	// +mapType=atomic
	Selector map[string]string `json:"selector,omitempty" protobuf:"bytes,2,rep,name=selector"`
	// clusterIP is the IP address of the service and is usually assigned
	// randomly.
	ClusterIP string `json:"clusterIP,omitempty" protobuf:"bytes,3,opt,name=clusterIP"`
	// ClusterIPs is a list of IP addresses assigned to this service, and are
	// usually assigned randomly.
	// +listType=atomic
	ClusterIPs []string `json:"clusterIPs,omitempty" protobuf:"bytes,18,rep,name=clusterIPs"`
	// type determines how the Service is exposed. Defaults to ClusterIP. Valid
	// options are ExternalName, ClusterIP, NodePort, and LoadBalancer.
	// +openapi:enum=ClusterIP
	// +openapi:enum=ExternalName
	// +openapi:enum=LoadBalancer
	// +openapi:enum=NodePort
	Type string `json:"type,omitempty" protobuf:"bytes,4,opt,name=type"`
	// externalIPs is a list of IP addresses for which nodes in the cluster will
	// also accept traffic for this service.
	// +listType=atomic
	ExternalIPs []string `json:"externalIPs,omitempty" protobuf:"bytes,5,rep,name=externalIPs"`
	// Supports "ClientIP" and "None". Used to maintain session affinity. Defaults
	// to None.
	// +openapi:enum=ClientIP
	// +openapi:enum=None
	SessionAffinity string `json:"sessionAffinity,omitempty" protobuf:"bytes,7,opt,name=sessionAffinity"`
	// Only applies to Service Type: LoadBalancer. Deprecated.
	LoadBalancerIP string `json:"loadBalancerIP,omitempty" protobuf:"bytes,8,opt,name=loadBalancerIP"`
	// If specified and supported by the platform, this will restrict traffic
	// through the cloud-provider load-balancer will be restricted to the
	// specified client IPs.
	// +listType=atomic
	LoadBalancerSourceRanges []string `json:"loadBalancerSourceRanges,omitempty" protobuf:"bytes,9,rep,name=loadBalancerSourceRanges"`
	// externalName is the external reference that discovery mechanisms will
	// return as an alias for this service (e.g. a DNS CNAME record). Must be a
	// lowercase RFC-1123 hostname and requires `type` to be "ExternalName".
	ExternalName string `json:"externalName,omitempty" protobuf:"bytes,10,opt,name=externalName"`
	// externalTrafficPolicy describes how nodes distribute service traffic they
	// receive on one of the Service's "externally-facing" addresses.
	// +openapi:enum=Cluster
	// +openapi:enum=Local
	ExternalTrafficPolicy string `json:"externalTrafficPolicy,omitempty" protobuf:"bytes,11,opt,name=externalTrafficPolicy"`
	// healthCheckNodePort specifies the healthcheck nodePort for the service.
	HealthCheckNodePort int32 `json:"healthCheckNodePort,omitempty" protobuf:"varint,12,opt,name=healthCheckNodePort"`
	// publishNotReadyAddresses indicates that any agent which deals with
	// endpoints for this Service should disregard any indications of
	// ready/not-ready.
	PublishNotReadyAddresses bool `json:"publishNotReadyAddresses,omitempty" protobuf:"varint,13,opt,name=publishNotReadyAddresses"`
	// sessionAffinityConfig contains the configurations of session affinity.
	SessionAffinityConfig *SessionAffinityConfig `json:"sessionAffinityConfig,omitempty" protobuf:"bytes,14,opt,name=sessionAffinityConfig"`
	// IPFamilies is a list of IP families (e.g. IPv4, IPv6) assigned to this
	// service.
	// +listType=atomic
	// +openapi:enum=
	// +openapi:enum=IPv4
	// +openapi:enum=IPv6
	IPFamilies []string `json:"ipFamilies,omitempty" protobuf:"bytes,19,rep,name=ipFamilies"`
	// IPFamilyPolicy represents the dual-stack-ness requested or required by this
	// Service.
	// +openapi:enum=PreferDualStack
	// +openapi:enum=RequireDualStack
	// +openapi:enum=SingleStack
	IPFamilyPolicy *string `json:"ipFamilyPolicy,omitempty" protobuf:"bytes,17,opt,name=ipFamilyPolicy"`
	// allocateLoadBalancerNodePorts defines if NodePorts will be automatically
	// allocated for services with type LoadBalancer. Default is "true".
	AllocateLoadBalancerNodePorts *bool `json:"allocateLoadBalancerNodePorts,omitempty" protobuf:"varint,20,opt,name=allocateLoadBalancerNodePorts"`
	// loadBalancerClass is the class of the load balancer implementation this
	// Service belongs to.
	LoadBalancerClass *string `json:"loadBalancerClass,omitempty" protobuf:"bytes,21,opt,name=loadBalancerClass"`
	// InternalTrafficPolicy describes how nodes distribute service traffic they
	// receive on the ClusterIP. Default is "Cluster".
	// +openapi:enum=Cluster
	// +openapi:enum=Local
	InternalTrafficPolicy *string `json:"internalTrafficPolicy,omitempty" protobuf:"bytes,22,opt,name=internalTrafficPolicy"`
	// TrafficDistribution offers a way to express preferences for how traffic is
	// distributed to Service endpoints.
	TrafficDistribution *string `json:"trafficDistribution,omitempty" protobuf:"bytes,23,opt,name=trafficDistribution"`
}

// SessionAffinityConfig represents the configurations of session affinity.
// ---
// SessionAffinityConfig mirrors core/v1.SessionAffinityConfig.
type SessionAffinityConfig struct {
	// clientIP contains the configurations of Client IP based session affinity.
	ClientIP *ClientIPConfig `json:"clientIP,omitempty" protobuf:"bytes,1,opt,name=clientIP"`
}

// ClientIPConfig represents the configurations of Client IP based session
// affinity.
// ---
// ClientIPConfig mirrors core/v1.ClientIPConfig; TimeoutSeconds defaults
// to 10800 (3 hours).
type ClientIPConfig struct {
	// timeoutSeconds specifies the seconds of ClientIP type session sticky time.
	// Default value is 10800(for 3 hours).
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty" protobuf:"varint,1,opt,name=timeoutSeconds"`
}

// ServicePort contains information on service's port.
// ---
// ServicePort mirrors core/v1.ServicePort.
type ServicePort struct {
	// The name of this port within the service. This must be a DNS_LABEL. All
	// ports within a ServiceSpec must have unique names.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// The IP protocol for this port. Supports "TCP", "UDP", and "SCTP". Default
	// is TCP.
	// +default="TCP"
	// +openapi:enum=SCTP
	// +openapi:enum=TCP
	// +openapi:enum=UDP
	Protocol string `json:"protocol,omitempty" protobuf:"bytes,2,opt,name=protocol"`
	// The application protocol for this port.
	AppProtocol *string `json:"appProtocol,omitempty" protobuf:"bytes,6,opt,name=appProtocol"`
	// The port that will be exposed by this service.
	Port int32 `json:"port" protobuf:"varint,3,opt,name=port"`
	// Number or name of the port to access on the pods targeted by the service.
	TargetPort IntOrString `json:"targetPort,omitempty" protobuf:"bytes,4,opt,name=targetPort"`
	// The port on each node on which this service is exposed when type is
	// NodePort or LoadBalancer.
	NodePort int32 `json:"nodePort,omitempty" protobuf:"varint,5,opt,name=nodePort"`
}

// ServiceStatus represents the current status of a service.
// ---
// ServiceStatus mirrors core/v1.ServiceStatus.
type ServiceStatus struct {
	// LoadBalancer contains the current status of the load-balancer, if one is
	// present.
	LoadBalancer LoadBalancerStatus `json:"loadBalancer,omitempty" protobuf:"bytes,1,opt,name=loadBalancer"`
	// Current service state
	// +listType=map
	// +listMapKey=type
	Conditions []meta.Condition `json:"conditions,omitempty" patchMergeKey:"type" patchStrategy:"merge" protobuf:"bytes,2,rep,name=conditions"`
}

// LoadBalancerStatus represents the status of a load-balancer.
// ---
// LoadBalancerStatus mirrors core/v1.LoadBalancerStatus.
type LoadBalancerStatus struct {
	// Ingress is a list containing ingress points for the load-balancer.
	// +listType=atomic
	Ingress []LoadBalancerIngress `json:"ingress,omitempty" protobuf:"bytes,1,rep,name=ingress"`
}

// LoadBalancerIngress represents the status of a load-balancer ingress point.
// ---
// LoadBalancerIngress mirrors core/v1.LoadBalancerIngress.
type LoadBalancerIngress struct {
	// IP is set for load-balancer ingress points that are IP based.
	IP string `json:"ip,omitempty" protobuf:"bytes,1,opt,name=ip"`
	// Hostname is set for load-balancer ingress points that are DNS based.
	Hostname string `json:"hostname,omitempty" protobuf:"bytes,2,opt,name=hostname"`
	// IPMode specifies how the load-balancer IP behaves.
	IPMode *string `json:"ipMode,omitempty" protobuf:"bytes,3,opt,name=ipMode"`
	// Ports is a list of records of service ports.
	// +listType=atomic
	Ports []PortStatus `json:"ports,omitempty" protobuf:"bytes,4,rep,name=ports"`
}

// PortStatus represents the error condition of a service port
// ---
// PortStatus mirrors core/v1.PortStatus.
type PortStatus struct {
	// Port is the port number of the service port of which status is recorded
	// here
	Port int32 `json:"port" protobuf:"varint,1,opt,name=port"`
	// Protocol is the protocol of the service port of which status is recorded
	// here
	// +openapi:enum=SCTP
	// +openapi:enum=TCP
	// +openapi:enum=UDP
	Protocol string `json:"protocol" protobuf:"bytes,2,opt,name=protocol"`
	// Error is to record the problem with the service port
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
	// Items is the list of Service objects.
	Items []Service `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// IntOrStringType tells which member of an IntOrString is set.
type IntOrStringType int

// The two IntOrString kinds.
const (
	IntOrStringInt IntOrStringType = iota
	IntOrStringString
)

// IntOrString is a type that can hold an int32 or a string.  When used in
// JSON or YAML marshalling and unmarshalling, it produces or consumes the
// inner type.  This allows you to have, for example, a JSON field that can
// accept a name or number.
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

// Endpoints is a collection of endpoints that implement the actual service.
// Deprecated: This API is deprecated in v1.33+. Use discoveryv1.EndpointSlice.
// ---
// Endpoints mirrors core/v1.Endpoints (namespaced, same name as its Service).
type Endpoints struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The set of all endpoints is the union of all subsets.
	// +listType=atomic
	Subsets []EndpointSubset `json:"subsets,omitempty" protobuf:"bytes,2,rep,name=subsets"`
}

// EndpointSubset is a group of addresses with a common set of ports.
// ---
// EndpointSubset mirrors core/v1.EndpointSubset.
type EndpointSubset struct {
	// IP addresses which offer the related ports that are marked as ready.
	// +listType=atomic
	Addresses []EndpointAddress `json:"addresses,omitempty" protobuf:"bytes,1,rep,name=addresses"`
	// IP addresses which offer the related ports but are not currently marked as
	// ready.
	// +listType=atomic
	NotReadyAddresses []EndpointAddress `json:"notReadyAddresses,omitempty" protobuf:"bytes,2,rep,name=notReadyAddresses"`
	// Port numbers available on the related IP addresses.
	// +listType=atomic
	Ports []EndpointPort `json:"ports,omitempty" protobuf:"bytes,3,rep,name=ports"`
}

// EndpointAddress is a tuple that describes single IP address.
// ---
// EndpointAddress mirrors core/v1.EndpointAddress.
// +structType=atomic
type EndpointAddress struct {
	// The IP of this endpoint.
	IP string `json:"ip" protobuf:"bytes,1,opt,name=ip"`
	// The Hostname of this endpoint
	Hostname string `json:"hostname,omitempty" protobuf:"bytes,3,opt,name=hostname"`
	// Optional: Node hosting this endpoint.
	NodeName *string `json:"nodeName,omitempty" protobuf:"bytes,4,opt,name=nodeName"`
	// Reference to object providing the endpoint.
	TargetRef *ObjectReference `json:"targetRef,omitempty" protobuf:"bytes,2,opt,name=targetRef"`
}

// EndpointPort is a tuple that describes a single port.
// ---
// EndpointPort mirrors core/v1.EndpointPort.
// +structType=atomic
type EndpointPort struct {
	// The name of this port.  This must match the 'name' field in the
	// corresponding ServicePort.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// The port number of the endpoint.
	Port int32 `json:"port" protobuf:"varint,2,opt,name=port"`
	// The IP protocol for this port. Must be UDP, TCP, or SCTP. Default is TCP.
	// +openapi:enum=SCTP
	// +openapi:enum=TCP
	// +openapi:enum=UDP
	Protocol string `json:"protocol,omitempty" protobuf:"bytes,3,opt,name=protocol"`
	// The application protocol for this port.
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

// EndpointsList is a list of endpoints. Deprecated: This API is deprecated in
// v1.33+.
// ---
// EndpointsList is a list of Endpoints.
type EndpointsList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of Endpoints objects.
	Items []Endpoints `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ConfigMap holds configuration data for pods to consume.
// ---
// ConfigMap mirrors core/v1.ConfigMap (namespaced). aggsim keeps
// kube-system/extension-apiserver-authentication in one, as kube-apiserver does.
type ConfigMap struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Immutable, if set to true, ensures that data stored in the ConfigMap cannot
	// be updated (only object metadata can be modified).
	// ---
	// Immutable, once true, forbids changes to Data and BinaryData.
	Immutable *bool `json:"immutable,omitempty" protobuf:"varint,4,opt,name=immutable"`
	// Data contains the configuration data. Each key must consist of alphanumeric
	// characters, '-', '_' or '.'.
	// ---
	// Data holds UTF-8 values.
	Data map[string]string `json:"data,omitempty" protobuf:"bytes,2,rep,name=data"`
	// BinaryData contains the binary data. Each key must consist of alphanumeric
	// characters, '-', '_' or '.'.
	// ---
	// BinaryData holds arbitrary bytes (base64 on the wire).
	BinaryData map[string][]byte `json:"binaryData,omitempty" protobuf:"bytes,3,rep,name=binaryData"`
}

// ConfigMapList is a resource containing a list of ConfigMap objects.
// ---
// ConfigMapList is a list of ConfigMaps.
type ConfigMapList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of ConfigMap objects.
	Items []ConfigMap `json:"items" protobuf:"bytes,2,rep,name=items"`
}
