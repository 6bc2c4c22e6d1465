package flowcontrol

func ptr[T any](v T) *T { return &v }

// DefaultFlowSchemaSpec mirrors SetDefaults_FlowSchemaSpec: a zero
// matchingPrecedence becomes 1000.
func DefaultFlowSchemaSpec(s *FlowSchemaSpec) {
	if s.MatchingPrecedence == 0 {
		s.MatchingPrecedence = 1000
	}
}

// DefaultPriorityLevelConfigurationSpec mirrors upstream's defaults of
// the exempt and limited configurations and of queuing parameters
// (pkg/apis/flowcontrol/v1/defaults.go): nominalConcurrencyShares 30 (0
// for exempt), lendablePercent 0, queues 64, handSize 8,
// queueLengthLimit 50.
func DefaultPriorityLevelConfigurationSpec(s *PriorityLevelConfigurationSpec) {
	if e := s.Exempt; e != nil {
		if e.NominalConcurrencyShares == nil {
			e.NominalConcurrencyShares = ptr(int32(0))
		}
		if e.LendablePercent == nil {
			e.LendablePercent = ptr(int32(0))
		}
	}
	if l := s.Limited; l != nil {
		if l.NominalConcurrencyShares == nil {
			l.NominalConcurrencyShares = ptr(int32(30))
		}
		if l.LendablePercent == nil {
			l.LendablePercent = ptr(int32(0))
		}
		if q := l.LimitResponse.Queuing; q != nil {
			if q.HandSize == 0 {
				q.HandSize = 8
			}
			if q.Queues == 0 {
				q.Queues = 64
			}
			if q.QueueLengthLimit == 0 {
				q.QueueLengthLimit = 50
			}
		}
	}
}
