package rest

// Protobuf schemas of the kinds aggsim accepts as
// application/vnd.kubernetes.protobuf request bodies. Field numbers and
// JSON names come from k8s.io/api/core/v1/generated.proto,
// k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto,
// k8s.io/apimachinery/pkg/util/intstr/generated.proto and
// k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/generated.proto; the
// emit modes follow the Go types' json tags (omitempty, omitzero,
// pointers) so that a decoded body serialises as encoding/json would
// serialise the upstream Go object. Field order inside a schema is the Go
// struct's field order, which is the JSON order upstream writes.
//
// Every *pbMessage below is read-only after package initialisation.

import "strings"

// pbKind is the shape of one protobuf field's value.
type pbKind uint8

const (
	pbString      pbKind = iota // length-delimited UTF-8 text → JSON string
	pbInt32                     // varint → JSON number
	pbInt64                     // varint → JSON number
	pbBool                      // varint → JSON true/false
	pbBytes                     // length-delimited bytes → base64 JSON string
	pbMessage                   // length-delimited embedded message → JSON object
	pbTime                      // meta/v1 Time{seconds 1, nanos 2} → RFC 3339 string or null
	pbIntOrString               // intstr.IntOrString{type 1, intVal 2, strVal 3} → number or string
	pbStringMap                 // map<string,string> → JSON object of strings
	pbBytesMap                  // map<string,bytes> → JSON object of base64 strings
	pbRawJSON                   // meta/v1 FieldsV1{Raw 1}: bytes that are JSON, written verbatim
)

// pbEmit says when a decoded field is written to JSON.
type pbEmit uint8

const (
	// emitOmitEmpty: a non-pointer field tagged omitempty (or omitzero);
	// its zero value is left out.
	emitOmitEmpty pbEmit = iota
	// emitAlways: a non-pointer field without omitempty, or a struct (which
	// encoding/json never omits); when absent from the wire its zero
	// value is written (`""`, `0`, `false`, `{}`, `null` for Time, `[]`).
	emitAlways
	// emitIfSet: a pointer field; written, even when zero, exactly when
	// present on the wire.
	emitIfSet
)

// pbField describes one field of a message.
type pbField struct {
	num  int32   // protobuf field number
	name string  // JSON name
	kind pbKind  // value shape
	emit pbEmit  // when to write it
	rep  bool    // repeated (JSON array)
	msg  *pbType // schema of pbMessage values
}

// pbType is the schema of one protobuf message.
type pbType struct {
	name   string // upstream Go type name, for error messages
	fields []pbField
}

// field returns the field with protobuf number num, or nil.
func (t *pbType) field(num int32) (int, *pbField) {
	for i := range t.fields {
		if t.fields[i].num == num {
			return i, &t.fields[i]
		}
	}
	return -1, nil
}

// Builders keep the tables below one line per field.

func pbf(num int32, name string, kind pbKind, emit pbEmit) pbField {
	return pbField{num: num, name: name, kind: kind, emit: emit}
}

func pbMsg(num int32, name string, t *pbType, emit pbEmit) pbField {
	return pbField{num: num, name: name, kind: pbMessage, emit: emit, msg: t}
}

func pbRep(num int32, name string, kind pbKind, t *pbType) pbField {
	return pbField{num: num, name: name, kind: kind, emit: emitOmitEmpty, rep: true, msg: t}
}

// pbSpecStatusKind returns the schema of a top-level kind with
// ObjectMeta metadata = 1, spec = 2 and status = 3 (Namespace, Service,
// APIService); all three are non-pointer structs, always written.
func pbSpecStatusKind(name string, spec, status *pbType) *pbType {
	return &pbType{name: name, fields: []pbField{
		pbMsg(1, "metadata", pbObjectMeta, emitAlways),
		pbMsg(2, "spec", spec, emitAlways),
		pbMsg(3, "status", status, emitAlways),
	}}
}

// --- meta/v1 ---------------------------------------------------------------

var pbOwnerReference = &pbType{name: "OwnerReference", fields: []pbField{
	pbf(5, "apiVersion", pbString, emitAlways),
	pbf(1, "kind", pbString, emitAlways),
	pbf(3, "name", pbString, emitAlways),
	pbf(4, "uid", pbString, emitAlways),
	pbf(6, "controller", pbBool, emitIfSet),
	pbf(7, "blockOwnerDeletion", pbBool, emitIfSet),
}}

var pbManagedFieldsEntry = &pbType{name: "ManagedFieldsEntry", fields: []pbField{
	pbf(1, "manager", pbString, emitOmitEmpty),
	pbf(2, "operation", pbString, emitOmitEmpty),
	pbf(3, "apiVersion", pbString, emitOmitEmpty),
	pbf(4, "time", pbTime, emitIfSet),
	pbf(6, "fieldsType", pbString, emitOmitEmpty),
	pbf(7, "fieldsV1", pbRawJSON, emitIfSet),
	pbf(8, "subresource", pbString, emitOmitEmpty),
}}

var pbObjectMeta = &pbType{name: "ObjectMeta", fields: []pbField{
	pbf(1, "name", pbString, emitOmitEmpty),
	pbf(2, "generateName", pbString, emitOmitEmpty),
	pbf(3, "namespace", pbString, emitOmitEmpty),
	pbf(4, "selfLink", pbString, emitOmitEmpty),
	pbf(5, "uid", pbString, emitOmitEmpty),
	pbf(6, "resourceVersion", pbString, emitOmitEmpty),
	pbf(7, "generation", pbInt64, emitOmitEmpty),
	pbf(8, "creationTimestamp", pbTime, emitOmitEmpty), // omitzero since apimachinery 0.34
	pbf(9, "deletionTimestamp", pbTime, emitIfSet),
	pbf(10, "deletionGracePeriodSeconds", pbInt64, emitIfSet),
	pbf(11, "labels", pbStringMap, emitOmitEmpty),
	pbf(12, "annotations", pbStringMap, emitOmitEmpty),
	pbRep(13, "ownerReferences", pbMessage, pbOwnerReference),
	pbRep(14, "finalizers", pbString, nil),
	pbRep(17, "managedFields", pbMessage, pbManagedFieldsEntry),
}}

var pbListMeta = &pbType{name: "ListMeta", fields: []pbField{
	pbf(1, "selfLink", pbString, emitOmitEmpty),
	pbf(2, "resourceVersion", pbString, emitOmitEmpty),
	pbf(3, "continue", pbString, emitOmitEmpty),
	pbf(4, "remainingItemCount", pbInt64, emitIfSet),
	// 5 shardInfo (alpha, newer than 1.33) is skipped as unknown.
}}

var pbCondition = &pbType{name: "Condition", fields: []pbField{
	pbf(1, "type", pbString, emitAlways),
	pbf(2, "status", pbString, emitAlways),
	pbf(3, "observedGeneration", pbInt64, emitOmitEmpty),
	pbf(4, "lastTransitionTime", pbTime, emitAlways),
	pbf(5, "reason", pbString, emitAlways),
	pbf(6, "message", pbString, emitAlways),
}}

var pbPreconditions = &pbType{name: "Preconditions", fields: []pbField{
	pbf(1, "uid", pbString, emitIfSet),
	pbf(2, "resourceVersion", pbString, emitIfSet),
}}

var pbDeleteOptions = &pbType{name: "DeleteOptions", fields: []pbField{
	pbf(1, "gracePeriodSeconds", pbInt64, emitIfSet),
	pbMsg(2, "preconditions", pbPreconditions, emitIfSet),
	pbf(3, "orphanDependents", pbBool, emitIfSet),
	pbf(4, "propagationPolicy", pbString, emitIfSet),
	pbRep(5, "dryRun", pbString, nil),
	pbf(6, "ignoreStoreReadErrorWithClusterBreakingPotential", pbBool, emitIfSet),
}}

var pbStatusCause = &pbType{name: "StatusCause", fields: []pbField{
	pbf(1, "reason", pbString, emitOmitEmpty),
	pbf(2, "message", pbString, emitOmitEmpty),
	pbf(3, "field", pbString, emitOmitEmpty),
}}

var pbStatusDetails = &pbType{name: "StatusDetails", fields: []pbField{
	pbf(1, "name", pbString, emitOmitEmpty),
	pbf(2, "group", pbString, emitOmitEmpty),
	pbf(3, "kind", pbString, emitOmitEmpty),
	pbf(6, "uid", pbString, emitOmitEmpty),
	pbRep(4, "causes", pbMessage, pbStatusCause),
	pbf(5, "retryAfterSeconds", pbInt32, emitOmitEmpty),
}}

var pbStatus = &pbType{name: "Status", fields: []pbField{
	pbMsg(1, "metadata", pbListMeta, emitAlways),
	pbf(2, "status", pbString, emitOmitEmpty),
	pbf(3, "message", pbString, emitOmitEmpty),
	pbf(4, "reason", pbString, emitOmitEmpty),
	pbMsg(5, "details", pbStatusDetails, emitIfSet),
	pbf(6, "code", pbInt32, emitOmitEmpty),
}}

// --- core/v1 ---------------------------------------------------------------

var pbNamespaceCondition = &pbType{name: "NamespaceCondition", fields: []pbField{
	pbf(1, "type", pbString, emitAlways),
	pbf(2, "status", pbString, emitAlways),
	pbf(4, "lastTransitionTime", pbTime, emitAlways), // omitempty never omits a struct
	pbf(5, "reason", pbString, emitOmitEmpty),
	pbf(6, "message", pbString, emitOmitEmpty),
}}

var pbNamespaceSpec = &pbType{name: "NamespaceSpec", fields: []pbField{
	pbRep(1, "finalizers", pbString, nil),
}}

var pbNamespaceStatus = &pbType{name: "NamespaceStatus", fields: []pbField{
	pbf(1, "phase", pbString, emitOmitEmpty),
	pbRep(2, "conditions", pbMessage, pbNamespaceCondition),
}}

var pbNamespace = pbSpecStatusKind("Namespace", pbNamespaceSpec, pbNamespaceStatus)

var pbConfigMap = &pbType{name: "ConfigMap", fields: []pbField{
	pbMsg(1, "metadata", pbObjectMeta, emitAlways),
	pbf(4, "immutable", pbBool, emitIfSet),
	pbf(2, "data", pbStringMap, emitOmitEmpty),
	pbf(3, "binaryData", pbBytesMap, emitOmitEmpty),
}}

var pbServicePort = &pbType{name: "ServicePort", fields: []pbField{
	pbf(1, "name", pbString, emitOmitEmpty),
	pbf(2, "protocol", pbString, emitOmitEmpty),
	pbf(6, "appProtocol", pbString, emitIfSet),
	pbf(3, "port", pbInt32, emitAlways),
	pbf(4, "targetPort", pbIntOrString, emitAlways), // omitempty never omits a struct
	pbf(5, "nodePort", pbInt32, emitOmitEmpty),
}}

var pbClientIPConfig = &pbType{name: "ClientIPConfig", fields: []pbField{
	pbf(1, "timeoutSeconds", pbInt32, emitIfSet),
}}

var pbSessionAffinityConfig = &pbType{name: "SessionAffinityConfig", fields: []pbField{
	pbMsg(1, "clientIP", pbClientIPConfig, emitIfSet),
}}

var pbServiceSpec = &pbType{name: "ServiceSpec", fields: []pbField{
	pbRep(1, "ports", pbMessage, pbServicePort),
	pbf(2, "selector", pbStringMap, emitOmitEmpty),
	pbf(3, "clusterIP", pbString, emitOmitEmpty),
	pbRep(18, "clusterIPs", pbString, nil),
	pbf(4, "type", pbString, emitOmitEmpty),
	pbRep(5, "externalIPs", pbString, nil),
	pbf(7, "sessionAffinity", pbString, emitOmitEmpty),
	pbf(8, "loadBalancerIP", pbString, emitOmitEmpty),
	pbRep(9, "loadBalancerSourceRanges", pbString, nil),
	pbf(10, "externalName", pbString, emitOmitEmpty),
	pbf(11, "externalTrafficPolicy", pbString, emitOmitEmpty),
	pbf(12, "healthCheckNodePort", pbInt32, emitOmitEmpty),
	pbf(13, "publishNotReadyAddresses", pbBool, emitOmitEmpty),
	pbMsg(14, "sessionAffinityConfig", pbSessionAffinityConfig, emitIfSet),
	pbRep(19, "ipFamilies", pbString, nil),
	pbf(17, "ipFamilyPolicy", pbString, emitIfSet),
	pbf(20, "allocateLoadBalancerNodePorts", pbBool, emitIfSet),
	pbf(21, "loadBalancerClass", pbString, emitIfSet),
	pbf(22, "internalTrafficPolicy", pbString, emitIfSet),
	pbf(23, "trafficDistribution", pbString, emitIfSet),
}}

var pbPortStatus = &pbType{name: "PortStatus", fields: []pbField{
	pbf(1, "port", pbInt32, emitAlways),
	pbf(2, "protocol", pbString, emitAlways),
	pbf(3, "error", pbString, emitIfSet),
}}

var pbLoadBalancerIngress = &pbType{name: "LoadBalancerIngress", fields: []pbField{
	pbf(1, "ip", pbString, emitOmitEmpty),
	pbf(2, "hostname", pbString, emitOmitEmpty),
	pbf(3, "ipMode", pbString, emitIfSet),
	pbRep(4, "ports", pbMessage, pbPortStatus),
}}

var pbLoadBalancerStatus = &pbType{name: "LoadBalancerStatus", fields: []pbField{
	pbRep(1, "ingress", pbMessage, pbLoadBalancerIngress),
}}

var pbServiceStatus = &pbType{name: "ServiceStatus", fields: []pbField{
	pbMsg(1, "loadBalancer", pbLoadBalancerStatus, emitAlways),
	pbRep(2, "conditions", pbMessage, pbCondition),
}}

var pbService = pbSpecStatusKind("Service", pbServiceSpec, pbServiceStatus)

var pbObjectReference = &pbType{name: "ObjectReference", fields: []pbField{
	pbf(1, "kind", pbString, emitOmitEmpty),
	pbf(2, "namespace", pbString, emitOmitEmpty),
	pbf(3, "name", pbString, emitOmitEmpty),
	pbf(4, "uid", pbString, emitOmitEmpty),
	pbf(5, "apiVersion", pbString, emitOmitEmpty),
	pbf(6, "resourceVersion", pbString, emitOmitEmpty),
	pbf(7, "fieldPath", pbString, emitOmitEmpty),
}}

var pbEndpointAddress = &pbType{name: "EndpointAddress", fields: []pbField{
	pbf(1, "ip", pbString, emitAlways),
	pbf(3, "hostname", pbString, emitOmitEmpty),
	pbf(4, "nodeName", pbString, emitIfSet),
	pbMsg(2, "targetRef", pbObjectReference, emitIfSet),
}}

var pbEndpointPort = &pbType{name: "EndpointPort", fields: []pbField{
	pbf(1, "name", pbString, emitOmitEmpty),
	pbf(2, "port", pbInt32, emitAlways),
	pbf(3, "protocol", pbString, emitOmitEmpty),
	pbf(4, "appProtocol", pbString, emitIfSet),
}}

var pbEndpointSubset = &pbType{name: "EndpointSubset", fields: []pbField{
	pbRep(1, "addresses", pbMessage, pbEndpointAddress),
	pbRep(2, "notReadyAddresses", pbMessage, pbEndpointAddress),
	pbRep(3, "ports", pbMessage, pbEndpointPort),
}}

var pbEndpoints = &pbType{name: "Endpoints", fields: []pbField{
	pbMsg(1, "metadata", pbObjectMeta, emitAlways),
	pbRep(2, "subsets", pbMessage, pbEndpointSubset),
}}

// --- apiregistration.k8s.io/v1 ---------------------------------------------

var pbServiceReference = &pbType{name: "ServiceReference", fields: []pbField{
	pbf(1, "namespace", pbString, emitOmitEmpty),
	pbf(2, "name", pbString, emitOmitEmpty),
	pbf(3, "port", pbInt32, emitIfSet),
}}

var pbAPIServiceSpec = &pbType{name: "APIServiceSpec", fields: []pbField{
	pbMsg(1, "service", pbServiceReference, emitIfSet),
	pbf(2, "group", pbString, emitOmitEmpty),
	pbf(3, "version", pbString, emitOmitEmpty),
	pbf(4, "insecureSkipTLSVerify", pbBool, emitOmitEmpty),
	pbf(5, "caBundle", pbBytes, emitOmitEmpty),
	// 6, the old priority, is reserved.
	pbf(7, "groupPriorityMinimum", pbInt32, emitAlways),
	pbf(8, "versionPriority", pbInt32, emitAlways),
}}

var pbAPIServiceCondition = &pbType{name: "APIServiceCondition", fields: []pbField{
	pbf(1, "type", pbString, emitAlways),
	pbf(2, "status", pbString, emitAlways),
	pbf(3, "lastTransitionTime", pbTime, emitAlways),
	pbf(4, "reason", pbString, emitOmitEmpty),
	pbf(5, "message", pbString, emitOmitEmpty),
}}

var pbAPIServiceStatus = &pbType{name: "APIServiceStatus", fields: []pbField{
	pbRep(1, "conditions", pbMessage, pbAPIServiceCondition),
}}

var pbAPIService = pbSpecStatusKind("APIService", pbAPIServiceSpec, pbAPIServiceStatus)

// pbList returns the schema of a <Kind>List: ListMeta metadata = 1,
// repeated <Kind> items = 2 (items is not omitempty).
func pbList(item *pbType) *pbType {
	items := pbRep(2, "items", pbMessage, item)
	items.emit = emitAlways
	return &pbType{name: item.name + "List", fields: []pbField{
		pbMsg(1, "metadata", pbListMeta, emitAlways),
		items,
	}}
}

var (
	pbNamespaceList  = pbList(pbNamespace)
	pbConfigMapList  = pbList(pbConfigMap)
	pbServiceList    = pbList(pbService)
	pbEndpointsList  = pbList(pbEndpoints)
	pbAPIServiceList = pbList(pbAPIService)
)

// protobufSchemaFor returns the schema of apiVersion/kind, or nil when
// aggsim has no protobuf schema for it. DeleteOptions and Status are
// registered in every version upstream serves them from (v1,
// meta.k8s.io/v1 and the apiregistration group).
func protobufSchemaFor(apiVersion, kind string) *pbType {
	switch apiVersion {
	case "v1":
		switch kind {
		case "Namespace":
			return pbNamespace
		case "NamespaceList":
			return pbNamespaceList
		case "ConfigMap":
			return pbConfigMap
		case "ConfigMapList":
			return pbConfigMapList
		case "Service":
			return pbService
		case "ServiceList":
			return pbServiceList
		case "Endpoints":
			return pbEndpoints
		case "EndpointsList":
			return pbEndpointsList
		}
	case "apiregistration.k8s.io/v1":
		switch kind {
		case "APIService":
			return pbAPIService
		case "APIServiceList":
			return pbAPIServiceList
		}
	}
	if apiVersion == "v1" || strings.HasSuffix(apiVersion, "/v1") {
		switch kind {
		case "DeleteOptions":
			return pbDeleteOptions
		case "Status":
			return pbStatus
		}
	}
	return nil
}
