package celrules

import (
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types/ref"
)

// costEstimator gives the checker the maximum sizes of the values a rule
// reads (sizeEstimator in apiextensions' schema/cel/compilation.go) and
// the costs of the Kubernetes library functions (library.CostEstimator in
// apiserver/pkg/cel/library/cost.go).
type costEstimator struct {
	root *declType
}

// EstimateSize walks the AST node's path ("self", field names, "@items",
// "@values", "@keys") down the declared types.
func (c *costEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	p := element.Path()
	if len(p) == 0 || c.root == nil {
		return nil
	}
	cur := c.root
	for _, name := range p[1:] {
		switch name {
		case "@items", "@values":
			if cur.elem == nil {
				return nil
			}
			cur = cur.elem
		case "@keys":
			if cur.kind != kindMap {
				return nil
			}
			// upstream's map key type is the shared string DeclType,
			// whose MaxElements is 0
			cur = &declType{maxElem: 0}
		default:
			f, ok := cur.fields[name]
			if !ok || f.typ == nil {
				return nil
			}
			cur = f.typ
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(cur.maxElem)}
}

// EstimateCallCost returns the estimated cost of the Kubernetes library
// functions; nil leaves cel-go's default.
func (c *costEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return estimateLibraryCallCost(c, function, overloadID, target, args)
}

// CallCost returns the runtime cost of the Kubernetes library functions;
// nil leaves cel-go's default.
func (c *costEstimator) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	return libraryCallCost(function, overloadID, args, result)
}
