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

// Namespace mirrors core/v1.Namespace (cluster-scoped).
type Namespace struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            NamespaceSpec   `json:"spec,omitempty"`
	Status          NamespaceStatus `json:"status,omitempty"`
}

// NamespaceSpec mirrors core/v1.NamespaceSpec.
type NamespaceSpec struct {
	// Finalizers; "kubernetes" is added on create as upstream does.
	Finalizers []string `json:"finalizers,omitempty"`
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

// NamespaceStatus mirrors core/v1.NamespaceStatus.
type NamespaceStatus struct {
	Phase      string               `json:"phase,omitempty"`
	Conditions []NamespaceCondition `json:"conditions,omitempty"`
}

// NamespaceCondition mirrors core/v1.NamespaceCondition.
type NamespaceCondition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
}

// NamespaceList is a list of Namespaces.
type NamespaceList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty"`
	Items         []Namespace `json:"items"`
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

	IPFamilyPolicySingleStack = "SingleStack"
	TrafficPolicyCluster      = "Cluster"
)

// Service mirrors core/v1.Service (namespaced).
type Service struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            ServiceSpec   `json:"spec,omitempty"`
	Status          ServiceStatus `json:"status,omitempty"`
}

// ServiceSpec mirrors core/v1.ServiceSpec.
type ServiceSpec struct {
	Ports                         []ServicePort          `json:"ports,omitempty"`
	Selector                      map[string]string      `json:"selector,omitempty"`
	ClusterIP                     string                 `json:"clusterIP,omitempty"`
	ClusterIPs                    []string               `json:"clusterIPs,omitempty"`
	Type                          string                 `json:"type,omitempty"`
	ExternalIPs                   []string               `json:"externalIPs,omitempty"`
	SessionAffinity               string                 `json:"sessionAffinity,omitempty"`
	LoadBalancerIP                string                 `json:"loadBalancerIP,omitempty"`
	LoadBalancerSourceRanges      []string               `json:"loadBalancerSourceRanges,omitempty"`
	ExternalName                  string                 `json:"externalName,omitempty"`
	ExternalTrafficPolicy         string                 `json:"externalTrafficPolicy,omitempty"`
	HealthCheckNodePort           int32                  `json:"healthCheckNodePort,omitempty"`
	PublishNotReadyAddresses      bool                   `json:"publishNotReadyAddresses,omitempty"`
	SessionAffinityConfig         *SessionAffinityConfig `json:"sessionAffinityConfig,omitempty"`
	IPFamilies                    []string               `json:"ipFamilies,omitempty"`
	IPFamilyPolicy                *string                `json:"ipFamilyPolicy,omitempty"`
	AllocateLoadBalancerNodePorts *bool                  `json:"allocateLoadBalancerNodePorts,omitempty"`
	LoadBalancerClass             *string                `json:"loadBalancerClass,omitempty"`
	InternalTrafficPolicy         *string                `json:"internalTrafficPolicy,omitempty"`
	TrafficDistribution           *string                `json:"trafficDistribution,omitempty"`
}

// SessionAffinityConfig mirrors core/v1.SessionAffinityConfig.
type SessionAffinityConfig struct {
	ClientIP *ClientIPConfig `json:"clientIP,omitempty"`
}

// ClientIPConfig mirrors core/v1.ClientIPConfig; TimeoutSeconds defaults
// to 10800 (3 hours).
type ClientIPConfig struct {
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
}

// ServicePort mirrors core/v1.ServicePort.
type ServicePort struct {
	Name        string      `json:"name,omitempty"`
	Protocol    string      `json:"protocol,omitempty"`
	AppProtocol *string     `json:"appProtocol,omitempty"`
	Port        int32       `json:"port"`
	TargetPort  IntOrString `json:"targetPort,omitempty"`
	NodePort    int32       `json:"nodePort,omitempty"`
}

// ServiceStatus mirrors core/v1.ServiceStatus.
type ServiceStatus struct {
	LoadBalancer LoadBalancerStatus `json:"loadBalancer,omitempty"`
	Conditions   []meta.Condition   `json:"conditions,omitempty"`
}

// LoadBalancerStatus mirrors core/v1.LoadBalancerStatus.
type LoadBalancerStatus struct {
	Ingress []LoadBalancerIngress `json:"ingress,omitempty"`
}

// LoadBalancerIngress mirrors core/v1.LoadBalancerIngress (without ports).
type LoadBalancerIngress struct {
	IP       string  `json:"ip,omitempty"`
	Hostname string  `json:"hostname,omitempty"`
	IPMode   *string `json:"ipMode,omitempty"`
}

// ServiceList is a list of Services.
type ServiceList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty"`
	Items         []Service `json:"items"`
}

// IntOrStringType tells which member of an IntOrString is set.
type IntOrStringType int

// The two IntOrString kinds.
const (
	IntOrStringInt IntOrStringType = iota
	IntOrStringString
)

// IntOrString is a JSON value that is either an integer or a string
// (targetPort: 8443 or targetPort: https), as
// k8s.io/apimachinery/pkg/util/intstr.IntOrString.
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

// Endpoints mirrors core/v1.Endpoints (namespaced, same name as its Service).
type Endpoints struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Subsets         []EndpointSubset `json:"subsets,omitempty"`
}

// EndpointSubset mirrors core/v1.EndpointSubset.
type EndpointSubset struct {
	Addresses         []EndpointAddress `json:"addresses,omitempty"`
	NotReadyAddresses []EndpointAddress `json:"notReadyAddresses,omitempty"`
	Ports             []EndpointPort    `json:"ports,omitempty"`
}

// EndpointAddress mirrors core/v1.EndpointAddress.
type EndpointAddress struct {
	IP        string           `json:"ip"`
	Hostname  string           `json:"hostname,omitempty"`
	NodeName  *string          `json:"nodeName,omitempty"`
	TargetRef *ObjectReference `json:"targetRef,omitempty"`
}

// EndpointPort mirrors core/v1.EndpointPort.
type EndpointPort struct {
	Name        string  `json:"name,omitempty"`
	Port        int32   `json:"port"`
	Protocol    string  `json:"protocol,omitempty"`
	AppProtocol *string `json:"appProtocol,omitempty"`
}

// ObjectReference mirrors core/v1.ObjectReference.
type ObjectReference struct {
	Kind            string `json:"kind,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	APIVersion      string `json:"apiVersion,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	FieldPath       string `json:"fieldPath,omitempty"`
}

// EndpointsList is a list of Endpoints.
type EndpointsList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty"`
	Items         []Endpoints `json:"items"`
}

// ConfigMap mirrors core/v1.ConfigMap (namespaced). aggsim keeps
// kube-system/extension-apiserver-authentication in one, as kube-apiserver does.
type ConfigMap struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Immutable, once true, forbids changes to Data and BinaryData.
	Immutable *bool `json:"immutable,omitempty"`
	// Data holds UTF-8 values.
	Data map[string]string `json:"data,omitempty"`
	// BinaryData holds arbitrary bytes (base64 on the wire).
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
}

// ConfigMapList is a list of ConfigMaps.
type ConfigMapList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty"`
	Items         []ConfigMap `json:"items"`
}
