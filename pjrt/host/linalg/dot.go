package linalg

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

func init() {
	kernel.Register(
		kernel.Entry{Name: "stablehlo.dot_general", Compile: quantAware(compileDotGeneral, dotGeneralRhsAxis), Fresh: true, Group: groupDot},
		kernel.Entry{Name: "stablehlo.dot", Compile: quantAware(compileDot, dotRhsAxisLegacy), Fresh: true},
	)
}

// dotDims are dot_general's dimension numbers.
type dotDims struct {
	lb, rb, lc, rc []int64
}

func compileDotGeneral(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) != 2 {
		return nil, c.Errorf("expects 2 operands, has %d", len(c.In))
	}
	var d dotDims
	switch a := c.Op.Attr("dot_dimension_numbers").(type) {
	case *hlo.DotDimsAttr:
		d = dotDims{a.LhsBatchingDims, a.RhsBatchingDims, a.LhsContractingDims, a.RhsContractingDims}
	case nil:
		return nil, c.Errorf("missing dot_dimension_numbers")
	default:
		return nil, c.Errorf("dot_dimension_numbers = %s is not #stablehlo.dot<...>", hlo.AttrString(a))
	}
	algo, err := parseDotAlgorithm(c)
	if err != nil {
		return nil, err
	}
	return compileDotOp(c, d, algo)
}

// compileDot handles the legacy stablehlo.dot: vector or matrix operands,
// contracting the last dimension of lhs with the first of rhs.
func compileDot(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) != 2 {
		return nil, c.Errorf("expects 2 operands, has %d", len(c.In))
	}
	lt, err := tensorIn(c, 0)
	if err != nil {
		return nil, err
	}
	rt, err := tensorIn(c, 1)
	if err != nil {
		return nil, err
	}
	if lt.Rank() < 1 || lt.Rank() > 2 || rt.Rank() < 1 || rt.Rank() > 2 {
		return nil, c.Errorf("operands must be vectors or matrices, got %s and %s", lt.ShapeString(), rt.ShapeString())
	}
	d := dotDims{lc: []int64{int64(lt.Rank() - 1)}, rc: []int64{0}}
	return compileDotOp(c, d, dotAlgorithm{})
}

// dotAlgorithm is the part of #stablehlo.dot_algorithm the executor uses.
type dotAlgorithm struct {
	lhsPrec, rhsPrec, accum hlo.DType // InvalidDType when not given
	components              bool      // a multi-component algorithm (bf16_3x...) emulating full precision
}

var algoField = regexp.MustCompile(`(\w+)\s*=\s*([\w]+)`)

// parseDotAlgorithm reads the algorithm attribute, kept by the parser as
// its source text.
func parseDotAlgorithm(c *kernel.OpCtx) (dotAlgorithm, error) {
	var algo dotAlgorithm
	a := c.Op.Attr("algorithm")
	if a == nil {
		return algo, nil
	}
	text := hlo.AttrString(a)
	for _, m := range algoField.FindAllStringSubmatch(text, -1) {
		key, val := m[1], m[2]
		switch key {
		case "lhs_precision_type", "rhs_precision_type", "accumulation_type":
			dt, ok := hlo.DTypeByName(val)
			if !ok || !dt.IsFloat() {
				return algo, c.Errorf("algorithm: %s = %s is not a float type", key, val)
			}
			switch key {
			case "lhs_precision_type":
				algo.lhsPrec = dt
			case "rhs_precision_type":
				algo.rhsPrec = dt
			default:
				algo.accum = dt
			}
		case "lhs_component_count", "rhs_component_count", "num_primitive_operations":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				return algo, c.Errorf("algorithm: %s = %s must be a positive integer", key, val)
			}
			if n > 1 {
				algo.components = true
			}
		}
	}
	return algo, nil
}

// dotKind is the arithmetic a dot_general runs in.
type dotKind uint8

const (
	dotF32  dotKind = iota // packed GEMM in f32 (f32, f16, bf16, small floats)
	dotF64                 // packed GEMM in f64
	dotI64                 // wrapping integer arithmetic (ints and i1)
	dotC128                // complex
)

// dotPlan is a compiled dot_general: the computation is always
// C[b] = A[b] x B[b] with A = m x k and B = k x n read through strided views
// of the operands (or of their transposed copies when no view exists), and
// C laid out as the result [batch..., lhs free..., rhs free...].
type dotPlan struct {
	batch, m, n, k int
	lhs, rhs       opView
	kind           dotKind
	algo           dotAlgorithm
	out            *hlo.TensorType
	outOff         []int // offset of each product in the result
	rhsDType       hlo.DType
	cacheKey       string // the packed right operand's layout, for kernel.Derived
}

func compileDotOp(c *kernel.OpCtx, d dotDims, algo dotAlgorithm) (kernel.RunFn, error) {
	p, err := newDotPlan(c, d, algo)
	if err != nil {
		return nil, err
	}
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		l, r, err := argPair(c, args)
		if err != nil {
			return err
		}
		results[0] = p.run(x, l, r, nil)
		return nil
	}, nil
}

// newDotPlan checks and plans a dot_general (dimension numbers d) of the
// op in c.
func newDotPlan(c *kernel.OpCtx, d dotDims, algo dotAlgorithm) (*dotPlan, error) {
	lt, err := tensorIn(c, 0)
	if err != nil {
		return nil, err
	}
	rt, err := tensorIn(c, 1)
	if err != nil {
		return nil, err
	}
	ot, err := tensorOut(c, 0)
	if err != nil {
		return nil, err
	}
	p, err := planDot(c, lt, rt, ot, d)
	if err != nil {
		return nil, err
	}
	p.algo = algo
	p.kind, err = chooseDotKind(lt.DType, rt.DType, ot.DType, algo)
	if err != nil {
		return nil, c.Errorf("%v (operands %s, %s; result %s)", err, lt.ShapeString(), rt.ShapeString(), ot.ShapeString())
	}
	// The packed right operand may be kept across executions when it
	// needs no conversion (see packedRHS).
	p.rhsDType = rt.DType
	p.cacheKey = fmt.Sprintf("dot %s %v %v %v", rt.DType, rt.Dims, d.rb, d.rc)
	return p, nil
}

// planDot checks the dimension numbers against the operand and result
// shapes (spec constraints C1-C12) and builds the operand views.
func planDot(c *kernel.OpCtx, lt, rt, ot *hlo.TensorType, d dotDims) (*dotPlan, error) {
	if len(d.lb) != len(d.rb) || len(d.lc) != len(d.rc) {
		return nil, c.Errorf("batching dims %v x %v or contracting dims %v x %v differ in length", d.lb, d.rb, d.lc, d.rc)
	}
	lFree, err := freeDims(lt.Rank(), d.lb, d.lc)
	if err != nil {
		return nil, c.Errorf("lhs %s: %v", lt.ShapeString(), err)
	}
	rFree, err := freeDims(rt.Rank(), d.rb, d.rc)
	if err != nil {
		return nil, c.Errorf("rhs %s: %v", rt.ShapeString(), err)
	}
	var want []int64
	for i := range d.lb {
		if lt.Dims[d.lb[i]] != rt.Dims[d.rb[i]] {
			return nil, c.Errorf("batching dimension %d of lhs %s and %d of rhs %s differ", d.lb[i], lt.ShapeString(), d.rb[i], rt.ShapeString())
		}
		want = append(want, lt.Dims[d.lb[i]])
	}
	for i := range d.lc {
		if lt.Dims[d.lc[i]] != rt.Dims[d.rc[i]] {
			return nil, c.Errorf("contracting dimension %d of lhs %s and %d of rhs %s differ", d.lc[i], lt.ShapeString(), d.rc[i], rt.ShapeString())
		}
	}
	for _, f := range lFree {
		want = append(want, lt.Dims[f])
	}
	for _, f := range rFree {
		want = append(want, rt.Dims[f])
	}
	if !dimsEqual(want, ot.Dims) {
		return nil, c.Errorf("result shape %s does not match operands %s, %s (want dims %v)", ot.ShapeString(), lt.ShapeString(), rt.ShapeString(), want)
	}
	p := &dotPlan{
		batch: int(prodDims(lt.Dims, d.lb)),
		m:     int(prodDims(lt.Dims, lFree)),
		n:     int(prodDims(rt.Dims, rFree)),
		k:     int(prodDims(lt.Dims, d.lc)),
		out:   ot,
	}
	p.lhs = planView(lt.Dims, d.lb, lFree, d.lc)
	p.rhs = planView(rt.Dims, d.rb, d.rc, rFree)
	p.outOff = make([]int, p.batch)
	for b := range p.outOff {
		p.outOff[b] = b * p.m * p.n
	}
	return p, nil
}

// freeDims returns the dimensions of a rank-r operand that are neither
// batching nor contracting, after checking both lists.
func freeDims(r int, batch, contract []int64) ([]int64, error) {
	seen := make([]bool, r)
	for _, list := range [][]int64{batch, contract} {
		for _, d := range list {
			if d < 0 || int(d) >= r {
				return nil, errorf("dimension %d out of range", d)
			}
			if seen[d] {
				return nil, errorf("dimension %d used twice", d)
			}
			seen[d] = true
		}
	}
	var free []int64
	for i := 0; i < r; i++ {
		if !seen[i] {
			free = append(free, int64(i))
		}
	}
	return free, nil
}

func prodDims(dims []int64, which []int64) int64 {
	n := int64(1)
	for _, d := range which {
		n *= dims[d]
	}
	return n
}

// chooseDotKind picks the arithmetic: operands are converted to the
// result's type (as XLA's operand upcasting does), half and small floats
// accumulate in f32, and an f64 operand or an f64 accumulation type keeps
// f64.
func chooseDotKind(l, r, o hlo.DType, algo dotAlgorithm) (dotKind, error) {
	switch {
	case o.IsComplex():
		if !(l.IsComplex() || l.IsFloat() || l.IsInt() || l.IsBool()) || !(r.IsComplex() || r.IsFloat() || r.IsInt() || r.IsBool()) {
			return 0, errorf("unsupported element types")
		}
		return dotC128, nil
	case l.IsComplex() || r.IsComplex():
		return 0, errorf("complex operands need a complex result")
	case o.IsInt() || o.IsBool():
		return dotI64, nil
	case o.IsFloat():
		if o == hlo.F64 || l == hlo.F64 || r == hlo.F64 || algo.accum == hlo.F64 {
			return dotF64, nil
		}
		return dotF32, nil
	}
	return 0, errorf("unsupported result element type %s", o)
}

// run computes the product of l and r into a new literal; epi (nil:
// none) then runs on the finished rows of an f32 or f64 result (see
// epilogue), in the same pass.
func (p *dotPlan) run(x *kernel.Ctx, l, r *hlo.Literal, epi *epiRun) *hlo.Literal {
	out := x.NewLiteralUninit(p.out.DType, p.out.Dims)
	if out.NumElements() == 0 {
		return out
	}
	la, ra := p.lhs.arrange(l), p.rhs.arrange(r)
	switch p.kind {
	case dotF32:
		a := loadF32(la, p.algo.lhsPrec, p.algo.components)
		b := loadF32(ra, p.algo.rhsPrec, p.algo.components)
		var c []float32
		if out.DType == hlo.F32 {
			c = out.F32()
		} else {
			c = make([]float32, out.NumElements())
		}
		runFloat(x, p, bestF32(), a, b, c, r, epiF32(epi))
		if out.DType != hlo.F32 {
			storeF32(out, c)
		}
	case dotF64:
		a := loadF64(la, p.algo.lhsPrec, p.algo.components)
		b := loadF64(ra, p.algo.rhsPrec, p.algo.components)
		var c []float64
		if out.DType == hlo.F64 {
			c = out.F64()
		} else {
			c = make([]float64, out.NumElements())
		}
		runFloat(x, p, bestF64(), a, b, c, r, epiF64(epi))
		if out.DType != hlo.F64 {
			for i, v := range c {
				out.SetFloat(i, v)
			}
		}
	case dotI64:
		clear(out.Data)
		c := make([]int64, out.NumElements())
		naiveGemm(p.batch, p.m, p.n, p.k, viewOf(&p.lhs, toI64(la)), viewOf(&p.rhs, toI64(ra)), outMatrix(p, c))
		if out.DType.IsBool() {
			// i1 arithmetic is logical: the sum of products is "any".
			for i, v := range c {
				out.SetInt(i, v)
			}
		} else {
			storeI64(out, c)
		}
	case dotC128:
		clear(out.Data)
		switch {
		case p.small() && out.DType == hlo.C64:
			refGemmC64(p.batch, p.m, p.n, p.k, viewOf(&p.lhs, toC64(la)), viewOf(&p.rhs, toC64(ra)), outMatrix(p, out.C64()))
		case p.small():
			refGemmC128(p.batch, p.m, p.n, p.k, viewOf(&p.lhs, toC128(la)), viewOf(&p.rhs, toC128(ra)), outMatrix(p, out.C128()))
		default:
			// Larger complex products accumulate in complex128.
			c := make([]complex128, out.NumElements())
			naiveGemm(p.batch, p.m, p.n, p.k, viewOf(&p.lhs, toC128(la)), viewOf(&p.rhs, toC128(ra)), outMatrix(p, c))
			storeC128(out, c)
		}
	}
	return out
}

// runFloat computes the float product c = a x b (c's storage is
// garbage) and runs the epilogue newEpi makes (nil: none). Small products
// run in reference order; larger ones on the GEMM, whose packed b is kept
// across executions when the right operand r is a stable argument used
// as it is.
func runFloat[T float32 | float64](x *kernel.Ctx, p *dotPlan, kern *microKernel[T], a, b, c []T, r *hlo.Literal, newEpi func() (func(seg []T, flat int), func())) {
	cm := outMatrix(p, c)
	if p.small() {
		clear(c)
		refGemm(p.batch, p.m, p.n, p.k, viewOf(&p.lhs, a), viewOf(&p.rhs, b), cm)
		if newEpi != nil {
			epi, done := newEpi()
			for row := 0; row < p.batch*p.m; row++ {
				epi(c[row*p.n:(row+1)*p.n], row*p.n)
			}
			done()
		}
		return
	}
	kern = kern.forColumns(p.n)
	o := &gemmOpts[T]{overwrite: true, newEpi: newEpi}
	cacheable := p.rhs.perm == nil && p.rhsDType == dtypeOf[T]() && p.algo.rhsPrec == hlo.InvalidDType && !p.algo.components && x.IsStable(r)
	key := derivedKind{p.cacheKey, kern.name}
	if cacheable {
		if v, ok := kernel.Derived(x, r, key); ok {
			o.packedB = v.([][]T)
		} else {
			o.keepB = true
		}
	}
	gemmEx(kern, p.batch, p.m, p.n, p.k, viewOf(&p.lhs, a), viewOf(&p.rhs, b), cm, o)
	if o.keepB {
		n := int64(0)
		for _, pb := range o.packedB {
			n += int64(len(pb)) * int64(dtypeOf[T]().Size())
		}
		kernel.KeepDerived(x, r, key, o.packedB, n)
	}
}

// derivedKind names a packed right operand kept with kernel.Derived: the
// operand's layout and the micro-kernel it is packed for.
type derivedKind struct {
	layout, kernel string
}

func dtypeOf[T float32 | float64]() hlo.DType {
	var z T
	if _, ok := any(z).(float32); ok {
		return hlo.F32
	}
	return hlo.F64
}

// loadF32 converts an operand to f32, rounding to the algorithm's operand
// precision type when one narrower than f32 is requested.
func loadF32(l *hlo.Literal, prec hlo.DType, components bool) []float32 {
	v := toF32(l)
	if prec == hlo.InvalidDType || components || prec == hlo.F32 || prec == hlo.F64 {
		return v
	}
	if l.DType == hlo.F32 {
		v = append([]float32(nil), v...) // never round the operand in place
	}
	roundF32To(v, prec)
	return v
}

func loadF64(l *hlo.Literal, prec hlo.DType, components bool) []float64 {
	v := toF64(l)
	if prec == hlo.InvalidDType || components || prec == hlo.F64 {
		return v
	}
	if l.DType == hlo.F64 {
		v = append([]float64(nil), v...)
	}
	roundF64To(v, prec)
	return v
}

// small reports whether the product runs in reference order (see refgemm.go).
func (p *dotPlan) small() bool { return p.batch*p.m*p.n*p.k <= refWork }

// outMatrix views a result buffer as the batch of m x n products.
func outMatrix[T any](p *dotPlan, c []T) matrix[T] {
	return matrix[T]{data: c, off: p.outOff, rs: p.n, cs: 1}
}
