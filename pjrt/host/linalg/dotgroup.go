package linalg

import (
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// A dot_general compiles as one compound step (kernel.Compound) with:
//
//   - the transposes that make its operands, read through strides instead
//     (a transpose whose free dimensions keep their relative order; the
//     dimension numbers are remapped), and dropped when only the dot reads
//     them;
//   - a transpose of its result that swaps the two operands' free
//     dimensions, by computing the product with the operands swapped;
//   - a chain of elementwise ops on its result (bias, activation,
//     residual: see epilogue), applied to each finished row of the GEMM's
//     output while it is in cache.
//
// Every element is computed as unfused execution computes it: the product
// sums the same products in the same order (the contracting dimensions
// are paired in the same order, and a*b = b*a exactly), and the chain runs
// the ops' own tile functions on the same values. So the results are
// bit-identical.

// maxChain bounds the elementwise ops one product absorbs.
const maxChain = 16

func groupDot(g *kernel.GroupCtx) (*kernel.Compound, error) {
	op := g.Op
	if len(op.Operands) != 2 || len(op.Results) != 1 || len(op.Regions) > 0 {
		return nil, nil
	}
	dd, ok := op.Attr("dot_dimension_numbers").(*hlo.DotDimsAttr)
	if !ok {
		return nil, nil
	}
	for _, v := range append(slices.Clone(op.Operands), op.Results[0]) {
		if t := v.TensorType(); t == nil || !t.IsStatic() || t.Quant != nil {
			return nil, nil
		}
	}
	d := dotDims{dd.LhsBatchingDims, dd.RhsBatchingDims, dd.LhsContractingDims, dd.RhsContractingDims}
	operands := slices.Clone(op.Operands)
	ops := []*hlo.Op{op}
	changed := false
	// Transposed operands.
	for i, v := range operands {
		t := v.Def
		if t == nil || t.Name != "stablehlo.transpose" || len(t.Operands) != 1 || !g.InBlock(t) {
			continue
		}
		perm, ok := hlo.AttrInts(t.Attr("permutation"))
		if !ok || len(perm) != v.TensorType().Rank() {
			continue
		}
		batch, contract := &d.lb, &d.lc
		if i == 1 {
			batch, contract = &d.rb, &d.rc
		}
		nb, nc, ok := throughTranspose(perm, *batch, *contract)
		if !ok {
			continue
		}
		*batch, *contract = nb, nc
		operands[i] = t.Operands[0]
		changed = true
		if onlyReader(g, v, op) && !slices.Contains(ops, t) {
			ops = append(ops, t)
		}
	}
	// A transposed result.
	res := op.Results[0]
	swap := false
	if u := soleUser(g, res); u != nil && u.Name == "stablehlo.transpose" && op.Attr("algorithm") == nil {
		perm, ok := hlo.AttrInts(u.Attr("permutation"))
		nl := op.Operands[0].TensorType().Rank() - len(d.lb) - len(d.lc)
		nr := op.Operands[1].TensorType().Rank() - len(d.rb) - len(d.rc)
		if ok && slices.Equal(perm, swappedFree(len(d.lb), nl, nr)) {
			swap = true
			ops = append(ops, u)
			res = u.Results[0]
		}
	}
	// The elementwise chain, on rows of the product's right free
	// dimensions.
	rt := res.TensorType()
	rhsFree := op.Operands[1].TensorType().Rank() - len(d.rb) - len(d.rc)
	if swap {
		rhsFree = op.Operands[0].TensorType().Rank() - len(d.lb) - len(d.lc)
	}
	rowLen := int(hlo.NumElements(rt.Dims[rt.Rank()-rhsFree:]))
	var chain *epilogue
	var inputs []*hlo.Value
	if dt := rt.DType; dt == hlo.F32 || dt == hlo.F64 {
		kind, err := chooseDotKind(op.Operands[0].TensorType().DType, op.Operands[1].TensorType().DType, dt, dotAlgorithm{})
		if err == nil && (kind == dotF32 && dt == hlo.F32 || kind == dotF64 && dt == hlo.F64) && op.Attr("algorithm") == nil {
			var absorbed []*hlo.Op
			chain, inputs, absorbed, res, err = buildEpilogue(g, res, ops, rowLen)
			if err != nil {
				return nil, err
			}
			ops = append(ops, absorbed...)
		}
	}
	if !changed && !swap && chain == nil {
		return nil, nil
	}
	if swap {
		operands[0], operands[1] = operands[1], operands[0]
		d = dotDims{d.rb, d.lb, d.rc, d.lc}
	}
	attrs := []hlo.NamedAttr{{Name: "dot_dimension_numbers", Value: &hlo.DotDimsAttr{
		LhsBatchingDims: d.lb, RhsBatchingDims: d.rb, LhsContractingDims: d.lc, RhsContractingDims: d.rc,
	}}}
	for _, a := range op.Attrs {
		if a.Name != "dot_dimension_numbers" && a.Name != "precision_config" {
			attrs = append(attrs, a)
		}
	}
	prod := hlo.NewOp(op.Name, operands, []hlo.Type{rt}, attrs...)
	prod.Loc = op.Loc
	c := g.OpCtx(prod)
	algo, err := parseDotAlgorithm(c)
	if err != nil {
		return nil, err
	}
	p, err := newDotPlan(c, d, algo)
	if err != nil {
		return nil, err
	}
	return &kernel.Compound{
		Ops:     ops,
		Inputs:  append(operands, inputs...),
		Outputs: []*hlo.Value{res},
		Run: func(x *kernel.Ctx, args, results []kernel.Value) error {
			l, r, err := argPair(c, args)
			if err != nil {
				return err
			}
			var er *epiRun
			if chain != nil {
				if er, err = chain.bind(c, args[2:]); err != nil {
					return err
				}
			}
			results[0] = p.run(x, l, r, er)
			er.release()
			return nil
		},
	}, nil
}

// throughTranspose maps one operand's batching and contracting dimensions
// (of t = transpose(x, perm)) to x's, when t's remaining (free) dimensions
// keep their order in x (the product's result lays them out in order).
func throughTranspose(perm, batch, contract []int64) (nb, nc []int64, ok bool) {
	used := make([]bool, len(perm))
	for _, l := range [][]int64{batch, contract} {
		for _, d := range l {
			if d < 0 || int(d) >= len(perm) {
				return nil, nil, false
			}
			used[d] = true
		}
	}
	last := int64(-1)
	for d, p := range perm {
		if used[d] {
			continue
		}
		if p <= last {
			return nil, nil, false
		}
		last = p
	}
	for _, d := range batch {
		nb = append(nb, perm[d])
	}
	for _, d := range contract {
		nc = append(nc, perm[d])
	}
	return nb, nc, true
}

// swappedFree is the permutation of a product's result [batch, lhs free,
// rhs free] that puts the right operand's free dimensions first.
func swappedFree(nb, nl, nr int) []int64 {
	var p []int64
	for i := 0; i < nb; i++ {
		p = append(p, int64(i))
	}
	for i := 0; i < nr; i++ {
		p = append(p, int64(nb+nl+i))
	}
	for i := 0; i < nl; i++ {
		p = append(p, int64(nb+i))
	}
	return p
}

// soleUser is the one op of the block reading v, when v is not returned
// and that op is free to join a compound.
func soleUser(g *kernel.GroupCtx, v *hlo.Value) *hlo.Op {
	us := g.Users(v)
	if len(us) != 1 || g.Returned(v) || !g.InBlock(us[0]) {
		return nil
	}
	return us[0]
}

// onlyReader reports whether op is the only reader of v (not returned).
func onlyReader(g *kernel.GroupCtx, v *hlo.Value, op *hlo.Op) bool {
	us := g.Users(v)
	return len(us) == 1 && us[0] == op && !g.Returned(v)
}
