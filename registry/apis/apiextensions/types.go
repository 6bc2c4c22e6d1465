package apiextensions

import "github.com/aggsim/aggsim/registry/apis/meta"

// GroupAPIExtensions is the API group of CustomResourceDefinitions.
const GroupAPIExtensions = "apiextensions.k8s.io"

// CustomResourceCleanupFinalizer is the finalizer the API server puts on
// every CustomResourceDefinition: it is removed once every custom
// resource of the definition is deleted.
const CustomResourceCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// ResourceScope is an enum defining the different scopes available to a
// custom resource.
type ResourceScope string

// The two scopes of a custom resource.
const (
	// ClusterScoped custom resources live outside namespaces.
	ClusterScoped ResourceScope = "Cluster"
	// NamespaceScoped custom resources live in a namespace.
	NamespaceScoped ResourceScope = "Namespaced"
)

// ConversionStrategyType describes different conversion types.
type ConversionStrategyType string

// Conversion strategies.
const (
	// NoneConverter changes only the apiVersion of an object.
	NoneConverter ConversionStrategyType = "None"
	// WebhookConverter calls an external webhook to convert.
	WebhookConverter ConversionStrategyType = "Webhook"
)

// ConditionStatus indicates the status of a condition (true, false, or
// unknown).
type ConditionStatus string

// Condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// CustomResourceDefinitionConditionType is a valid value for
// CustomResourceDefinitionCondition.Type.
type CustomResourceDefinitionConditionType string

// Condition types of a CustomResourceDefinition.
const (
	// Established means that the API server has started serving the
	// custom resource.
	Established CustomResourceDefinitionConditionType = "Established"
	// NamesAccepted means the names chosen for this definition do not
	// conflict with others in the group and are therefore accepted.
	NamesAccepted CustomResourceDefinitionConditionType = "NamesAccepted"
	// NonStructuralSchema means that one or more OpenAPI schemas are not
	// structural.
	NonStructuralSchema CustomResourceDefinitionConditionType = "NonStructuralSchema"
	// Terminating means that the definition has been deleted and is
	// cleaning up.
	Terminating CustomResourceDefinitionConditionType = "Terminating"
	// KubernetesAPIApprovalPolicyConformant indicates that an API in
	// *.k8s.io or *.kubernetes.io is or is not approved.
	KubernetesAPIApprovalPolicyConformant CustomResourceDefinitionConditionType = "KubernetesAPIApprovalPolicyConformant"
)

// CustomResourceDefinition represents a resource that should be exposed
// on the API server. Its name MUST be in the format
// <.spec.name>.<.spec.group>.
// ---
// CustomResourceDefinition mirrors apiextensions/v1.CustomResourceDefinition.
// Its top-level fields carry no protobuf tags: aggsim serves CRDs as JSON
// and YAML only (JSONSchemaProps has no protobuf shape here).
type CustomResourceDefinition struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	// +optional
	meta.ObjectMeta `json:"metadata,omitempty"`
	// spec describes how the user wants the resources to appear
	Spec CustomResourceDefinitionSpec `json:"spec"`
	// status indicates the actual state of the CustomResourceDefinition
	// +optional
	Status CustomResourceDefinitionStatus `json:"status,omitempty"`
}

// GetTypeMeta returns the object's TypeMeta.
func (c *CustomResourceDefinition) GetTypeMeta() *meta.TypeMeta { return &c.TypeMeta }

// GetObjectMeta returns the object's ObjectMeta.
func (c *CustomResourceDefinition) GetObjectMeta() *meta.ObjectMeta { return &c.ObjectMeta }

// CustomResourceDefinitionList is a list of CustomResourceDefinition
// objects.
// ---
// CustomResourceDefinitionList mirrors apiextensions/v1.CustomResourceDefinitionList.
type CustomResourceDefinitionList struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	// +optional
	meta.ListMeta `json:"metadata,omitempty"`
	// items list individual CustomResourceDefinition objects
	Items []CustomResourceDefinition `json:"items"`
}

// CustomResourceDefinitionSpec describes how a user wants their resource
// to appear
// ---
// CustomResourceDefinitionSpec mirrors apiextensions/v1.CustomResourceDefinitionSpec.
type CustomResourceDefinitionSpec struct {
	// group is the API group of the defined custom resource. The custom
	// resources are served under `/apis/<group>/...`. Must match the name of
	// the CustomResourceDefinition (in the form `<names.plural>.<group>`).
	Group string `json:"group" protobuf:"bytes,1,opt,name=group"`
	// names specify the resource and kind names for the custom resource.
	Names CustomResourceDefinitionNames `json:"names" protobuf:"bytes,3,opt,name=names"`
	// scope indicates whether the defined custom resource is cluster- or
	// namespace-scoped. Allowed values are `Cluster` and `Namespaced`.
	Scope ResourceScope `json:"scope" protobuf:"bytes,4,opt,name=scope,casttype=ResourceScope"`
	// versions is the list of all API versions of the defined custom
	// resource. Version names are used to compute the order in which served
	// versions are listed in API discovery.
	// +listType=atomic
	Versions []CustomResourceDefinitionVersion `json:"versions" protobuf:"bytes,7,rep,name=versions"`
	// conversion defines conversion settings for the CRD.
	// +optional
	Conversion *CustomResourceConversion `json:"conversion,omitempty" protobuf:"bytes,9,opt,name=conversion"`
	// preserveUnknownFields indicates that object fields which are not
	// specified in the OpenAPI schema should be preserved when persisting to
	// storage. apiVersion, kind, metadata and known fields inside metadata
	// are always preserved. This field is deprecated in favor of setting
	// `x-preserve-unknown-fields` to true in
	// `spec.versions[*].schema.openAPIV3Schema`.
	// +optional
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty" protobuf:"varint,10,opt,name=preserveUnknownFields"`
}

// CustomResourceConversion describes how to convert different versions of
// a CR.
// ---
// CustomResourceConversion mirrors apiextensions/v1.CustomResourceConversion.
type CustomResourceConversion struct {
	// strategy specifies how custom resources are converted between
	// versions. Allowed values are: - `"None"`: The converter only change
	// the apiVersion and would not touch any other field in the custom
	// resource. - `"Webhook"`: API Server will call to an external webhook
	// to do the conversion. Additional information is needed for this
	// option. This requires spec.preserveUnknownFields to be false, and
	// spec.conversion.webhook to be set.
	Strategy ConversionStrategyType `json:"strategy" protobuf:"bytes,1,name=strategy"`
	// webhook describes how to call the conversion webhook. Required when
	// `strategy` is set to `"Webhook"`.
	// +optional
	Webhook *WebhookConversion `json:"webhook,omitempty" protobuf:"bytes,2,opt,name=webhook"`
}

// WebhookConversion describes how to call a conversion webhook
// ---
// WebhookConversion mirrors apiextensions/v1.WebhookConversion.
type WebhookConversion struct {
	// clientConfig is the instructions for how to call the webhook if
	// strategy is `Webhook`.
	// +optional
	ClientConfig *WebhookClientConfig `json:"clientConfig,omitempty" protobuf:"bytes,2,name=clientConfig"`
	// conversionReviewVersions is an ordered list of preferred
	// `ConversionReview` versions the Webhook expects.
	// +listType=atomic
	ConversionReviewVersions []string `json:"conversionReviewVersions" protobuf:"bytes,3,rep,name=conversionReviewVersions"`
}

// WebhookClientConfig contains the information to make a TLS connection
// with the webhook.
// ---
// WebhookClientConfig mirrors apiextensions/v1.WebhookClientConfig.
type WebhookClientConfig struct {
	// url gives the location of the webhook, in standard URL form
	// (`scheme://host:port/path`). Exactly one of `url` or `service` must be
	// specified.
	// +optional
	URL *string `json:"url,omitempty" protobuf:"bytes,3,opt,name=url"`
	// service is a reference to the service for this webhook. Either service
	// or url must be specified.
	// +optional
	Service *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	// caBundle is a PEM encoded CA bundle which will be used to validate the
	// webhook's server certificate. If unspecified, system trust roots on
	// the apiserver are used.
	// +optional
	CABundle []byte `json:"caBundle,omitempty" protobuf:"bytes,2,opt,name=caBundle"`
}

// ServiceReference holds a reference to Service.legacy.k8s.io
// ---
// ServiceReference mirrors apiextensions/v1.ServiceReference.
type ServiceReference struct {
	// namespace is the namespace of the service. Required
	Namespace string `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	// name is the name of the service. Required
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
	// path is an optional URL path at which the webhook will be contacted.
	// +optional
	Path *string `json:"path,omitempty" protobuf:"bytes,3,opt,name=path"`
	// port is an optional service port at which the webhook will be
	// contacted. `port` should be a valid port number (1-65535, inclusive).
	// Defaults to 443 for backward compatibility.
	// +optional
	Port *int32 `json:"port,omitempty" protobuf:"varint,4,opt,name=port"`
}

// CustomResourceDefinitionVersion describes a version for CRD.
// ---
// CustomResourceDefinitionVersion mirrors apiextensions/v1.CustomResourceDefinitionVersion.
type CustomResourceDefinitionVersion struct {
	// name is the version name, e.g. “v1”, “v2beta1”, etc. The custom
	// resources are served under this version at `/apis/<group>/<version>/...`
	// if `served` is true.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// served is a flag enabling/disabling this version from being served via
	// REST APIs
	Served bool `json:"served" protobuf:"varint,2,opt,name=served"`
	// storage indicates this version should be used when persisting custom
	// resources to storage. There must be exactly one version with
	// storage=true.
	Storage bool `json:"storage" protobuf:"varint,3,opt,name=storage"`
	// deprecated indicates this version of the custom resource API is
	// deprecated. When set to true, API requests to this version receive a
	// warning header in the server response. Defaults to false.
	// +optional
	Deprecated bool `json:"deprecated,omitempty" protobuf:"varint,7,opt,name=deprecated"`
	// deprecationWarning overrides the default warning returned to API
	// clients. May only be set when `deprecated` is true. The default
	// warning indicates this version is deprecated and recommends use of the
	// newest served version of equal or greater stability, if one exists.
	// +optional
	DeprecationWarning *string `json:"deprecationWarning,omitempty" protobuf:"bytes,8,opt,name=deprecationWarning"`
	// schema describes the schema used for validation, pruning, and
	// defaulting of this version of the custom resource.
	// +optional
	Schema *CustomResourceValidation `json:"schema,omitempty" protobuf:"bytes,4,opt,name=schema"`
	// subresources specify what subresources this version of the defined
	// custom resource have.
	// +optional
	Subresources *CustomResourceSubresources `json:"subresources,omitempty" protobuf:"bytes,5,opt,name=subresources"`
	// additionalPrinterColumns specifies additional columns returned in
	// Table output. If no columns are specified, a single column displaying
	// the age of the custom resource is used.
	// +optional
	// +listType=atomic
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty" protobuf:"bytes,6,rep,name=additionalPrinterColumns"`
	// selectableFields specifies paths to fields that may be used as field
	// selectors. A maximum of 8 selectable fields are allowed.
	// +optional
	// +listType=atomic
	SelectableFields []SelectableField `json:"selectableFields,omitempty" protobuf:"bytes,9,rep,name=selectableFields"`
}

// SelectableField specifies the JSON path of a field that may be used
// with field selectors.
// ---
// SelectableField mirrors apiextensions/v1.SelectableField.
type SelectableField struct {
	// jsonPath is a simple JSON path which is evaluated against each custom
	// resource to produce a field selector value. Only JSON paths without
	// the array notation are allowed. Must point to a field of type string,
	// boolean or integer.
	JSONPath string `json:"jsonPath" protobuf:"bytes,1,opt,name=jsonPath"`
}

// CustomResourceColumnDefinition specifies a column for server side
// printing.
// ---
// CustomResourceColumnDefinition mirrors apiextensions/v1.CustomResourceColumnDefinition.
type CustomResourceColumnDefinition struct {
	// name is a human readable name for the column.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// type is an OpenAPI type definition for this column. See
	// https://github.com/OAI/OpenAPI-Specification/blob/master/versions/2.0.md#data-types
	// for details.
	Type string `json:"type" protobuf:"bytes,2,opt,name=type"`
	// format is an optional OpenAPI type definition for this column. The
	// 'name' format is applied to the primary identifier column to assist in
	// clients identifying column is the resource name.
	// +optional
	Format string `json:"format,omitempty" protobuf:"bytes,3,opt,name=format"`
	// description is a human readable description of this column.
	// +optional
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	// priority is an integer defining the relative importance of this column
	// compared to others. Lower numbers are considered higher priority.
	// Columns that may be omitted in limited space scenarios should be given
	// a priority greater than 0.
	// +optional
	Priority int32 `json:"priority,omitempty" protobuf:"bytes,5,opt,name=priority"`
	// jsonPath is a simple JSON path (i.e. with array notation) which is
	// evaluated against each custom resource to produce the value for this
	// column.
	JSONPath string `json:"jsonPath" protobuf:"bytes,6,opt,name=JSONPath"`
}

// CustomResourceDefinitionNames indicates the names to serve this
// CustomResourceDefinition
// ---
// CustomResourceDefinitionNames mirrors apiextensions/v1.CustomResourceDefinitionNames.
type CustomResourceDefinitionNames struct {
	// plural is the plural name of the resource to serve. The custom
	// resources are served under `/apis/<group>/<version>/.../<plural>`.
	// Must match the name of the CustomResourceDefinition (in the form
	// `<names.plural>.<group>`). Must be all lowercase.
	Plural string `json:"plural" protobuf:"bytes,1,opt,name=plural"`
	// singular is the singular name of the resource. It must be all
	// lowercase. Defaults to lowercased `kind`.
	// +optional
	Singular string `json:"singular,omitempty" protobuf:"bytes,2,opt,name=singular"`
	// shortNames are short names for the resource, exposed in API discovery
	// documents, and used by clients to support invocations like `kubectl
	// get <shortname>`. It must be all lowercase.
	// +optional
	// +listType=atomic
	ShortNames []string `json:"shortNames,omitempty" protobuf:"bytes,3,rep,name=shortNames"`
	// kind is the serialized kind of the resource. It is normally CamelCase
	// and singular. Custom resource instances will use this value as the
	// `kind` attribute in API calls.
	Kind string `json:"kind" protobuf:"bytes,4,opt,name=kind"`
	// listKind is the serialized kind of the list for this resource.
	// Defaults to "`kind`List".
	// +optional
	ListKind string `json:"listKind,omitempty" protobuf:"bytes,5,opt,name=listKind"`
	// categories is a list of grouped resources this custom resource belongs
	// to (e.g. 'all'). This is published in API discovery documents, and
	// used by clients to support invocations like `kubectl get all`.
	// +optional
	// +listType=atomic
	Categories []string `json:"categories,omitempty" protobuf:"bytes,6,rep,name=categories"`
}

// CustomResourceDefinitionCondition contains details for the current
// condition of this pod.
// ---
// CustomResourceDefinitionCondition mirrors apiextensions/v1.CustomResourceDefinitionCondition.
type CustomResourceDefinitionCondition struct {
	// type is the type of the condition. Types include Established,
	// NamesAccepted and Terminating.
	Type CustomResourceDefinitionConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=CustomResourceDefinitionConditionType"`
	// status is the status of the condition. Can be True, False, Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	// lastTransitionTime last time the condition transitioned from one
	// status to another.
	// +optional
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// reason is a unique, one-word, CamelCase reason for the condition's
	// last transition.
	// +optional
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// message is a human-readable message indicating details about last
	// transition.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// CustomResourceDefinitionStatus indicates the state of the
// CustomResourceDefinition
// ---
// CustomResourceDefinitionStatus mirrors apiextensions/v1.CustomResourceDefinitionStatus.
type CustomResourceDefinitionStatus struct {
	// conditions indicate state for particular aspects of a
	// CustomResourceDefinition
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []CustomResourceDefinitionCondition `json:"conditions" protobuf:"bytes,1,opt,name=conditions"`
	// acceptedNames are the names that are actually being used to serve
	// discovery. They may be different than the names in spec.
	// +optional
	AcceptedNames CustomResourceDefinitionNames `json:"acceptedNames" protobuf:"bytes,2,opt,name=acceptedNames"`
	// storedVersions lists all versions of CustomResources that were ever
	// persisted. Tracking these versions allows a migration path for stored
	// versions in etcd. The field is mutable so a migration controller can
	// finish a migration to another version (ensuring no old objects are
	// left in storage), and then remove the rest of the versions from this
	// list. Versions may not be removed from `spec.versions` while they
	// exist in this list.
	// +optional
	// +listType=atomic
	StoredVersions []string `json:"storedVersions" protobuf:"bytes,3,rep,name=storedVersions"`
}

// CustomResourceValidation is a list of validation methods for
// CustomResources.
// ---
// CustomResourceValidation mirrors apiextensions/v1.CustomResourceValidation.
type CustomResourceValidation struct {
	// openAPIV3Schema is the OpenAPI v3 schema to use for validation and
	// pruning.
	// +optional
	OpenAPIV3Schema *JSONSchemaProps `json:"openAPIV3Schema,omitempty" protobuf:"bytes,1,opt,name=openAPIV3Schema"`
}

// CustomResourceSubresources defines the status and scale subresources
// for CustomResources.
// ---
// CustomResourceSubresources mirrors apiextensions/v1.CustomResourceSubresources.
type CustomResourceSubresources struct {
	// status indicates the custom resource should serve a `/status`
	// subresource. When enabled: 1. requests to the custom resource primary
	// endpoint ignore changes to the `status` stanza of the object. 2.
	// requests to the custom resource `/status` subresource ignore changes
	// to anything other than the `status` stanza of the object.
	// +optional
	Status *CustomResourceSubresourceStatus `json:"status,omitempty" protobuf:"bytes,1,opt,name=status"`
	// scale indicates the custom resource should serve a `/scale`
	// subresource that returns an `autoscaling/v1` Scale object.
	// +optional
	Scale *CustomResourceSubresourceScale `json:"scale,omitempty" protobuf:"bytes,2,opt,name=scale"`
}

// CustomResourceSubresourceStatus defines how to serve the status
// subresource for CustomResources. Status is represented by the `.status`
// JSON path inside of a CustomResource. When set, * exposes a /status
// subresource for the custom resource * PUT requests to the /status
// subresource take a custom resource object, and ignore changes to
// anything except the status stanza * PUT/POST/PATCH requests to the
// custom resource ignore changes to the status stanza
// ---
// CustomResourceSubresourceStatus mirrors apiextensions/v1.CustomResourceSubresourceStatus.
type CustomResourceSubresourceStatus struct{}

// CustomResourceSubresourceScale defines how to serve the scale
// subresource for CustomResources.
// ---
// CustomResourceSubresourceScale mirrors apiextensions/v1.CustomResourceSubresourceScale.
type CustomResourceSubresourceScale struct {
	// specReplicasPath defines the JSON path inside of a custom resource
	// that corresponds to Scale `spec.replicas`. Only JSON paths without the
	// array notation are allowed. Must be a JSON Path under `.spec`.
	SpecReplicasPath string `json:"specReplicasPath" protobuf:"bytes,1,name=specReplicasPath"`
	// statusReplicasPath defines the JSON path inside of a custom resource
	// that corresponds to Scale `status.replicas`. Only JSON paths without
	// the array notation are allowed. Must be a JSON Path under `.status`.
	StatusReplicasPath string `json:"statusReplicasPath" protobuf:"bytes,2,opt,name=statusReplicasPath"`
	// labelSelectorPath defines the JSON path inside of a custom resource
	// that corresponds to Scale `status.selector`. Only JSON paths without
	// the array notation are allowed. Must be a JSON Path under `.status` or
	// `.spec`.
	// +optional
	LabelSelectorPath *string `json:"labelSelectorPath,omitempty" protobuf:"bytes,3,opt,name=labelSelectorPath"`
}
