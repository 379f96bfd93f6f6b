package lazy

import (
	"fmt"
	"sort"

	"github.com/xlajit/xlajit/hlo"
)

// dotDims are DotGeneral's attributes.
type dotDims struct{ lb, rb, lc, rc []int64 }

func dotAttrs(d dotDims) Attrs {
	return Attrs{{"lhs_batch", d.lb}, {"rhs_batch", d.rb}, {"lhs_contract", d.lc}, {"rhs_contract", d.rc}}
}

func dotFrom(a Attrs) dotDims {
	return dotDims{a.Ints("lhs_batch"), a.Ints("rhs_batch"), a.Ints("lhs_contract"), a.Ints("rhs_contract")}
}

// remaining lists 0..n-1 minus the given axes, in order.
func remaining(n int, skip ...[]int64) []int64 {
	drop := make([]bool, n)
	for _, s := range skip {
		for _, x := range s {
			drop[x] = true
		}
	}
	var out []int64
	for i := 0; i < n; i++ {
		if !drop[i] {
			out = append(out, int64(i))
		}
	}
	return out
}

func inferDot(in []Shape, a Attrs) ([]Shape, error) {
	l, r := in[0], in[1]
	d := dotFrom(a)
	if l.DType != r.DType {
		return nil, fmt.Errorf("element types differ (%s vs %s)", l.DType, r.DType)
	}
	if !numeric.accepts(l.DType) {
		return nil, fmt.Errorf("needs numeric tensors, got %s", l.DType)
	}
	if len(d.lb) != len(d.rb) || len(d.lc) != len(d.rc) {
		return nil, fmt.Errorf("batch or contracting dimension lists differ in length")
	}
	check := func(s Shape, axes []int64) error {
		for _, x := range axes {
			if x < 0 || int(x) >= s.Rank() {
				return fmt.Errorf("axis %d out of range for %s", x, s)
			}
		}
		return nil
	}
	for _, c := range [][2]any{{l, d.lb}, {l, d.lc}, {r, d.rb}, {r, d.rc}} {
		if err := check(c[0].(Shape), c[1].([]int64)); err != nil {
			return nil, err
		}
	}
	for i := range d.lb {
		if l.Dims[d.lb[i]] != r.Dims[d.rb[i]] {
			return nil, fmt.Errorf("batch dimensions differ: %d vs %d", l.Dims[d.lb[i]], r.Dims[d.rb[i]])
		}
	}
	for i := range d.lc {
		if l.Dims[d.lc[i]] != r.Dims[d.rc[i]] {
			return nil, fmt.Errorf("contracting dimensions differ: %s axis %d has %d, %s axis %d has %d",
				l, d.lc[i], l.Dims[d.lc[i]], r, d.rc[i], r.Dims[d.rc[i]])
		}
	}
	var out []int64
	for _, x := range d.lb {
		out = append(out, l.Dims[x])
	}
	for _, x := range remaining(l.Rank(), d.lb, d.lc) {
		out = append(out, l.Dims[x])
	}
	for _, x := range remaining(r.Rank(), d.rb, d.rc) {
		out = append(out, r.Dims[x])
	}
	return []Shape{NewShape(l.DType, out...)}, nil
}

func dotGeneral(x, y *Tensor, d dotDims) *Tensor { return apply1(opDotGeneral, dotAttrs(d), x, y) }

// dotTransposeLHS is the gradient of DotGeneral with respect to its left
// operand (the transpose rule of a bilinear op); swapAns handles the right
// operand via the swapped problem.
func dotTransposeLHS(g, x, y *Tensor, d dotDims, swapAns bool) *Tensor {
	xKept := remaining(x.Rank(), d.lc, d.lb)
	yKept := remaining(y.Rank(), d.rc, d.rb)
	nb := int64(len(d.lb))
	var ansY []int64
	if swapAns {
		ansY = seq(nb, nb+int64(len(yKept)))
	} else {
		ansY = seq(nb+int64(len(xKept)), nb+int64(len(xKept))+int64(len(yKept)))
	}
	ansBatch := seq(0, nb)
	// dot(g, y) has the axes: batch, g's kept (= x kept), y's remaining (=
	// y contract in y order).
	order := make([]int, len(d.rc))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return d.rc[order[i]] < d.rc[order[j]] })
	xContractByY := make([]int64, len(order))
	for i, k := range order {
		xContractByY[i] = d.lc[k]
	}
	pos := append(append(append([]int64(nil), d.lb...), xKept...), xContractByY...)
	// With the operands the other way round the product may come out in
	// x's axis order already (x^T·g for a matmul's right operand), saving a
	// transpose and its copy of the gradient.
	pos2 := append(append(append([]int64(nil), d.lb...), xContractByY...), xKept...)
	if !isIdentity(inversePerm(pos)) && isIdentity(inversePerm(pos2)) {
		return dotGeneral(y, g, dotDims{lb: d.rb, rb: ansBatch, lc: yKept, rc: ansY})
	}
	res := dotGeneral(g, y, dotDims{lb: ansBatch, rb: d.rb, lc: ansY, rc: yKept})
	if isIdentity(inversePerm(pos)) {
		return res
	}
	return res.Permute(inversePerm(pos)...)
}

func isIdentity(perm []int) bool {
	for i, p := range perm {
		if p != i {
			return false
		}
	}
	return true
}

func seq(lo, hi int64) []int64 {
	out := make([]int64, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

func init() {
	define(opDotGeneral, &OpDef{
		Name:  "DotGeneral",
		Infer: inferDot,
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			d := dotFrom(n.attrs)
			return []*hlo.Value{lc.S.DotGeneral(in[0], in[1], &hlo.DotDimsAttr{
				LhsBatchingDims: d.lb, RhsBatchingDims: d.rb, LhsContractingDims: d.lc, RhsContractingDims: d.rc})}
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			d := dotFrom(a)
			gx := dotTransposeLHS(dy[0], x[0], x[1], d, false)
			gy := dotTransposeLHS(dy[0], x[1], x[0], dotDims{lb: d.rb, rb: d.lb, lc: d.rc, rc: d.lc}, true)
			return []*Tensor{gx, gy}
		},
	})
	define(opConv, &OpDef{Name: "Conv", Infer: inferConv, Lower: lowerConv, VJP: convVJP})
}
