package lazy

import (
	"fmt"
	"math"

	"github.com/xlajit/xlajit/hlo"
)

// inferReduce removes the reduced axes (attribute "axes", sorted, distinct).
func inferReduce(class typeClass) func([]Shape, Attrs) ([]Shape, error) {
	return func(in []Shape, a Attrs) ([]Shape, error) {
		if !class.accepts(in[0].DType) {
			return nil, fmt.Errorf("needs a %s tensor, got %s", class, in[0].DType)
		}
		out, err := reducedDims(in[0].Dims, a.Ints("axes"))
		if err != nil {
			return nil, err
		}
		return []Shape{NewShape(in[0].DType, out...)}, nil
	}
}

func reducedDims(dims, axes []int64) ([]int64, error) {
	drop := make([]bool, len(dims))
	for i, ax := range axes {
		if ax < 0 || int(ax) >= len(dims) {
			return nil, fmt.Errorf("axis %d out of range for rank %d", ax, len(dims))
		}
		if i > 0 && ax <= axes[i-1] {
			return nil, fmt.Errorf("axes %v must be sorted and distinct", axes)
		}
		drop[ax] = true
	}
	var out []int64
	for i, d := range dims {
		if !drop[i] {
			out = append(out, d)
		}
	}
	return out, nil
}

// keptShape is dims with the reduced axes set to 1 (keepdims form).
func keptShape(dims, axes []int64) []int64 {
	out := append([]int64(nil), dims...)
	for _, a := range axes {
		out[a] = 1
	}
	return out
}

// reduceInit is the identity of a reduction kind in dtype dt. Integer
// extremes are built from their bits: 2^63-1 and 2^64-1 have no float64
// form (they would round to 2^63 and 2^64 and overflow).
func reduceInit(dt DType, kind string) *hlo.Literal {
	switch kind {
	case "sum":
		return hlo.ScalarLiteral(dt, 0)
	case "prod":
		return hlo.ScalarLiteral(dt, 1)
	case "max", "min":
		if !dt.IsInt() && !dt.IsBool() {
			return hlo.ScalarLiteral(dt, math.Inf(map[string]int{"max": -1, "min": 1}[kind]))
		}
		l := hlo.NewLiteral(dt)
		bits := uint(dt.Bits())
		var v uint64 // unsigned and bool: max starts at 0
		switch {
		case kind == "min" && (dt.IsUnsigned() || dt.IsBool()):
			v = 1<<bits - 1 // all ones (1<<64 is 0 in Go: still all ones)
		case kind == "min":
			v = 1<<(bits-1) - 1
		case dt.IsSigned():
			v = 1 << (bits - 1)
		}
		l.SetBits(0, v)
		return l
	}
	panic(bugf("reduce kind %q", kind))
}

// reducer builds the binary body of a reduction.
func reducer(kind string) func(s *hlo.Scope, a, b *hlo.Value) *hlo.Value {
	switch kind {
	case "sum":
		return (*hlo.Scope).Add
	case "prod":
		return (*hlo.Scope).Mul
	case "max":
		return (*hlo.Scope).Max
	case "min":
		return (*hlo.Scope).Min
	}
	panic(bugf("reduce kind %q", kind))
}

func lowerReduce(kind string) func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
	body := reducer(kind)
	return func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
		dt := tensorType(in[0]).DType
		init := lc.S.Constant(reduceInit(dt, kind))
		return lc.S.Reduce([]*hlo.Value{in[0]}, []*hlo.Value{init}, n.attrs.Ints("axes"),
			func(s *hlo.Scope, args []*hlo.Value) []*hlo.Value {
				return single(body(s, args[0], args[1]))
			})
	}
}

// chooserVJP spreads the gradient of a max/min reduction equally over the
// positions that attain it.
func chooserVJP(x, y, dy []*Tensor, a Attrs) []*Tensor {
	axes := a.Ints("axes")
	kept := keptShape(x[0].Dims(), axes)
	yb := y[0].Reshape(kept...).BroadcastTo(x[0].Dims()...)
	loc := x[0].Eq(yb).Cast(x[0].DType())
	count := loc.Sum(int64sToInts(axes)...).Reshape(kept...).BroadcastTo(x[0].Dims()...)
	g := dy[0].Reshape(kept...).BroadcastTo(x[0].Dims()...)
	return []*Tensor{g.Mul(loc).Div(count)}
}

// prodVJP is the product of the other elements: y/x where no element of
// the lane is zero; where exactly one is, the product of the non-zeros at
// that element and 0 elsewhere; 0 where two or more are (y/x would be 0/0).
func prodVJP(x, y, dy []*Tensor, a Attrs) []*Tensor {
	axes := int64sToInts(a.Ints("axes"))
	kept := keptShape(x[0].Dims(), a.Ints("axes"))
	back := func(t *Tensor) *Tensor { return t.Reshape(kept...).BroadcastTo(x[0].Dims()...) }
	zero := x[0].EqScalar(0)
	nz := Where(zero, OnesLike(x[0]), x[0])
	p := back(nz.Prod(axes...))
	count := back(zero.Cast(x[0].DType()).Sum(axes...))
	none := p.Div(nz)
	// With one zero in the slice, the zero's gradient is the product of
	// the others and every other element's is that product times the
	// zero: 0, or NaN when a factor is infinite or NaN (0 · inf), as
	// PyTorch's product of the others computes it.
	others := ZerosLike(p)
	if !x[0].DType().IsComplex() {
		bad := x[0].IsFinite().Not().Cast(x[0].DType())
		badOthers := back(bad.Sum(axes...)).Sub(bad)
		others = Where(badOthers.GtScalar(0), FullOn(p.dev, p.DType(), math.NaN()).BroadcastTo(p.Dims()...), others)
	}
	one := Where(count.EqScalar(1), Where(zero, p, others), ZerosLike(p))
	return []*Tensor{back(dy[0]).Mul(Where(count.EqScalar(0), none, one))}
}

func int64sToInts(xs []int64) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}

func init() {
	define(opReduceSum, &OpDef{
		Name: "ReduceSum", Infer: inferReduce(numeric), Lower: lowerReduce("sum"),
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			kept := keptShape(x[0].Dims(), a.Ints("axes"))
			return []*Tensor{dy[0].Reshape(kept...).BroadcastTo(x[0].Dims()...)}
		},
	})
	define(opReduceProd, &OpDef{
		Name: "ReduceProd", Infer: inferReduce(numeric), Lower: lowerReduce("prod"),
		VJP: prodVJP,
	})
	define(opReduceMax, &OpDef{Name: "ReduceMax", Infer: inferReduce(anyType), Lower: lowerReduce("max"), VJP: chooserVJP})
	define(opReduceMin, &OpDef{Name: "ReduceMin", Infer: inferReduce(anyType), Lower: lowerReduce("min"), VJP: chooserVJP})

	argInfer := func(in []Shape, a Attrs) ([]Shape, error) {
		if !numeric.accepts(in[0].DType) || in[0].DType.IsComplex() {
			return nil, fmt.Errorf("needs a real tensor, got %s", in[0].DType)
		}
		axis := a.Int("axis")
		out, err := reducedDims(in[0].Dims, []int64{axis})
		if err != nil {
			return nil, err
		}
		if in[0].Dims[axis] == 0 {
			return nil, fmt.Errorf("axis %d is empty", axis)
		}
		return []Shape{NewShape(I64, out...)}, nil
	}
	define(opArgMax, &OpDef{Name: "ArgMax", Infer: argInfer, Lower: lowerArg("GT"), NoGrad: true})
	define(opArgMin, &OpDef{Name: "ArgMin", Infer: argInfer, Lower: lowerArg("LT"), NoGrad: true})
}

// lowerArg lowers argmax/argmin as a variadic reduce over (value, index)
// pairs; ties and NaN pick the lowest index of the first NaN or extremum.
func lowerArg(dir string) func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
	return func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
		t := tensorType(in[0])
		axis := n.attrs.Int("axis")
		idx := lc.S.Iota(hlo.NewTensorType(I64, t.Dims...), axis)
		init := reduceInit(t.DType, map[string]string{"GT": "max", "LT": "min"}[dir])
		res := lc.S.Reduce([]*hlo.Value{in[0], idx}, []*hlo.Value{lc.S.Constant(init), lc.scalar(I64, 0)}, []int64{axis},
			func(s *hlo.Scope, args []*hlo.Value) []*hlo.Value {
				av, ai, bv, bi := args[0], args[1], args[2], args[3]
				better := s.Compare(hlo.CompareDir(dir), av, bv)
				eq := s.Compare(hlo.CmpEQ, av, bv)
				if t.DType.IsFloat() {
					// NaN wins; two NaNs tie (so the lower index wins in
					// any reduction order, not only a sequential one).
					aNaN, bNaN := s.Compare(hlo.CmpNE, av, av), s.Compare(hlo.CmpNE, bv, bv)
					better = s.Or(better, s.And(aNaN, s.Not(bNaN)))
					eq = s.Or(eq, s.And(aNaN, bNaN))
				}
				lower := s.Compare(hlo.CmpLT, ai, bi)
				pickA := s.Or(better, s.And(eq, lower))
				return []*hlo.Value{s.Select(pickA, av, bv), s.Select(pickA, ai, bi)}
			})
		return res[1:2]
	}
}
