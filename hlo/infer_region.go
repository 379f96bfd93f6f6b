package hlo

import "fmt"

// Region signatures: ops with regions state what their blocks take and what
// their stablehlo.return gives back; these helpers check a region against
// that signature.

// entryBlock returns the single block of region i.
func (c *inferCtx) entryBlock(i int, what string) (*Block, error) {
	if i >= len(c.regions) || c.regions[i] == nil {
		return nil, c.errf("missing %s region", what)
	}
	r := c.regions[i]
	if len(r.Blocks) != 1 {
		return nil, c.errf("%s region has %d blocks, want 1", what, len(r.Blocks))
	}
	return r.Blocks[0], nil
}

// blockArgTypes returns the types of a block's arguments.
func blockArgTypes(b *Block) []Type {
	ts := make([]Type, len(b.Args))
	for i, a := range b.Args {
		ts[i] = a.Type
	}
	return ts
}

// blockReturnTypes returns the operand types of a block's terminator, which
// must be stablehlo.return.
func blockReturnTypes(b *Block) ([]Type, error) {
	if len(b.Ops) == 0 {
		return nil, fmt.Errorf("block has no terminator")
	}
	t := b.Ops[len(b.Ops)-1]
	if t.Name != "stablehlo.return" {
		return nil, fmt.Errorf("block ends with %s, want stablehlo.return", t.Name)
	}
	ts := make([]Type, len(t.Operands))
	for i, v := range t.Operands {
		if v == nil || v.Type == nil {
			return nil, fmt.Errorf("stablehlo.return operand #%d has no type", i)
		}
		ts[i] = v.Type
	}
	return ts, nil
}

// regionSig reads the argument and return types of region i.
func (c *inferCtx) regionSig(i int, what string) (args, results []Type, err error) {
	b, err := c.entryBlock(i, what)
	if err != nil {
		return nil, nil, err
	}
	results, err = blockReturnTypes(b)
	if err != nil {
		return nil, nil, c.errf("%s region: %v", what, err)
	}
	return blockArgTypes(b), results, nil
}

// checkRegion checks region i against a fixed signature (nil wantArgs or
// wantResults: not checked).
func (c *inferCtx) checkRegion(i int, what string, wantArgs, wantResults []Type) ([]Type, error) {
	args, results, err := c.regionSig(i, what)
	if err != nil {
		return nil, err
	}
	if wantArgs != nil && !typesCompatibleList(args, wantArgs) {
		return nil, c.errf("%s region takes (%s), want (%s)", what, typeList(args), typeList(wantArgs))
	}
	if wantResults != nil && !typesCompatibleList(results, wantResults) {
		return nil, c.errf("%s region returns (%s), want (%s)", what, typeList(results), typeList(wantResults))
	}
	return results, nil
}

// checkReducer checks a reduction body over n accumulators: it takes
// (tensor<E0>..., tensor<E0>...) and returns (tensor<E0>...), where each
// input element type is promotable to Ei. It returns the Ei as 0-d tensors.
func (c *inferCtx) checkReducer(i int, what string, inputs []*TensorType) ([]*TensorType, error) {
	args, results, err := c.regionSig(i, what)
	if err != nil {
		return nil, err
	}
	n := len(inputs)
	if len(args) != 2*n {
		return nil, c.errf("%s region takes %d arguments (%s), want %d", what, len(args), typeList(args), 2*n)
	}
	if len(results) != n {
		return nil, c.errf("%s region returns %d values (%s), want %d", what, len(results), typeList(results), n)
	}
	acc := make([]*TensorType, n)
	for k := 0; k < n; k++ {
		a, ok1 := args[k].(*TensorType)
		b, ok2 := args[n+k].(*TensorType)
		if !ok1 || !ok2 || a.Rank() != 0 || b.Rank() != 0 {
			return nil, c.errf("%s region arguments #%d and #%d are %s and %s, want 0-d tensors", what, k, n+k, args[k], args[n+k])
		}
		if !TypesCompatible(a, b) {
			return nil, c.errf("%s region arguments #%d and #%d differ: %s and %s", what, k, n+k, a, b)
		}
		if !TypesCompatible(results[k], a) {
			return nil, c.errf("%s region returns %s as result #%d, want %s", what, results[k], k, a)
		}
		if !isPromotable(inputs[k], a) {
			return nil, c.errf("%s region accumulator type %s cannot hold input element type %s", what, a, inputs[k].ElemString())
		}
		acc[k] = a
	}
	return acc, nil
}
