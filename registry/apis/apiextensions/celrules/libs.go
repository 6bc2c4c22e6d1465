package celrules

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types/ref"
)

// kubeLibraries are the Kubernetes CEL libraries of
// apiserver/pkg/cel/library offered to CRD rules in 1.33.
func kubeLibraries() []cel.EnvOption {
	return nil
}

func estimateLibraryCallCost(c *costEstimator, function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return nil
}

func libraryCallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	return nil
}
