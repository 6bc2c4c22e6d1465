package flowcontrol

import "github.com/aggsim/aggsim/registry/apis/meta"

// FlowSchemaSpec is the spec of a FlowSchema.
type FlowSchemaSpec struct {
	// PriorityLevelConfiguration names the priority level matched
	// requests are assigned to; required.
	PriorityLevelConfiguration PriorityLevelConfigurationReference `json:"priorityLevelConfiguration" protobuf:"bytes,1,opt,name=priorityLevelConfiguration"`
	// MatchingPrecedence orders FlowSchemas, 1 to 10000 (lowest first);
	// default 1000.
	MatchingPrecedence int32 `json:"matchingPrecedence" protobuf:"varint,2,opt,name=matchingPrecedence"`
	// DistinguisherMethod is how flows are told apart (ByUser or
	// ByNamespace); nil means one flow.
	DistinguisherMethod *FlowDistinguisherMethod `json:"distinguisherMethod,omitempty" protobuf:"bytes,3,opt,name=distinguisherMethod"`
	// Rules describe the requests that match; none means no request.
	Rules []PolicyRulesWithSubjects `json:"rules,omitempty" protobuf:"bytes,4,rep,name=rules"`
}

// FlowDistinguisherMethod is a FlowSchema's flow distinguisher.
type FlowDistinguisherMethod struct {
	// Type is ByUser or ByNamespace.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
}

// PriorityLevelConfigurationReference names a PriorityLevelConfiguration.
type PriorityLevelConfigurationReference struct {
	// Name of the priority level.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// PolicyRulesWithSubjects matches requests by who makes them (Subjects)
// and what they ask for (ResourceRules or NonResourceRules).
type PolicyRulesWithSubjects struct {
	// Subjects are the users, groups and service accounts matched; at
	// least one.
	Subjects []Subject `json:"subjects" protobuf:"bytes,1,rep,name=subjects"`
	// ResourceRules match resource requests.
	ResourceRules []ResourcePolicyRule `json:"resourceRules,omitempty" protobuf:"bytes,2,opt,name=resourceRules"`
	// NonResourceRules match non-resource requests.
	NonResourceRules []NonResourcePolicyRule `json:"nonResourceRules,omitempty" protobuf:"bytes,3,opt,name=nonResourceRules"`
}

// Subject is a user, group or service account; Kind says which member is
// set.
type Subject struct {
	// Kind is User, Group or ServiceAccount.
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// User is set when Kind is User.
	User *UserSubject `json:"user,omitempty" protobuf:"bytes,2,opt,name=user"`
	// Group is set when Kind is Group.
	Group *GroupSubject `json:"group,omitempty" protobuf:"bytes,3,opt,name=group"`
	// ServiceAccount is set when Kind is ServiceAccount.
	ServiceAccount *ServiceAccountSubject `json:"serviceAccount,omitempty" protobuf:"bytes,4,opt,name=serviceAccount"`
}

// UserSubject names a user ("*" for all).
type UserSubject struct {
	// Name of the user.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// GroupSubject names a group ("*" for all).
type GroupSubject struct {
	// Name of the group.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// ServiceAccountSubject names a service account ("*" name for all in the
// namespace).
type ServiceAccountSubject struct {
	// Namespace of the service account; required.
	Namespace string `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	// Name of the service account, or "*".
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
}

// ResourcePolicyRule matches resource requests by verb, group, resource
// and namespace.
type ResourcePolicyRule struct {
	// Verbs matched ("*" for all).
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// APIGroups matched ("*" for all).
	APIGroups []string `json:"apiGroups" protobuf:"bytes,2,rep,name=apiGroups"`
	// Resources matched ("*" for all).
	Resources []string `json:"resources" protobuf:"bytes,3,rep,name=resources"`
	// ClusterScope says whether cluster-scoped requests match.
	ClusterScope bool `json:"clusterScope,omitempty" protobuf:"varint,4,opt,name=clusterScope"`
	// Namespaces matched ("*" for all).
	Namespaces []string `json:"namespaces" protobuf:"bytes,5,rep,name=namespaces"`
}

// NonResourcePolicyRule matches non-resource requests by verb and URL.
type NonResourcePolicyRule struct {
	// Verbs matched ("*" for all).
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// NonResourceURLs matched; a trailing "/*" matches a prefix.
	NonResourceURLs []string `json:"nonResourceURLs" protobuf:"bytes,6,rep,name=nonResourceURLs"`
}

// PriorityLevelConfigurationSpec is the spec of a
// PriorityLevelConfiguration.
type PriorityLevelConfigurationSpec struct {
	// Type is Exempt (only the level named exempt) or Limited.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Limited configures a Limited level.
	Limited *LimitedPriorityLevelConfiguration `json:"limited,omitempty" protobuf:"bytes,2,opt,name=limited"`
	// Exempt configures the Exempt level.
	Exempt *ExemptPriorityLevelConfiguration `json:"exempt,omitempty" protobuf:"bytes,3,opt,name=exempt"`
}

// LimitedPriorityLevelConfiguration configures a Limited level.
type LimitedPriorityLevelConfiguration struct {
	// NominalConcurrencyShares is this level's share of the server's
	// concurrency; default 30 (encoded even when nil, as upstream).
	NominalConcurrencyShares *int32 `json:"nominalConcurrencyShares" protobuf:"varint,1,opt,name=nominalConcurrencyShares"`
	// LimitResponse is what happens to requests over the limit.
	LimitResponse LimitResponse `json:"limitResponse,omitempty" protobuf:"bytes,2,opt,name=limitResponse"`
	// LendablePercent is the percentage of the level's concurrency other
	// levels may borrow, 0 to 100; default 0.
	LendablePercent *int32 `json:"lendablePercent,omitempty" protobuf:"varint,3,opt,name=lendablePercent"`
	// BorrowingLimitPercent caps what the level may borrow, as a
	// percentage of its own concurrency; nil means no limit.
	BorrowingLimitPercent *int32 `json:"borrowingLimitPercent,omitempty" protobuf:"varint,4,opt,name=borrowingLimitPercent"`
}

// ExemptPriorityLevelConfiguration configures the Exempt level.
type ExemptPriorityLevelConfiguration struct {
	// NominalConcurrencyShares; default 0.
	NominalConcurrencyShares *int32 `json:"nominalConcurrencyShares,omitempty" protobuf:"varint,1,opt,name=nominalConcurrencyShares"`
	// LendablePercent, 0 to 100; default 0.
	LendablePercent *int32 `json:"lendablePercent,omitempty" protobuf:"varint,2,opt,name=lendablePercent"`
}

// LimitResponse is Reject, or Queue with Queuing parameters.
type LimitResponse struct {
	// Type is Queue or Reject.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Queuing is set when Type is Queue.
	Queuing *QueuingConfiguration `json:"queuing,omitempty" protobuf:"bytes,2,opt,name=queuing"`
}

// QueuingConfiguration are the queuing parameters of a level.
type QueuingConfiguration struct {
	// Queues is the number of queues; default 64.
	Queues int32 `json:"queues" protobuf:"varint,1,opt,name=queues"`
	// HandSize is the shuffle-sharding hand size; default 8.
	HandSize int32 `json:"handSize" protobuf:"varint,2,opt,name=handSize"`
	// QueueLengthLimit is the maximum queue length; default 50.
	QueueLengthLimit int32 `json:"queueLengthLimit" protobuf:"varint,3,opt,name=queueLengthLimit"`
}

// FlowSchemaStatus is the status of a FlowSchema, written by the server.
type FlowSchemaStatus struct {
	// Conditions are the FlowSchema's current conditions (the server
	// maintains Dangling), one per type.
	// +listType=map
	// +listMapKey=type
	Conditions []FlowSchemaCondition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`
}

// FlowSchemaCondition is one condition of a FlowSchema.
type FlowSchemaCondition struct {
	// Type of the condition; the server writes Dangling.
	Type string `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status string `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is when the condition last changed.
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a CamelCase word saying why (Found, NotFound).
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is the reason in a sentence.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// PriorityLevelConfigurationStatus is the status of a
// PriorityLevelConfiguration.
type PriorityLevelConfigurationStatus struct {
	// Conditions are the level's current conditions, one per type.
	// +listType=map
	// +listMapKey=type
	Conditions []PriorityLevelConfigurationCondition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`
}

// PriorityLevelConfigurationCondition is one condition of a
// PriorityLevelConfiguration.
type PriorityLevelConfigurationCondition struct {
	// Type of the condition.
	Type string `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status string `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is when the condition last changed.
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a CamelCase word saying why.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is the reason in a sentence.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}
