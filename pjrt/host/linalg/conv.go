package linalg

import (
	"sync"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

func init() {
	kernel.Register(
		kernel.Entry{Name: "stablehlo.convolution", Compile: quantAware(compileConvolution, convRhsAxis), Fresh: true, Group: groupConv},
		kernel.Entry{Name: "stablehlo.dynamic_conv", Compile: quantAware(compileDynamicConv, convRhsAxis), Fresh: true},
	)
}

// convAttrs are convolution's attributes with defaults filled in.
type convAttrs struct {
	dn                      *hlo.ConvDimsAttr
	strides, lhsDil, rhsDil []int64
	reversal                []bool
	padding                 [][2]int64
	fgc, bgc                int
}

func readConvAttrs(c *kernel.OpCtx, rank int, withPadding bool) (*convAttrs, error) {
	s := rank - 2
	if s < 0 {
		return nil, c.Errorf("operands must have rank >= 2, have rank %d", rank)
	}
	a := &convAttrs{}
	dn, ok := c.Op.Attr("dimension_numbers").(*hlo.ConvDimsAttr)
	if !ok {
		return nil, c.Errorf("missing or malformed dimension_numbers")
	}
	a.dn = dn
	ones := make([]int64, s)
	for i := range ones {
		ones[i] = 1
	}
	var err error
	for _, f := range []struct {
		name string
		dst  *[]int64
	}{{"window_strides", &a.strides}, {"lhs_dilation", &a.lhsDil}, {"rhs_dilation", &a.rhsDil}} {
		if *f.dst, err = intsAttr(c, f.name, ones); err != nil {
			return nil, err
		}
		if len(*f.dst) != s {
			return nil, c.Errorf("%s has %d entries, want %d", f.name, len(*f.dst), s)
		}
		for _, v := range *f.dst {
			if v <= 0 {
				return nil, c.Errorf("%s %v must be positive", f.name, *f.dst)
			}
		}
	}
	rev, err := intsAttr(c, "window_reversal", make([]int64, s))
	if err != nil {
		return nil, err
	}
	if len(rev) != s {
		return nil, c.Errorf("window_reversal has %d entries, want %d", len(rev), s)
	}
	for _, v := range rev {
		a.reversal = append(a.reversal, v != 0)
	}
	if withPadding {
		pad, err := intsAttr(c, "padding", make([]int64, 2*s))
		if err != nil {
			return nil, err
		}
		if a.padding, err = pairs(pad, s); err != nil {
			return nil, c.Errorf("padding: %v", err)
		}
	}
	a.fgc, a.bgc = 1, 1
	for _, f := range []struct {
		name string
		dst  *int
	}{{"feature_group_count", &a.fgc}, {"batch_group_count", &a.bgc}} {
		if c.Op.Attr(f.name) == nil {
			continue
		}
		v, ok := c.Int(f.name)
		if !ok {
			return nil, c.Errorf("%s must be an integer", f.name)
		}
		*f.dst = int(v)
	}
	if a.fgc < 1 || a.bgc < 1 || (a.fgc > 1 && a.bgc > 1) {
		return nil, c.Errorf("feature_group_count %d and batch_group_count %d must be positive and not both > 1", a.fgc, a.bgc)
	}
	return a, nil
}

func pairs(flat []int64, s int) ([][2]int64, error) {
	if len(flat) != 2*s {
		return nil, errorf("%d values, want %d x 2", len(flat), s)
	}
	p := make([][2]int64, s)
	for i := range p {
		p[i] = [2]int64{flat[2*i], flat[2*i+1]}
	}
	return p, nil
}

func compileConvolution(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) != 2 {
		return nil, c.Errorf("expects 2 operands, has %d", len(c.In))
	}
	lt, rt, ot, err := convTypes(c)
	if err != nil {
		return nil, err
	}
	a, err := readConvAttrs(c, lt.Rank(), true)
	if err != nil {
		return nil, err
	}
	p, err := planConv(c, lt, rt, ot, a)
	if err != nil {
		return nil, err
	}
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		l, r, err := argPair(c, args)
		if err != nil {
			return err
		}
		results[0] = p.run(x, l, r)
		return nil
	}, nil
}

// compileDynamicConv is convolution with the padding given as an operand:
// the plan is built at run time for each new padding.
func compileDynamicConv(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) != 3 {
		return nil, c.Errorf("expects 3 operands (lhs, rhs, padding), has %d", len(c.In))
	}
	lt, rt, ot, err := convTypes(c)
	if err != nil {
		return nil, err
	}
	pt, err := tensorIn(c, 2)
	if err != nil {
		return nil, err
	}
	s := lt.Rank() - 2
	if !(pt.DType.IsInt()) || !dimsEqual(pt.Dims, []int64{int64(s), 2}) {
		return nil, c.Errorf("padding %s must be an integer tensor of shape [%d, 2]", pt.ShapeString(), s)
	}
	a, err := readConvAttrs(c, lt.Rank(), false)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var last *convPlan
	var lastPad []int64
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		l, r, err := argPair(c, args)
		if err != nil {
			return err
		}
		pl, err := argLiteral(c, args, 2)
		if err != nil {
			return err
		}
		pad := make([]int64, pl.NumElements())
		for i := range pad {
			pad[i] = pl.Int(i)
		}
		mu.Lock()
		p := last
		if p == nil || !dimsEqual(pad, lastPad) {
			b := *a
			b.padding, _ = pairs(pad, s)
			p, err = planConv(c, lt, rt, ot, &b)
			if err != nil {
				mu.Unlock()
				return err
			}
			last, lastPad = p, pad
		}
		mu.Unlock()
		results[0] = p.run(x, l, r)
		return nil
	}, nil
}

func convTypes(c *kernel.OpCtx) (lt, rt, ot *hlo.TensorType, err error) {
	if lt, err = tensorIn(c, 0); err != nil {
		return
	}
	if rt, err = tensorIn(c, 1); err != nil {
		return
	}
	ot, err = tensorOut(c, 0)
	return
}

// convPlan is a compiled convolution. Operands are brought into canonical
// layouts (lhs [N, spatial..., C], rhs [spatial..., I, O], result
// [N', spatial'..., O]); then for each feature or batch group the result's
// column block is P x W, where P (built by im2col, a chunk of rows at a
// time) has one row per (batch, output position) and one column per
// (kernel position, input feature).
type convPlan struct {
	ot                        *hlo.TensorType
	kind                      dotKind
	n, c, o                   int // lhs batch and feature sizes, rhs output features
	inSp, kSp, outSp          int // spatial element counts
	groups, fgc, bgc          int
	lhsPerm, rhsPerm, outPerm []int // nil when already canonical
	outCanon                  []int64
	soff                      []int32 // [outSp][kSp] input spatial index, -1 in padding
	direct                    bool    // the canonical lhs is P itself
	// planes, when set, runs the convolution over the operands' own
	// layouts (conv_planes.go).
	planes *planesConv
	// taps and wgrad, when set, run it with the small-channel kernels
	// (conv_small.go).
	taps  *tapsConv
	wgrad *wgradConv
}

func planConv(c *kernel.OpCtx, lt, rt, ot *hlo.TensorType, a *convAttrs) (*convPlan, error) {
	dn := a.dn
	rank := lt.Rank()
	s := rank - 2
	if rt.Rank() != rank || ot.Rank() != rank {
		return nil, c.Errorf("lhs %s, rhs %s and result %s must have the same rank", lt.ShapeString(), rt.ShapeString(), ot.ShapeString())
	}
	if len(dn.InputSpatialDims) != s || len(dn.KernelSpatialDims) != s || len(dn.OutputSpatialDims) != s {
		return nil, c.Errorf("dimension numbers %s need %d spatial dimensions", dn.Layout(), s)
	}
	lhsPerm := append(append([]int{int(dn.InputBatchDim)}, ints(dn.InputSpatialDims)...), int(dn.InputFeatureDim))
	rhsPerm := append(ints(dn.KernelSpatialDims), int(dn.KernelInputFeatureDim), int(dn.KernelOutputFeatureDim))
	outOrder := append(append([]int{int(dn.OutputBatchDim)}, ints(dn.OutputSpatialDims)...), int(dn.OutputFeatureDim))
	for _, pm := range [][]int{lhsPerm, rhsPerm, outOrder} {
		if !isPerm(pm, rank) {
			return nil, c.Errorf("dimension numbers %s are not permutations of %d dimensions", dn.Layout(), rank)
		}
	}
	p := &convPlan{ot: ot, fgc: a.fgc, bgc: a.bgc, groups: a.fgc * a.bgc}
	p.n, p.c = int(lt.Dims[dn.InputBatchDim]), int(lt.Dims[dn.InputFeatureDim])
	kin := int(rt.Dims[dn.KernelInputFeatureDim])
	p.o = int(rt.Dims[dn.KernelOutputFeatureDim])
	if p.n%a.bgc != 0 || p.c%a.fgc != 0 || kin*a.fgc != p.c || p.o%p.groups != 0 {
		return nil, c.Errorf("lhs %s and rhs %s do not fit feature_group_count %d, batch_group_count %d (dimension numbers %s)",
			lt.ShapeString(), rt.ShapeString(), a.fgc, a.bgc, dn.Layout())
	}
	want := make([]int64, rank)
	want[dn.OutputBatchDim] = int64(p.n / a.bgc)
	want[dn.OutputFeatureDim] = int64(p.o)
	inSp, kSp, outSp := make([]int64, s), make([]int64, s), make([]int64, s)
	dilIn := make([]int64, s)
	for i := 0; i < s; i++ {
		inSp[i], kSp[i] = lt.Dims[dn.InputSpatialDims[i]], rt.Dims[dn.KernelSpatialDims[i]]
		if inSp[i] > 0 {
			dilIn[i] = (inSp[i]-1)*a.lhsDil[i] + 1
		}
		padded := a.padding[i][0] + dilIn[i] + a.padding[i][1]
		win := int64(0)
		if kSp[i] > 0 {
			win = (kSp[i]-1)*a.rhsDil[i] + 1
		}
		if padded > 0 && win <= padded {
			outSp[i] = (padded-win)/a.strides[i] + 1
		}
		want[dn.OutputSpatialDims[i]] = outSp[i]
	}
	if !dimsEqual(want, ot.Dims) {
		return nil, c.Errorf("result %s does not match lhs %s, rhs %s (want dims %v)", ot.ShapeString(), lt.ShapeString(), rt.ShapeString(), want)
	}
	kind, err := chooseDotKind(lt.DType, rt.DType, ot.DType, dotAlgorithm{})
	if err != nil {
		return nil, c.Errorf("%v (lhs %s, rhs %s, result %s)", err, lt.ShapeString(), rt.ShapeString(), ot.ShapeString())
	}
	p.kind = kind
	p.inSp, p.kSp, p.outSp = int(hlo.NumElements(inSp)), int(hlo.NumElements(kSp)), int(hlo.NumElements(outSp))
	if !isIdentity(lhsPerm) {
		p.lhsPerm = lhsPerm
	}
	if !isIdentity(rhsPerm) {
		p.rhsPerm = rhsPerm
	}
	// Result dimension d is canonical dimension cpos[d].
	cpos := make([]int, rank)
	for i, d := range outOrder {
		cpos[d] = i
	}
	if !isIdentity(cpos) {
		p.outPerm = cpos
	}
	p.outCanon = append(append([]int64{int64(p.n / a.bgc)}, outSp...), int64(p.o))

	// For every output position and kernel position, the input position
	// the window reads (in the dilated, padded input), or -1.
	p.soff = make([]int32, p.outSp*p.kSp)
	oi := make([]int64, s)
	ki := make([]int64, s)
	for so := 0; so < p.outSp; so++ {
		unravelInto(so, outSp, oi)
		for sk := 0; sk < p.kSp; sk++ {
			unravelInto(sk, kSp, ki)
			flat := int64(0)
			for d := 0; d < s && flat >= 0; d++ {
				k := ki[d]
				if a.reversal[d] {
					k = kSp[d] - 1 - k
				}
				x := oi[d]*a.strides[d] + k*a.rhsDil[d] - a.padding[d][0]
				if x < 0 || x >= dilIn[d] || x%a.lhsDil[d] != 0 {
					flat = -1
					break
				}
				flat = flat*inSp[d] + x/a.lhsDil[d]
			}
			p.soff[so*p.kSp+sk] = int32(flat)
		}
	}
	if small := hlo.NumElements(ot.Dims)*int64(p.kSp*(p.c/a.fgc)) <= refWork; !small {
		if p.taps = planTaps(p, lt, rt, ot, a); p.taps == nil {
			p.wgrad = planWgrad(p, lt, rt, ot, a)
		}
		if p.taps == nil && p.wgrad == nil && usePlanes {
			p.planes = planPlanes(p, lt, rt, ot, a)
		}
	}
	if p.kSp == 1 && p.groups == 1 && p.inSp == p.outSp {
		p.direct = true
		for so := 0; so < p.outSp; so++ {
			if p.soff[so] != int32(so) {
				p.direct = false
				break
			}
		}
	}
	return p, nil
}

func ints(xs []int64) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}

func isPerm(p []int, n int) bool {
	if len(p) != n {
		return false
	}
	seen := make([]bool, n)
	for _, d := range p {
		if d < 0 || d >= n || seen[d] {
			return false
		}
		seen[d] = true
	}
	return true
}

func isIdentity(p []int) bool {
	for i, d := range p {
		if d != i {
			return false
		}
	}
	return true
}

func unravelInto(i int, dims, idx []int64) {
	for d := len(dims) - 1; d >= 0; d-- {
		idx[d] = int64(i) % dims[d]
		i /= int(dims[d])
	}
}

func permuted(l *hlo.Literal, perm []int) *hlo.Literal {
	if perm == nil {
		return l
	}
	pd := make([]int64, len(perm))
	for i, d := range perm {
		pd[i] = l.Dims[d]
	}
	return &hlo.Literal{DType: l.DType, Dims: pd, Data: permuteBytes(l.Data, l.Dims, perm, l.DType.Size())}
}

func (p *convPlan) run(x *kernel.Ctx, l, r *hlo.Literal) *hlo.Literal {
	out := x.NewLiteralUninit(p.ot.DType, p.ot.Dims)
	if out.NumElements() == 0 {
		return out
	}
	switch {
	case p.taps != nil:
		runTaps(p.taps, l.F32(), r.F32(), out.F32(), nil, nil)
		return out
	case p.wgrad != nil:
		runWgrad(p.wgrad, l.F32(), r.F32(), out.F32())
		return out
	}
	if q := p.planes; q != nil {
		if p.kind == dotF32 {
			runPlanes(q, bestF32(), l.F32(), r.F32(), out.F32())
		} else {
			runPlanes(q, bestF64(), l.F64(), r.F64(), out.F64())
		}
		return out
	}
	lc, rc := permuted(l, p.lhsPerm), permuted(r, p.rhsPerm)
	canon := out
	if p.outPerm != nil {
		canon = x.NewLiteral(out.DType, p.outCanon)
	} else {
		clear(out.Data)
	}
	// Small convolutions run in reference order (see refgemm.go).
	small := canon.NumElements()*p.kSp*(p.c/p.fgc) <= refWork
	switch p.kind {
	case dotF32:
		var c []float32
		if canon.DType == hlo.F32 {
			c = canon.F32()
		} else {
			c = make([]float32, canon.NumElements())
		}
		convCompute(p, toF32(lc), toF32(rc), c, func(m, n, k int, a, b, c matrix[float32]) {
			if small {
				refGemm(1, m, n, k, a, b, c)
			} else {
				gemm(bestF32(), 1, m, n, k, a, b, c)
			}
		})
		if canon.DType != hlo.F32 {
			storeF32(canon, c)
		}
	case dotF64:
		var c []float64
		if canon.DType == hlo.F64 {
			c = canon.F64()
		} else {
			c = make([]float64, canon.NumElements())
		}
		convCompute(p, toF64(lc), toF64(rc), c, func(m, n, k int, a, b, c matrix[float64]) {
			if small {
				refGemm(1, m, n, k, a, b, c)
			} else {
				gemm(bestF64(), 1, m, n, k, a, b, c)
			}
		})
		if canon.DType != hlo.F64 {
			for i, v := range c {
				canon.SetFloat(i, v)
			}
		}
	case dotI64:
		c := make([]int64, canon.NumElements())
		convCompute(p, toI64(lc), toI64(rc), c, naiveGemm1[int64])
		if canon.DType.IsBool() {
			for i, v := range c {
				canon.SetInt(i, v)
			}
		} else {
			storeI64(canon, c)
		}
	case dotC128:
		switch {
		case small && canon.DType == hlo.C64:
			convCompute(p, toC64(lc), toC64(rc), canon.C64(), func(m, n, k int, a, b, c matrix[complex64]) { refGemmC64(1, m, n, k, a, b, c) })
		case small:
			convCompute(p, toC128(lc), toC128(rc), canon.C128(), func(m, n, k int, a, b, c matrix[complex128]) { refGemmC128(1, m, n, k, a, b, c) })
		default:
			c := make([]complex128, canon.NumElements())
			convCompute(p, toC128(lc), toC128(rc), c, naiveGemm1[complex128])
			storeC128(canon, c)
		}
	}
	if p.outPerm != nil {
		permuteInto(out.Data, canon.Data, canon.Dims, p.outPerm, out.DType.Size())
		if x != nil {
			x.Pool.Put(canon)
		}
	}
	return out
}

func naiveGemm1[T number](m, n, k int, a, b, c matrix[T]) { naiveGemm(1, m, n, k, a, b, c) }

// usePlanes enables the planes schedule (tests switch it off to compare).
var usePlanes = true

// im2colChunk bounds the elements of one chunk of P (8 Mi values).
var im2colChunk = 1 << 23

// convCompute runs the grouped products on canonical operands lhs
// [N, inSp, C] and rhs [kSp, I, O] into the canonical result out
// [N', outSp, O], using mm for each P x W product.
func convCompute[T number](p *convPlan, lhs, rhs, out []T, mm func(m, n, k int, a, b, c matrix[T])) {
	nb := p.n / p.bgc // batch entries per group
	in := p.c / p.fgc // input features per group
	og := p.o / p.groups
	rows := nb * p.outSp
	kcols := p.kSp * in
	if p.direct {
		// Unit kernel, stride and dilation, no padding: P is lhs.
		mm(rows, p.o, kcols, matrix[T]{data: lhs, off: []int{0}, rs: p.c, cs: 1},
			matrix[T]{data: rhs, off: []int{0}, rs: p.o, cs: 1},
			matrix[T]{data: out, off: []int{0}, rs: p.o, cs: 1})
		return
	}
	chunk := max(1, min(rows, im2colChunk/max(kcols, 1)))
	pbuf, scr := scratch[T](chunk * kcols)
	defer putScratch(scr)
	for g := 0; g < p.groups; g++ {
		bs, fs := 0, 0
		if p.bgc > 1 {
			bs = g * nb
		}
		if p.fgc > 1 {
			fs = g * in
		}
		w := matrix[T]{data: rhs, off: []int{g * og}, rs: p.o, cs: 1}
		for r0 := 0; r0 < rows; r0 += chunk {
			nr := min(chunk, rows-r0)
			pm := pbuf[:nr*kcols]
			kernel.ParallelFor(nr, max(1, 4096/max(kcols, 1)), func(lo, hi int) {
				for row := lo; row < hi; row++ {
					gr := r0 + row
					n, so := gr/p.outSp, gr%p.outSp
					base := (bs + n) * p.inSp
					dst := pm[row*kcols : (row+1)*kcols]
					offs := p.soff[so*p.kSp : (so+1)*p.kSp]
					for kp, off := range offs {
						d := dst[kp*in : (kp+1)*in]
						if off < 0 {
							clear(d)
							continue
						}
						src := lhs[(base+int(off))*p.c+fs:]
						if in <= 8 { // a call to copy costs more than a few moves
							for q := range d {
								d[q] = src[q]
							}
						} else {
							copy(d, src[:in])
						}
					}
				}
			})
			mm(nr, og, kcols, matrix[T]{data: pm, off: []int{0}, rs: kcols, cs: 1}, w,
				matrix[T]{data: out, off: []int{r0*p.o + g*og}, rs: p.o, cs: 1})
		}
	}
}

// scratchCache keeps a few large buffers per element type across runs. A
// sync.Pool would not do: the GC empties it, and these buffers are big
// enough that each run would otherwise fault in fresh pages.
var scratchCache struct {
	sync.Mutex
	free map[any][]any // zero value of T -> *[]T
}

const scratchKeep = 4

// scratch returns a reusable buffer of n elements (contents undefined) and
// its handle for putScratch, which gives it back (a handle, not a release
// closure: a closure would be allocated on every call).
func scratch[T any](n int) ([]T, *[]T) {
	var z T
	key := any(z)
	scratchCache.Lock()
	if scratchCache.free == nil {
		scratchCache.free = map[any][]any{}
	}
	var bp *[]T
	list := scratchCache.free[key]
	for i, v := range list {
		if b := v.(*[]T); cap(*b) >= n {
			bp = b
			last := len(list) - 1
			list[i] = list[last]
			list[last] = nil
			scratchCache.free[key] = list[:last]
			break
		}
	}
	scratchCache.Unlock()
	if bp == nil {
		b := make([]T, n)
		bp = &b
	}
	return (*bp)[:n], bp
}

// putScratch gives back a buffer scratch returned; the cache keeps the
// scratchKeep latest.
func putScratch[T any](bp *[]T) {
	var z T
	key := any(z)
	scratchCache.Lock()
	defer scratchCache.Unlock()
	list := scratchCache.free[key]
	if len(list) >= scratchKeep {
		copy(list, list[1:])
		list = list[:len(list)-1]
	}
	scratchCache.free[key] = append(list, any(bp))
}
