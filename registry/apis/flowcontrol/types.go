package flowcontrol

import "github.com/aggsim/aggsim/registry/apis/meta"

// FlowSchema sorts incoming requests into a priority level: requests
// that match its rules are handled by the priority level it names, split
// into flows by its distinguisher. Of the FlowSchemas that match a
// request, the one with the lowest matchingPrecedence wins.
// ---
// FlowSchema mirrors flowcontrol/v1's (cluster-scoped). The registry
// stores it as a GenericObject; this type describes its wire form (the
// OpenAPI schema is derived from it).
type FlowSchema struct {
	meta.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Which requests the FlowSchema matches and where it sends them.
	// +optional
	Spec FlowSchemaSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// The FlowSchema's conditions, written by the server.
	// +optional
	Status FlowSchemaStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// FlowSchemaList is a list of FlowSchema objects.
type FlowSchemaList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The FlowSchema objects.
	Items []FlowSchema `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// FlowSchemaStatus is what the server reports about a FlowSchema.
type FlowSchemaStatus struct {
	// The FlowSchema's current conditions, at most one per type (for
	// example Dangling: its priority level does not exist).
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []FlowSchemaCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
}

// FlowSchemaCondition is one condition of a FlowSchema.
type FlowSchemaCondition struct {
	// The condition's type, for example Dangling.
	Type string `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// Whether the condition holds: True, False or Unknown.
	Status string `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// When the status last changed.
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// A CamelCase word for why the status last changed.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// A sentence for people about the last change.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// PriorityLevelConfiguration is a priority level: the share of the
// server's concurrency the requests sent to it get, and what happens to
// those that exceed it (queued or rejected), or that it is exempt from
// limits.
// ---
// PriorityLevelConfiguration mirrors flowcontrol/v1's (cluster-scoped),
// stored as a GenericObject.
type PriorityLevelConfiguration struct {
	meta.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// How the priority level limits the requests sent to it.
	// +optional
	Spec PriorityLevelConfigurationSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// The priority level's conditions, written by the server.
	// +optional
	Status PriorityLevelConfigurationStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PriorityLevelConfigurationList is a list of PriorityLevelConfiguration
// objects.
type PriorityLevelConfigurationList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The PriorityLevelConfiguration objects.
	Items []PriorityLevelConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PriorityLevelConfigurationStatus is what the server reports about a
// priority level.
type PriorityLevelConfigurationStatus struct {
	// The priority level's current conditions, at most one per type.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []PriorityLevelConfigurationCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
}

// PriorityLevelConfigurationCondition is one condition of a priority
// level.
type PriorityLevelConfigurationCondition struct {
	// The condition's type.
	Type string `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// Whether the condition holds: True, False or Unknown.
	Status string `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// When the status last changed.
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// A CamelCase word for why the status last changed.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// A sentence for people about the last change.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// FlowSchemaSpec says which requests a FlowSchema matches, the priority
// level it sends them to and how it splits them into flows.
type FlowSchemaSpec struct {
	// The priority level that matched requests are handled by. Required.
	PriorityLevelConfiguration PriorityLevelConfigurationReference `json:"priorityLevelConfiguration" protobuf:"bytes,1,opt,name=priorityLevelConfiguration"`
	// Orders the FlowSchemas: of those matching a request, the one with
	// the lowest value wins. From 1 to 10000; defaults to 1000.
	// +optional
	MatchingPrecedence int32 `json:"matchingPrecedence" protobuf:"varint,2,opt,name=matchingPrecedence"`
	// How matched requests are split into flows: ByUser or ByNamespace.
	// Absent, all matched requests are one flow.
	// +optional
	DistinguisherMethod *FlowDistinguisherMethod `json:"distinguisherMethod,omitempty" protobuf:"bytes,3,opt,name=distinguisherMethod"`
	// The rules a request is matched by; it matches when any rule does.
	// No rules: the FlowSchema matches no request.
	// +listType=atomic
	// +optional
	Rules []PolicyRulesWithSubjects `json:"rules,omitempty" protobuf:"bytes,4,rep,name=rules"`
}

// FlowDistinguisherMethod says how a FlowSchema's requests are split into
// flows.
type FlowDistinguisherMethod struct {
	// ByUser (one flow per requesting user) or ByNamespace (one flow per
	// namespace of the request). Required.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
}

// PriorityLevelConfigurationReference names the priority level of a
// FlowSchema.
type PriorityLevelConfigurationReference struct {
	// The PriorityLevelConfiguration's name. Required.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// PolicyRulesWithSubjects matches a request by who makes it (subjects)
// and what it asks for (resource or non-resource rules): both must match.
type PolicyRulesWithSubjects struct {
	// The users, groups and service accounts matched; at least one.
	// Required.
	// +listType=atomic
	Subjects []Subject `json:"subjects" protobuf:"bytes,1,rep,name=subjects"`
	// Rules for requests on resources; a request matches if any does.
	// +listType=atomic
	// +optional
	ResourceRules []ResourcePolicyRule `json:"resourceRules,omitempty" protobuf:"bytes,2,opt,name=resourceRules"`
	// Rules for requests on other URLs (such as /healthz); a request
	// matches if any does.
	// +listType=atomic
	// +optional
	NonResourceRules []NonResourcePolicyRule `json:"nonResourceRules,omitempty" protobuf:"bytes,3,opt,name=nonResourceRules"`
}

// Subject is a user, a group or a service account that a rule matches;
// kind says which field is set.
// +union
type Subject struct {
	// Which kind of subject this is: User, Group or ServiceAccount.
	// Required.
	// +unionDiscriminator
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// The user, when kind is User.
	// +optional
	User *UserSubject `json:"user,omitempty" protobuf:"bytes,2,opt,name=user"`
	// The group, when kind is Group.
	// +optional
	Group *GroupSubject `json:"group,omitempty" protobuf:"bytes,3,opt,name=group"`
	// The service account, when kind is ServiceAccount.
	// +optional
	ServiceAccount *ServiceAccountSubject `json:"serviceAccount,omitempty" protobuf:"bytes,4,opt,name=serviceAccount"`
}

// UserSubject names a user.
type UserSubject struct {
	// The user's name; "*" matches every user. Required.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// GroupSubject names a group.
type GroupSubject struct {
	// The group's name, for example "system:authenticated"; "*" matches
	// every group. Required.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// ServiceAccountSubject names a service account.
type ServiceAccountSubject struct {
	// The service account's namespace. Required.
	Namespace string `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	// The service account's name; "*" matches every service account of
	// the namespace. Required.
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
}

// ResourcePolicyRule matches requests on resources by verb, API group,
// resource and namespace; all must match.
type ResourcePolicyRule struct {
	// The verbs matched ("get", "list", ...); "*" matches every verb (then
	// alone in the list). Required.
	// +listType=set
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// The API groups matched ("" is the core group); "*" matches every
	// group (then alone in the list). Required.
	// +listType=set
	APIGroups []string `json:"apiGroups" protobuf:"bytes,2,rep,name=apiGroups"`
	// The resources matched, by plural name or "resource/subresource";
	// "*" matches every resource (then alone in the list). Required.
	// +listType=set
	Resources []string `json:"resources" protobuf:"bytes,3,rep,name=resources"`
	// Whether requests that name no namespace (on cluster-scoped
	// resources, or across all namespaces) match. Otherwise only
	// namespaced requests can match.
	// +optional
	ClusterScope bool `json:"clusterScope,omitempty" protobuf:"varint,4,opt,name=clusterScope"`
	// The namespaces of the namespaced requests matched; "*" matches every
	// namespace. Empty: only requests matched by clusterScope.
	// +listType=set
	// +optional
	Namespaces []string `json:"namespaces" protobuf:"bytes,5,rep,name=namespaces"`
}

// NonResourcePolicyRule matches requests on non-resource URLs by verb and
// path.
type NonResourcePolicyRule struct {
	// The verbs matched ("get", "post", ...); "*" matches every verb (then
	// alone in the list). Required.
	// +listType=set
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// The URL paths matched: exact paths, or a prefix ending in "/*"
	// ("/healthz/*"); "*" matches every path. Required.
	// +listType=set
	NonResourceURLs []string `json:"nonResourceURLs" protobuf:"bytes,6,rep,name=nonResourceURLs"`
}

// PriorityLevelConfigurationSpec says whether a priority level is exempt
// from limits or limited, and how.
// +union
type PriorityLevelConfigurationSpec struct {
	// Exempt (requests are never limited or queued; only the level named
	// "exempt") or Limited (requests share a part of the server's
	// concurrency). Required.
	// +unionDiscriminator
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// The limits of a Limited level; set exactly when type is Limited.
	// +optional
	Limited *LimitedPriorityLevelConfiguration `json:"limited,omitempty" protobuf:"bytes,2,opt,name=limited"`
	// The settings of an Exempt level; may be set only when type is
	// Exempt.
	// +optional
	Exempt *ExemptPriorityLevelConfiguration `json:"exempt,omitempty" protobuf:"bytes,3,opt,name=exempt"`
}

// LimitedPriorityLevelConfiguration is how a Limited priority level
// shares the server's concurrency and what happens to the requests above
// its share.
type LimitedPriorityLevelConfiguration struct {
	// This level's weight in dividing the server's concurrency limit
	// among the limited levels: its nominal limit is the server's limit
	// times its shares over the sum of all levels' shares. Defaults to 30.
	// ---
	// Encoded even when nil, as upstream's json tag has no omitempty.
	// +optional
	NominalConcurrencyShares *int32 `json:"nominalConcurrencyShares" protobuf:"varint,1,opt,name=nominalConcurrencyShares"`
	// What happens to requests that cannot run at once: queue them or
	// reject them.
	LimitResponse LimitResponse `json:"limitResponse,omitempty" protobuf:"bytes,2,opt,name=limitResponse"`
	// The percentage of this level's nominal concurrency other levels
	// may borrow while it does not use it, 0 to 100. Defaults to 0.
	// +optional
	LendablePercent *int32 `json:"lendablePercent,omitempty" protobuf:"varint,3,opt,name=lendablePercent"`
	// The most this level may borrow from others, as a percentage of its
	// own nominal concurrency. Absent: no limit.
	// +optional
	BorrowingLimitPercent *int32 `json:"borrowingLimitPercent,omitempty" protobuf:"varint,4,opt,name=borrowingLimitPercent"`
}

// ExemptPriorityLevelConfiguration holds the settings of an Exempt
// priority level; its requests are never limited, but its shares still
// count when the server's concurrency is divided.
type ExemptPriorityLevelConfiguration struct {
	// This level's weight in dividing the server's concurrency limit (see
	// the limited level's field of the same name). Defaults to 0.
	// +optional
	NominalConcurrencyShares *int32 `json:"nominalConcurrencyShares,omitempty" protobuf:"varint,1,opt,name=nominalConcurrencyShares"`
	// The percentage of this level's nominal concurrency other levels
	// may borrow, 0 to 100. Defaults to 0.
	// +optional
	LendablePercent *int32 `json:"lendablePercent,omitempty" protobuf:"varint,2,opt,name=lendablePercent"`
}

// LimitResponse is what a Limited priority level does with requests it
// cannot run at once.
// +union
type LimitResponse struct {
	// Queue (wait in queues until they can run or time out) or Reject
	// (answer 429 at once). Required.
	// +unionDiscriminator
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// The queues, when type is Queue.
	// +optional
	Queuing *QueuingConfiguration `json:"queuing,omitempty" protobuf:"bytes,2,opt,name=queuing"`
}

// QueuingConfiguration sizes the queues of a priority level.
type QueuingConfiguration struct {
	// The number of queues requests are spread over; 1 turns off shuffle
	// sharding. Defaults to 64.
	// +optional
	Queues int32 `json:"queues" protobuf:"varint,1,opt,name=queues"`
	// How many queues each flow is dealt (shuffle sharding): a request
	// goes to the shortest of its flow's queues. At most queues. Defaults
	// to 8.
	// +optional
	HandSize int32 `json:"handSize" protobuf:"varint,2,opt,name=handSize"`
	// How many requests one queue holds; further requests are rejected.
	// Defaults to 50.
	// +optional
	QueueLengthLimit int32 `json:"queueLengthLimit" protobuf:"varint,3,opt,name=queueLengthLimit"`
}
