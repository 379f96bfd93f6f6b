package difftest

import (
	"fmt"

	"github.com/xlajit/xlajit/lazy"
)

// Reductions, matmul, data movement and casts.

type reduceDef struct {
	name  string
	dts   func(lazy.DType) bool
	keep  bool
	sum   bool // accumulates integers in i64
	apply func(x *lazy.Tensor, axes ...int) *lazy.Tensor
}

var reductions = []reduceDef{
	{"Sum", isNumeric, false, true, (*lazy.Tensor).Sum},
	{"SumKeepDims", isNumeric, true, true, (*lazy.Tensor).SumKeepDims},
	{"Prod", isNumeric, false, true, (*lazy.Tensor).Prod},
	{"ReduceMax", isNumeric, false, false, (*lazy.Tensor).ReduceMax},
	{"ReduceMin", isNumeric, false, false, (*lazy.Tensor).ReduceMin},
	{"Mean", isFloat, false, false, (*lazy.Tensor).Mean},
	{"MeanKeepDims", isFloat, true, false, (*lazy.Tensor).MeanKeepDims},
}

// validAxes checks distinct axes in range of rank r.
func validAxes(axes []int64, r int) error {
	seen := map[int64]bool{}
	for _, a := range axes {
		if a < 0 || int(a) >= r || seen[a] {
			return fmt.Errorf("bad axes %v for rank %d", axes, r)
		}
		seen[a] = true
	}
	return nil
}

// reducedDims removes (or keeps as 1) the axes (all when none).
func reducedDims(dims []int64, axes []int64, keep bool) []int64 {
	drop := map[int64]bool{}
	for _, a := range axes {
		drop[a] = true
	}
	out := []int64{}
	for i, d := range dims {
		switch {
		case len(axes) == 0 || drop[int64(i)]:
			if keep {
				out = append(out, 1)
			}
		default:
			out = append(out, d)
		}
	}
	return out
}

// someAxes picks a random subset of r axes (possibly empty: all axes).
func (g *gen) someAxes(r int) []int64 {
	var out []int64
	if r == 0 || g.r.IntN(4) == 0 {
		return out
	}
	for a := 0; a < r; a++ {
		if g.r.IntN(2) == 0 {
			out = append(out, int64(a))
		}
	}
	return out
}

func init() {
	for _, rd := range reductions {
		rd := rd
		define(&opSpec{
			name: rd.name, on: func(f *Features) bool { return f.Reduce }, weight: 4,
			gen: func(g *gen) (Instr, bool) {
				x, ok := g.pick(func(s lazy.Shape) bool { return rd.dts(s.DType) })
				if !ok {
					return Instr{}, false
				}
				return Instr{Op: rd.name, In: []int{x}, I: g.someAxes(g.shape0(x).Rank())}, true
			},
			infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
				if !rd.dts(s[0].DType) {
					return lazy.Shape{}, fmt.Errorf("%s takes no %s", rd.name, s[0].DType)
				}
				if err := validAxes(in.I, s[0].Rank()); err != nil {
					return lazy.Shape{}, err
				}
				dt := s[0].DType
				if rd.sum && isInt(dt) {
					dt = lazy.I64 // integers sum in i64, as torch.sum
				}
				return shp(dt, reducedDims(s[0].Dims, in.I, rd.keep)...), nil
			},
			run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return rd.apply(x[0], intsOf(in.I)...) },
			text: expr(func(in Instr, a []string) string {
				return fmt.Sprintf("%s.%s(%s)", a[0], rd.name, ints(in.I))
			}),
		})
	}
	axisOp := func(name string, dts func(lazy.DType) bool, out func(s lazy.Shape, ax int64, keep bool) lazy.Shape,
		run func(x *lazy.Tensor, ax int, keep bool) *lazy.Tensor, text func(a string, ax int64, keep bool) string) {
		define(&opSpec{
			name: name, on: func(f *Features) bool { return f.Reduce }, weight: 3,
			gen: func(g *gen) (Instr, bool) {
				x, ok := g.pick(func(s lazy.Shape) bool { return dts(s.DType) && s.Rank() > 0 })
				if !ok {
					return Instr{}, false
				}
				return Instr{Op: name, In: []int{x}, I: []int64{int64(g.r.IntN(g.shape0(x).Rank())), int64(g.r.IntN(2))}}, true
			},
			infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
				if !dts(s[0].DType) || in.I[0] >= int64(s[0].Rank()) {
					return lazy.Shape{}, fmt.Errorf("%s(axis %d) of %s", name, in.I[0], s[0])
				}
				return out(s[0], in.I[0], in.I[1] == 1), nil
			},
			run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
				return run(x[0], int(in.I[0]), in.I[1] == 1)
			},
			text: expr(func(in Instr, a []string) string { return text(a[0], in.I[0], in.I[1] == 1) }),
		})
	}
	same := func(s lazy.Shape, ax int64, keep bool) lazy.Shape { return s }
	axisOp("ArgMax", isNumeric, func(s lazy.Shape, ax int64, keep bool) lazy.Shape {
		return shp(lazy.I64, reducedDims(s.Dims, []int64{ax}, keep)...)
	}, func(x *lazy.Tensor, ax int, keep bool) *lazy.Tensor {
		if keep {
			return x.ArgMaxKeepDims(ax)
		}
		return x.ArgMax(ax)
	}, func(a string, ax int64, keep bool) string {
		if keep {
			return fmt.Sprintf("%s.ArgMaxKeepDims(%d)", a, ax)
		}
		return fmt.Sprintf("%s.ArgMax(%d)", a, ax)
	})
	axisOp("Cumsum", isNumeric, func(s lazy.Shape, ax int64, keep bool) lazy.Shape {
		if isInt(s.DType) {
			return shp(lazy.I64, s.Dims...)
		}
		return s
	}, func(x *lazy.Tensor, ax int, keep bool) *lazy.Tensor { return x.Cumsum(ax) },
		func(a string, ax int64, keep bool) string { return fmt.Sprintf("%s.Cumsum(%d)", a, ax) })
	axisOp("Softmax", isFloat, same, func(x *lazy.Tensor, ax int, keep bool) *lazy.Tensor { return x.Softmax(ax) },
		func(a string, ax int64, keep bool) string { return fmt.Sprintf("%s.Softmax(%d)", a, ax) })

	define(&opSpec{
		name: "MatMul", on: func(f *Features) bool { return f.MatMul }, weight: 6,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return isNumeric(s.DType) && s.Rank() >= 1 && s.Rank() <= 3 })
			if !ok {
				return Instr{}, false
			}
			y, ok := g.pickWhere(func(r int) bool {
				_, err := matmulShape(g.shape0(x), g.shape0(r))
				return err == nil
			})
			return Instr{Op: "MatMul", In: []int{x, y}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) { return matmulShape(s[0], s[1]) },
		run:   func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return x[0].MatMul(x[1]) },
		text:  expr(func(in Instr, a []string) string { return a[0] + ".MatMul(" + a[1] + ")" }),
	})
	define(&opSpec{
		name: "MatMulT", on: func(f *Features) bool { return f.MatMul }, weight: 4,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return isNumeric(s.DType) && s.Rank() == 2 })
			return Instr{Op: "MatMulT", In: []int{x}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if s[0].Rank() != 2 || !isNumeric(s[0].DType) {
				return lazy.Shape{}, fmt.Errorf("MatMulT of %s", s[0])
			}
			return shp(s[0].DType, s[0].Dims[0], s[0].Dims[0]), nil
		},
		run:  func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return x[0].MatMul(x[0].T()) },
		text: expr(func(in Instr, a []string) string { return a[0] + ".MatMul(" + a[0] + ".T())" }),
	})

	// Reshapes, as rules over the operand's dims so that they hold for every variant.
	define(&opSpec{
		name: "Flatten", on: func(f *Features) bool { return f.Shape }, weight: 3,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return s.Rank() != 1 })
			return Instr{Op: "Flatten", In: []int{x}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if s[0].Rank() == 1 {
				return s[0], nil
			}
			if anyDyn(s[0].Dims) {
				return shp(s[0].DType, dynSym(k)), nil
			}
			return shp(s[0].DType, numel(s[0].Dims)), nil
		},
		alias: func(in Instr, s []lazy.Shape) bool { return s[0].Rank() == 1 },
		run:   func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return x[0].Flatten() },
		text:  expr(func(in Instr, a []string) string { return a[0] + ".Flatten()" }),
	})
	define(&opSpec{
		name: "MergeAxes", on: func(f *Features) bool { return f.Shape }, weight: 3,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return s.Rank() >= 2 })
			if !ok {
				return Instr{}, false
			}
			return Instr{Op: "MergeAxes", In: []int{x}, I: []int64{int64(g.r.IntN(g.shape0(x).Rank() - 1))}}, true
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			a := int(in.I[0])
			if a+1 >= s[0].Rank() {
				return lazy.Shape{}, fmt.Errorf("MergeAxes(%d) of %s", a, s[0])
			}
			d := s[0].Dims
			m := d[a] * d[a+1]
			if isDyn(d[a]) || isDyn(d[a+1]) {
				m = dynSym(k)
			}
			return shp(s[0].DType, append(append(append([]int64{}, d[:a]...), m), d[a+2:]...)...), nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			return x[0].Reshape(MergeAxes(x[0].Dims(), int(in.I[0]))...)
		},
		text: func(in Instr, a []string, d string) string {
			ax := in.I[0]
			return fmt.Sprintf("%s := %s.Reshape(difftest.MergeAxes(%s.Dims(), %d)...) // axes %d and %d merged", d, a[0], a[0], ax, ax, ax+1)
		},
	})
	define(&opSpec{
		name: "SplitAxis", on: func(f *Features) bool { return f.Shape }, weight: 3,
		gen: func(g *gen) (Instr, bool) {
			for range 4 {
				x, ok := g.pick(func(s lazy.Shape) bool { return s.Rank() >= 1 && s.Rank() <= 3 })
				if !ok {
					return Instr{}, false
				}
				r := g.shape0(x).Rank()
				a := g.r.IntN(r)
				f := int64(2 + g.r.IntN(2))
				in := Instr{Op: "SplitAxis", In: []int{x}, I: []int64{int64(a), f}}
				if g.validEverywhere(in) {
					return in, true
				}
			}
			return Instr{}, false
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			a, f := int(in.I[0]), in.I[1]
			if a >= s[0].Rank() || isDyn(s[0].Dims[a]) || s[0].Dims[a]%f != 0 {
				return lazy.Shape{}, fmt.Errorf("SplitAxis(%d by %d) of %s", a, f, s[0])
			}
			d := s[0].Dims
			return shp(s[0].DType, append(append(append([]int64{}, d[:a]...), f, d[a]/f), d[a+1:]...)...), nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			return x[0].Reshape(SplitAxis(x[0].Dims(), int(in.I[0]), in.I[1])...)
		},
		text: func(in Instr, a []string, d string) string {
			return fmt.Sprintf("%s := %s.Reshape(difftest.SplitAxis(%s.Dims(), %d, %d)...) // axis %d split into %d x rest", d, a[0], a[0], in.I[0], in.I[1], in.I[0], in.I[1])
		},
	})
	define(&opSpec{
		name: "Permute", on: func(f *Features) bool { return f.Shape }, weight: 4,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return s.Rank() >= 2 })
			if !ok {
				return Instr{}, false
			}
			r := g.shape0(x).Rank()
			for {
				p := g.r.Perm(r)
				id := true
				for i, v := range p {
					id = id && i == v
				}
				if !id {
					perm := make([]int64, r)
					for i, v := range p {
						perm[i] = int64(v)
					}
					return Instr{Op: "Permute", In: []int{x}, I: perm}, true
				}
			}
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if len(in.I) != s[0].Rank() {
				return lazy.Shape{}, fmt.Errorf("Permute%v of %s", in.I, s[0])
			}
			d := make([]int64, len(in.I))
			for i, p := range in.I {
				d[i] = s[0].Dims[p]
			}
			return shp(s[0].DType, d...), nil
		},
		run:  func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return x[0].Permute(intsOf(in.I)...) },
		text: expr(func(in Instr, a []string) string { return fmt.Sprintf("%s.Permute(%s)", a[0], ints(in.I)) }),
	})
	define(&opSpec{
		name: "BroadcastLead", on: func(f *Features) bool { return f.Shape }, weight: 3,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return s.Rank() <= 2 })
			return Instr{Op: "BroadcastLead", In: []int{x}, I: []int64{int64(1 + g.r.IntN(3))}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			return shp(s[0].DType, append([]int64{in.I[0]}, s[0].Dims...)...), nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			return x[0].BroadcastTo(append([]int64{in.I[0]}, x[0].Dims()...)...)
		},
		text: expr(func(in Instr, a []string) string {
			return fmt.Sprintf("%s.BroadcastTo(append([]int64{%d}, %s.Dims()...)...)", a[0], in.I[0], a[0])
		}),
	})
	define(&opSpec{
		name: "Unsqueeze", on: func(f *Features) bool { return f.Shape }, weight: 3,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return s.Rank() <= 3 })
			if !ok {
				return Instr{}, false
			}
			return Instr{Op: "Unsqueeze", In: []int{x}, I: []int64{int64(g.r.IntN(g.shape0(x).Rank() + 1))}}, true
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			a := int(in.I[0])
			if a > s[0].Rank() {
				return lazy.Shape{}, fmt.Errorf("Unsqueeze(%d) of %s", a, s[0])
			}
			d := s[0].Dims
			return shp(s[0].DType, append(append(append([]int64{}, d[:a]...), 1), d[a:]...)...), nil
		},
		run:  func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return x[0].Unsqueeze(int(in.I[0])) },
		text: expr(func(in Instr, a []string) string { return fmt.Sprintf("%s.Unsqueeze(%d)", a[0], in.I[0]) }),
	})
	define(&opSpec{
		name: "Squeeze", on: func(f *Features) bool { return f.Shape }, weight: 2,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool {
				for _, d := range s.Dims {
					if d == 1 {
						return true
					}
				}
				return false
			})
			if !ok {
				return Instr{}, false
			}
			var axes []int64
			for i, d := range g.shape0(x).Dims {
				if d == 1 {
					axes = append(axes, int64(i))
				}
			}
			return Instr{Op: "Squeeze", In: []int{x}, I: []int64{axes[g.r.IntN(len(axes))]}}, true
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			a := int(in.I[0])
			if a >= s[0].Rank() || s[0].Dims[a] != 1 {
				return lazy.Shape{}, fmt.Errorf("Squeeze(%d) of %s", a, s[0])
			}
			d := s[0].Dims
			return shp(s[0].DType, append(append([]int64{}, d[:a]...), d[a+1:]...)...), nil
		},
		run:  func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return x[0].Squeeze(int(in.I[0])) },
		text: expr(func(in Instr, a []string) string { return fmt.Sprintf("%s.Squeeze(%d)", a[0], in.I[0]) }),
	})
	define(&opSpec{
		name: "Narrow", on: func(f *Features) bool { return f.Shape }, weight: 4,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return s.Rank() >= 1 })
			if !ok {
				return Instr{}, false
			}
			a := g.r.IntN(g.shape0(x).Rank())
			m := g.minDim(x, a)
			if m < 2 {
				return Instr{}, false
			}
			start := g.r.Int64N(m - 1)
			length := 1 + g.r.Int64N(m-start-1)
			return Instr{Op: "Narrow", In: []int{x}, I: []int64{int64(a), start, length}}, true
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			a, st, n := int(in.I[0]), in.I[1], in.I[2]
			if a >= s[0].Rank() || isDyn(s[0].Dims[a]) || st+n > s[0].Dims[a] {
				return lazy.Shape{}, fmt.Errorf("Narrow(%d, %d, %d) of %s", a, st, n, s[0])
			}
			d := append([]int64{}, s[0].Dims...)
			d[a] = n
			return shp(s[0].DType, d...), nil
		},
		alias: func(in Instr, s []lazy.Shape) bool {
			return int(in.I[0]) < s[0].Rank() && in.I[1] == 0 && in.I[2] == s[0].Dims[in.I[0]]
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			return x[0].Narrow(int(in.I[0]), in.I[1], in.I[2])
		},
		text: expr(func(in Instr, a []string) string { return fmt.Sprintf("%s.Narrow(%s)", a[0], ints(in.I)) }),
	})
	define(&opSpec{
		name: "Stride2", on: func(f *Features) bool { return f.Shape }, weight: 2,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return s.Rank() >= 1 && !anyDyn(s.Dims) })
			if !ok {
				return Instr{}, false
			}
			return Instr{Op: "Stride2", In: []int{x}, I: []int64{int64(g.r.IntN(g.shape0(x).Rank()))}}, true
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			a := int(in.I[0])
			if a >= s[0].Rank() || anyDyn(s[0].Dims) {
				return lazy.Shape{}, fmt.Errorf("Stride2(%d) of %s", a, s[0])
			}
			d := append([]int64{}, s[0].Dims...)
			d[a] = (d[a] + 1) / 2
			return shp(s[0].DType, d...), nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			return x[0].SliceStrided(make([]int64, x[0].Rank()), x[0].Dims(), Stride2(x[0].Rank(), int(in.I[0])))
		},
		text: func(in Instr, a []string, d string) string {
			return fmt.Sprintf("%s := %s.SliceStrided(make([]int64, %s.Rank()), %s.Dims(), difftest.Stride2(%s.Rank(), %d)) // every other element of axis %d",
				d, a[0], a[0], a[0], a[0], in.I[0], in.I[0])
		},
	})
	define(&opSpec{
		name: "Concat", on: func(f *Features) bool { return f.Shape }, weight: 4,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return s.Rank() >= 1 })
			if !ok {
				return Instr{}, false
			}
			a := g.r.IntN(g.shape0(x).Rank())
			in := Instr{Op: "Concat", In: []int{x}, I: []int64{int64(a)}}
			for n := 1 + g.r.IntN(2); n > 0; n-- {
				y, ok := g.pickWhere(func(r int) bool {
					_, err := opOf("Concat").infer(Instr{I: in.I}, []lazy.Shape{g.shape0(x), g.shape0(r)}, 0)
					return err == nil
				})
				if !ok {
					break
				}
				in.In = append(in.In, y)
			}
			return in, len(in.In) > 1
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			a := int(in.I[0])
			if a >= s[0].Rank() {
				return lazy.Shape{}, fmt.Errorf("Concat axis %d of %s", a, s[0])
			}
			d := append([]int64{}, s[0].Dims...)
			for _, o := range s[1:] {
				if o.DType != s[0].DType || o.Rank() != s[0].Rank() {
					return lazy.Shape{}, fmt.Errorf("Concat of %s and %s", s[0], o)
				}
				for i := range d {
					if i != a && o.Dims[i] != d[i] {
						return lazy.Shape{}, fmt.Errorf("Concat(axis %d) of %s and %s", a, s[0], o)
					}
				}
				if isDyn(d[a]) || isDyn(o.Dims[a]) {
					d[a] = dynSym(k)
				} else {
					d[a] += o.Dims[a]
				}
			}
			return shp(s[0].DType, d...), nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return lazy.Concat(int(in.I[0]), x...) },
		text: expr(func(in Instr, a []string) string {
			return fmt.Sprintf("lazy.Concat(%d, %s)", in.I[0], joinNames(a))
		}),
	})
	define(&opSpec{
		name: "Stack", on: func(f *Features) bool { return f.Shape }, weight: 2,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return s.Rank() <= 2 })
			if !ok {
				return Instr{}, false
			}
			y, ok := g.pickWhere(func(r int) bool { return g.shape0(r).Equal(g.shape0(x)) })
			return Instr{Op: "Stack", In: []int{x, y}, I: []int64{int64(g.r.IntN(g.shape0(x).Rank() + 1))}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			a := int(in.I[0])
			if !s[0].Equal(s[1]) || a > s[0].Rank() {
				return lazy.Shape{}, fmt.Errorf("Stack(%d) of %s and %s", a, s[0], s[1])
			}
			d := s[0].Dims
			return shp(s[0].DType, append(append(append([]int64{}, d[:a]...), 2), d[a:]...)...), nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return lazy.Stack(int(in.I[0]), x...) },
		text: expr(func(in Instr, a []string) string {
			return fmt.Sprintf("lazy.Stack(%d, %s)", in.I[0], joinNames(a))
		}),
	})
	define(&opSpec{
		name: "Flip", on: func(f *Features) bool { return f.Shape }, weight: 2,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return s.Rank() >= 1 })
			if !ok {
				return Instr{}, false
			}
			return Instr{Op: "Flip", In: []int{x}, I: []int64{int64(g.r.IntN(g.shape0(x).Rank()))}}, true
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if err := validAxes(in.I, s[0].Rank()); err != nil {
				return lazy.Shape{}, err
			}
			return s[0], nil
		},
		run:  func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return x[0].Flip(intsOf(in.I)...) },
		text: expr(func(in Instr, a []string) string { return fmt.Sprintf("%s.Flip(%s)", a[0], ints(in.I)) }),
	})

	castTo := []lazy.DType{lazy.F32, lazy.F64, lazy.I32, lazy.Bool}
	define(&opSpec{
		name: "Cast", on: func(f *Features) bool { return f.Cast }, weight: 5,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(lazy.Shape) bool { return true })
			if !ok {
				return Instr{}, false
			}
			for {
				dt := castTo[g.r.IntN(len(castTo))]
				if dt != g.shape0(x).DType {
					return Instr{Op: "Cast", In: []int{x}, I: []int64{int64(dt)}}, true
				}
			}
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			return shp(lazy.DType(in.I[0]), s[0].Dims...), nil
		},
		alias: func(in Instr, s []lazy.Shape) bool { return s[0].DType == lazy.DType(in.I[0]) },
		run:   func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return x[0].Cast(lazy.DType(in.I[0])) },
		text: expr(func(in Instr, a []string) string {
			return fmt.Sprintf("%s.Cast(%s)", a[0], dtypeName(lazy.DType(in.I[0])))
		}),
	})
	define(&opSpec{
		name: "CastRound", on: func(f *Features) bool { return f.Cast }, weight: 2,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return isFloat(s.DType) })
			dt := []lazy.DType{lazy.F16, lazy.BF16}[g.r.IntN(2)]
			return Instr{Op: "CastRound", In: []int{x}, I: []int64{int64(dt)}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if !isFloat(s[0].DType) {
				return lazy.Shape{}, fmt.Errorf("CastRound of %s", s[0])
			}
			return s[0], nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			return x[0].Cast(lazy.DType(in.I[0])).Cast(x[0].DType())
		},
		text: expr(func(in Instr, a []string) string {
			return fmt.Sprintf("%s.Cast(%s).Cast(%s.DType())", a[0], dtypeName(lazy.DType(in.I[0])), a[0])
		}),
	})
	define(&opSpec{
		name: "CastSame", on: func(f *Features) bool { return f.Cast && f.PassThrough }, weight: 1,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(lazy.Shape) bool { return true })
			return Instr{Op: "CastSame", In: []int{x}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) { return s[0], nil },
		alias: func(in Instr, s []lazy.Shape) bool { return true },
		run:   func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return x[0].Cast(x[0].DType()) },
		text: expr(func(in Instr, a []string) string {
			return fmt.Sprintf("%s.Cast(%s.DType()) // the operand itself", a[0], a[0])
		}),
	})
}

func joinNames(a []string) string {
	s := ""
	for i, x := range a {
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}

// matmulShape is lazy's MatMul rule over sizes and symbols.
func matmulShape(x, y lazy.Shape) (lazy.Shape, error) {
	bad := func() (lazy.Shape, error) { return lazy.Shape{}, fmt.Errorf("MatMul of %s and %s", x, y) }
	if x.Rank() < 1 || y.Rank() < 1 || x.DType != y.DType || !isNumeric(x.DType) {
		return bad()
	}
	if x.Dims[x.Rank()-1] != y.Dims[max(y.Rank()-2, 0)] {
		return bad()
	}
	a, b := x.Dims, y.Dims
	if len(a) == 1 {
		a = []int64{1, a[0]}
	}
	if len(b) == 1 {
		b = []int64{b[0], 1}
	}
	var out []int64
	if len(b) == 2 && len(a) > 2 {
		out = append(append([]int64{}, a[:len(a)-1]...), b[1])
	} else {
		batch, err := bcastDims(a[:len(a)-2], b[:len(b)-2])
		if err != nil {
			return bad()
		}
		out = append(batch, a[len(a)-2], b[len(b)-1])
	}
	if x.Rank() == 1 {
		out = append(out[:len(out)-2], out[len(out)-1])
	}
	if y.Rank() == 1 {
		out = out[:len(out)-1]
	}
	return shp(x.DType, out...), nil
}
