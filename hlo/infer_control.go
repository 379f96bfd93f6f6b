package hlo

import "strconv"

// Rules for control flow, tuples, tokens, calls, custom calls and the ops
// whose results are declared rather than derived.

// givenAll returns the declared result types as they are; for ops whose
// results nothing constrains (custom_call, func.call, composite, ...).
func givenAll(c *inferCtx) ([]Type, error) {
	if c.given == nil {
		return nil, c.errf("result types required (they cannot be inferred)")
	}
	return c.given, nil
}

func inferWhile(c *inferCtx) ([]Type, error) {
	if err := c.numRegions(2); err != nil {
		return nil, err
	}
	ts := c.operands
	if _, err := c.checkRegion(0, "cond", ts, []Type{NewTensorType(Bool)}); err != nil {
		return nil, err
	}
	if _, err := c.checkRegion(1, "body", ts, ts); err != nil {
		return nil, err
	}
	return append([]Type{}, ts...), nil
}

// checkBranches checks that every region takes no arguments and that all
// return the types of the first.
func (c *inferCtx) checkBranches(names func(i int) string) ([]Type, error) {
	var first []Type
	for i := range c.regions {
		res, err := c.checkRegion(i, names(i), []Type{}, first)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			first = res
		}
	}
	return first, nil
}

func inferIf(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	p, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	if p.Rank() != 0 || p.DType != Bool {
		return nil, c.errf("predicate has type %s, want tensor<i1>", p)
	}
	if err := c.numRegions(2); err != nil {
		return nil, err
	}
	return c.checkBranches(func(i int) string { return [2]string{"true_branch", "false_branch"}[i] })
}

func inferCase(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	p, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	if p.Rank() != 0 || p.DType != I32 {
		return nil, c.errf("index has type %s, want tensor<i32>", p)
	}
	if len(c.regions) == 0 {
		return nil, c.errf("expected at least one branch")
	}
	return c.checkBranches(func(i int) string { return "branch #" + strconv.Itoa(i) })
}

func inferTuple(c *inferCtx) ([]Type, error) {
	return []Type{&TupleType{Elems: append([]Type{}, c.operands...)}}, nil
}

func inferGetTupleElement(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	t, ok := c.operands[0].(*TupleType)
	if !ok {
		return nil, c.errf("operand has type %s, want a tuple", c.operands[0])
	}
	i, err := c.reqInt("index")
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= int64(len(t.Elems)) {
		return nil, c.errf("index %d is out of range for %s", i, t)
	}
	return []Type{t.Elems[i]}, nil
}

func inferOptimizationBarrier(c *inferCtx) ([]Type, error) {
	return append([]Type{}, c.operands...), nil
}

// tokenOperand checks that operand i is a token.
func (c *inferCtx) tokenOperand(i int) error {
	if _, ok := c.operands[i].(*TokenType); !ok {
		return c.errf("operand #%d has type %s, want !stablehlo.token", i, c.operands[i])
	}
	return nil
}

func inferAfterAll(c *inferCtx) ([]Type, error) {
	for i := range c.operands {
		if err := c.tokenOperand(i); err != nil {
			return nil, err
		}
	}
	return []Type{&TokenType{}}, nil
}

func inferCreateToken(c *inferCtx) ([]Type, error) { return []Type{&TokenType{}}, nil }

func inferReplicaID(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(0); err != nil {
		return nil, err
	}
	return []Type{NewTensorType(U32)}, nil
}

// inferTokenOut: outfeed and send take tensors and a trailing token and
// give a token.
func inferTokenOut(c *inferCtx) ([]Type, error) {
	if err := c.minOperands(1); err != nil {
		return nil, err
	}
	if err := c.tokenOperand(len(c.operands) - 1); err != nil {
		return nil, err
	}
	return []Type{&TokenType{}}, nil
}

// inferTokenIn: infeed and recv take a token and give declared tensors and
// a trailing token.
func inferTokenIn(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	if err := c.tokenOperand(0); err != nil {
		return nil, err
	}
	ts, err := givenAll(c)
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, c.errf("expected at least one result (the token)")
	}
	if _, ok := ts[len(ts)-1].(*TokenType); !ok {
		return nil, c.errf("last result has type %s, want !stablehlo.token", ts[len(ts)-1])
	}
	return ts, nil
}

func inferCustomCall(c *inferCtx) ([]Type, error) {
	if _, ok := AttrStr(c.attr("call_target_name")); !ok {
		return nil, c.errf("missing attribute call_target_name")
	}
	return givenAll(c)
}

func inferComposite(c *inferCtx) ([]Type, error) {
	if _, ok := AttrStr(c.attr("name")); !ok {
		return nil, c.errf("missing attribute name")
	}
	if _, ok := c.attr("decomposition").(SymbolRefAttr); !ok {
		return nil, c.errf("missing attribute decomposition")
	}
	return givenAll(c)
}

func inferCall(c *inferCtx) ([]Type, error) {
	if _, ok := c.attr("callee").(SymbolRefAttr); !ok {
		return nil, c.errf("missing attribute callee")
	}
	return givenAll(c)
}
