package difftest

import (
	"fmt"
	"math"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
)

// Constants, Assign, random numbers, host ops, graph breaks and static
// arguments.

func constTypes() []lazy.DType {
	return []lazy.DType{lazy.F32, lazy.F32, lazy.F64, lazy.I32, lazy.Bool}
}

// sliceText writes a Go slice literal of data in dtype dt.
func sliceText(dt lazy.DType, data []float64) string {
	var b strings.Builder
	switch dt {
	case lazy.F32:
		b.WriteString("[]float32{")
	case lazy.F64:
		b.WriteString("[]float64{")
	case lazy.I32:
		b.WriteString("[]int32{")
	case lazy.I64:
		b.WriteString("[]int64{")
	case lazy.Bool:
		b.WriteString("[]bool{")
	}
	for i, v := range data {
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case dt == lazy.Bool:
			fmt.Fprint(&b, v != 0)
		case isInt(dt):
			fmt.Fprint(&b, int64(v))
		case math.IsNaN(v) || math.IsInf(v, 0):
			fmt.Fprintf(&b, "%s(%s)", map[lazy.DType]string{lazy.F32: "float32", lazy.F64: "float64"}[dt], fnum(v))
		default:
			fmt.Fprint(&b, v)
		}
	}
	b.WriteString("}")
	return b.String()
}

// fromData makes a tensor of shape s from data (converted to s's dtype),
// holding device data (not pending IR).
func fromData(s lazy.Shape, data []float64) *lazy.Tensor {
	l := hlo.NewLiteral(s.DType, s.Dims...)
	for i, v := range data {
		l.SetFloat(i, v)
	}
	return lazy.FromLiteral(l)
}

// fromDataText is fromData's Go spelling.
func fromDataText(s lazy.Shape, data []float64) string {
	switch s.Rank() {
	case 0:
		return fmt.Sprintf("lazy.FromLiteral(hlo.ScalarLiteral(%s, %s))", dtypeName(s.DType), fnum(data[0]))
	case 1:
		return "lazy.FromSlice(" + sliceText(s.DType, data) + ")"
	}
	return "lazy.FromSlice(" + sliceText(s.DType, data) + ", " + ints(s.Dims) + ")"
}

func init() {
	define(&opSpec{
		name: "FromSlice", on: func(f *Features) bool { return f.Consts }, weight: 2,
		gen: func(g *gen) (Instr, bool) {
			dt := constTypes()[g.r.IntN(5)]
			// Often the shape of an existing register (so it combines).
			var dims []int64
			if x, ok := g.pick(func(s lazy.Shape) bool { return !anyDyn(s.Dims) }); ok && g.invariant(x) && g.r.IntN(3) > 0 {
				dims = g.shape0(x).Dims
			} else {
				dims = g.randomDims()
			}
			return Instr{Op: "FromSlice", I: append([]int64{int64(dt)}, dims...), F: g.data(dt, numel(dims))}, true
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			return shp(lazy.DType(in.I[0]), in.I[1:]...), nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			return fromData(shp(lazy.DType(in.I[0]), in.I[1:]...), in.F)
		},
		text: expr(func(in Instr, a []string) string {
			return fromDataText(shp(lazy.DType(in.I[0]), in.I[1:]...), in.F)
		}),
	})
	define(&opSpec{
		name: "FullLike", on: func(f *Features) bool { return f.Consts }, weight: 2, shapeOnly: true,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(lazy.Shape) bool { return true })
			dt := constTypes()[g.r.IntN(5)]
			vals := []float64{0, 1, -2, 0.5} // fitting dt, as lazy.Full wants
			switch {
			case dt == lazy.Bool:
				vals = vals[:2]
			case isInt(dt):
				vals = vals[:3]
			}
			return Instr{Op: "FullLike", In: []int{x}, I: []int64{int64(dt)}, F: []float64{vals[g.r.IntN(len(vals))]}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			return shp(lazy.DType(in.I[0]), s[0].Dims...), nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			return lazy.Full(lazy.DType(in.I[0]), in.F[0], x[0].Dims()...)
		},
		text: expr(func(in Instr, a []string) string {
			return fmt.Sprintf("lazy.Full(%s, %s, %s.Dims()...)", dtypeName(lazy.DType(in.I[0])), fnum(in.F[0]), a[0])
		}),
	})

	define(&opSpec{
		name: "Assign", void: true, kind: kindAssign, weight: 8,
		on: func(f *Features) bool { return f.AssignArg || f.AssignCapture || f.AssignLocal },
		gen: func(g *gen) (Instr, bool) {
			t, ok := g.pickWhere(func(r int) bool { return assignTargetAllowed(&g.f, g.st, r) })
			if !ok {
				return Instr{}, false
			}
			// Usually a value computed from the target itself.
			v, ok := g.pickWhere(func(r int) bool {
				return r != t && g.sameEverywhere(r, t) && assignSourceAllowed(&g.f, g.st, r)
			})
			return Instr{Op: "Assign", In: []int{t, v}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if !s[0].Equal(s[1]) {
				return lazy.Shape{}, fmt.Errorf("Assign of %s to %s", s[1], s[0])
			}
			return lazy.Shape{}, nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { x[0].Assign(x[1]); return nil },
		text: func(in Instr, a []string, d string) string {
			return a[0] + ".Assign(" + a[1] + ")"
		},
	})

	// AssignUpdate writes a value computed from the target itself, as an
	// optimizer step does: t.Assign(t*a+b), t.Assign(t+o), t.Assign(t-o*a).
	define(&opSpec{
		name: "AssignUpdate", void: true, kind: kindAssign, weight: 8,
		on: func(f *Features) bool { return f.AssignArg || f.AssignCapture || f.AssignLocal },
		gen: func(g *gen) (Instr, bool) {
			t, ok := g.pickWhere(func(r int) bool {
				return assignTargetAllowed(&g.f, g.st, r) && isNumeric(g.shape0(r).DType)
			})
			if !ok {
				return Instr{}, false
			}
			a := []float64{2, 0.5, -1}[g.r.IntN(3)]
			in := Instr{Op: "AssignUpdate", In: []int{t}, I: []int64{int64(g.r.IntN(3))}, F: []float64{a, []float64{1, -0.5}[g.r.IntN(2)]}}
			if in.I[0] > 0 {
				o, ok := g.pickWhere(func(r int) bool {
					in.In = []int{t, r}
					defer func() { in.In = []int{t} }()
					return g.validEverywhere(in)
				})
				if !ok {
					in.I[0] = 0
					return in, true
				}
				in.In = []int{t, o}
			}
			return in, true
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if !isNumeric(s[0].DType) || (in.I[0] > 0) != (len(s) == 2) {
				return lazy.Shape{}, fmt.Errorf("AssignUpdate of %v", s)
			}
			if len(s) == 2 {
				d, err := bcastDims(s[0].Dims, s[1].Dims)
				if err != nil || s[1].DType != s[0].DType || !sameDimsSym(d, s[0].Dims) {
					return lazy.Shape{}, fmt.Errorf("AssignUpdate of %s with %s", s[0], s[1])
				}
			}
			return lazy.Shape{}, nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			switch in.I[0] {
			case 0:
				x[0].Assign(x[0].MulScalar(in.F[0]).AddScalar(in.F[1]))
			case 1:
				x[0].Assign(x[0].Add(x[1]))
			default:
				x[0].Assign(x[0].Sub(x[1].MulScalar(in.F[0])))
			}
			return nil
		},
		text: func(in Instr, a []string, d string) string {
			switch in.I[0] {
			case 0:
				return fmt.Sprintf("%s.Assign(%s.MulScalar(%s).AddScalar(%s))", a[0], a[0], fnum(in.F[0]), fnum(in.F[1]))
			case 1:
				return fmt.Sprintf("%s.Assign(%s.Add(%s))", a[0], a[0], a[1])
			}
			return fmt.Sprintf("%s.Assign(%s.Sub(%s.MulScalar(%s)))", a[0], a[0], a[1], fnum(in.F[0]))
		},
	})

	randOn := func(f *Features) bool { return f.Random }
	define(&opSpec{
		name: "RandUniform", on: randOn, kind: kindRandom, weight: 3, shapeOnly: true,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(lazy.Shape) bool { return true })
			lo := []float64{0, -1}[g.r.IntN(2)]
			return Instr{Op: "RandUniform", In: []int{x}, F: []float64{lo, lo + 2}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) { return shp(lazy.F32, s[0].Dims...), nil },
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			return lazy.RandUniform(lazy.F32, in.F[0], in.F[1], x[0].Dims()...)
		},
		text: expr(func(in Instr, a []string) string {
			return fmt.Sprintf("lazy.RandUniform(lazy.F32, %s, %s, %s.Dims()...)", fnum(in.F[0]), fnum(in.F[1]), a[0])
		}),
	})
	define(&opSpec{
		name: "RandN", on: randOn, kind: kindRandom, weight: 2, shapeOnly: true,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(lazy.Shape) bool { return true })
			return Instr{Op: "RandN", In: []int{x}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) { return shp(lazy.F32, s[0].Dims...), nil },
		run:   func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return lazy.RandN(lazy.F32, x[0].Dims()...) },
		text: expr(func(in Instr, a []string) string {
			return fmt.Sprintf("lazy.RandN(lazy.F32, %s.Dims()...)", a[0])
		}),
	})
	define(&opSpec{
		name: "Dropout", on: randOn, kind: kindRandom, weight: 3,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return isFloat(s.DType) })
			return Instr{Op: "Dropout", In: []int{x}, F: []float64{[]float64{0.5, 0.25}[g.r.IntN(2)]}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if !isFloat(s[0].DType) {
				return lazy.Shape{}, fmt.Errorf("Dropout of %s", s[0])
			}
			return s[0], nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return x[0].Dropout(in.F[0], true) },
		text: expr(func(in Instr, a []string) string {
			return fmt.Sprintf("%s.Dropout(%s, true)", a[0], fnum(in.F[0]))
		}),
	})
	define(&opSpec{
		name: "ManualSeed", on: func(f *Features) bool { return f.ReseedInFn }, kind: kindRandom, weight: 1, void: true,
		gen: func(g *gen) (Instr, bool) {
			return Instr{Op: "ManualSeed", I: []int64{int64(g.r.IntN(1000))}}, true
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) { return lazy.Shape{}, nil },
		run:   func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { lazy.ManualSeed(uint64(in.I[0])); return nil },
		text: func(in Instr, a []string, d string) string {
			return fmt.Sprintf("lazy.ManualSeed(%d)", in.I[0])
		},
	})

	hostOn := func(f *Features) bool { return f.HostOps }
	define(&opSpec{
		name: "NonZero", on: hostOn, kind: kindHostDyn, weight: 3,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pickHostInput(func(s lazy.Shape) bool { return s.Rank() >= 1 })
			return Instr{Op: "NonZero", In: []int{x}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			return shp(lazy.I64, dynSym(k), int64(s[0].Rank())), nil
		},
		run:  func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return x[0].NonZero() },
		text: expr(func(in Instr, a []string) string { return a[0] + ".NonZero()" }),
	})
	define(&opSpec{
		name: "Unique", on: hostOn, kind: kindHostDyn, weight: 2,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pickHostInput(func(lazy.Shape) bool { return true })
			return Instr{Op: "Unique", In: []int{x}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) { return shp(s[0].DType, dynSym(k)), nil },
		run:   func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return x[0].Unique() },
		text:  expr(func(in Instr, a []string) string { return a[0] + ".Unique()" }),
	})
	define(&opSpec{
		name: "MaskedSelect", on: hostOn, kind: kindHostDyn, weight: 3,
		gen: func(g *gen) (Instr, bool) {
			m, ok := g.pickHostInput(func(s lazy.Shape) bool { return s.DType == lazy.Bool })
			if !ok {
				return Instr{}, false
			}
			x, ok := g.pickWhere(func(r int) bool { return g.sameDimsEverywhere(r, m) })
			return Instr{Op: "MaskedSelect", In: []int{x, m}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if s[1].DType != lazy.Bool || !sameDimsSym(s[0].Dims, s[1].Dims) {
				return lazy.Shape{}, fmt.Errorf("MaskedSelect(%s, mask %s)", s[0], s[1])
			}
			return shp(s[0].DType, dynSym(k)), nil
		},
		run:  func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return x[0].MaskedSelect(x[1]) },
		text: expr(func(in Instr, a []string) string { return a[0] + ".MaskedSelect(" + a[1] + ")" }),
	})
	define(&opSpec{
		name: "HostFunc", kind: kindHostFunc, weight: 4,
		on: func(f *Features) bool { return f.HostFunc },
		gen: func(g *gen) (Instr, bool) {
			k := g.r.IntN(len(hostFns))
			if g.f.HostChainMulti && g.chance(3) {
				k = int(hostFnIndex("pair"))
			}
			h := hostFns[k]
			if h.fails && !g.f.HostError {
				return Instr{}, false
			}
			x, ok := g.pick(func(s lazy.Shape) bool { return h.accepts([]lazy.Shape{s, s}) })
			if !ok {
				return Instr{}, false
			}
			in := Instr{Op: "HostFunc", In: []int{x}, I: []int64{int64(k), 0}}
			if h.nIn == 2 {
				y, ok := g.pickWhere(func(r int) bool { return g.sameEverywhere(r, x) })
				if !ok {
					return Instr{}, false
				}
				in.In = append(in.In, y)
			}
			in.I[1] = int64(g.r.IntN(len(h.outs(g.shapes0(in.In)))))
			return in, true
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			h := hostFns[in.I[0]]
			if len(s) != h.nIn || !h.accepts(append(s, s[0])) {
				return lazy.Shape{}, fmt.Errorf("host function %s of %v", h.name, s)
			}
			return h.outs(s)[in.I[1]], nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			h := hostFns[in.I[0]]
			shapes := make([]lazy.Shape, len(x))
			for i, t := range x {
				shapes[i] = t.Shape()
			}
			return lazy.HostFunc("difftest."+h.name, h.fn, h.outs(shapes)...)(x...)[in.I[1]]
		},
		text: expr(func(in Instr, a []string) string {
			h := hostFns[in.I[0]]
			return fmt.Sprintf("lazy.HostFunc(%q, difftest.HostFn(%q), %s)(%s)[%d]",
				"difftest."+h.name, h.name, h.outsText(a), joinNames(a), in.I[1])
		}),
	})

	define(&opSpec{
		name: "ItemIf", kind: kindRead, weight: 3,
		on: func(f *Features) bool { return f.GraphBreak },
		gen: func(g *gen) (Instr, bool) {
			c, ok := g.pick(func(lazy.Shape) bool { return true })
			if !ok {
				return Instr{}, false
			}
			x, ok := g.pick(func(s lazy.Shape) bool { return isNumeric(s.DType) })
			if !ok {
				return Instr{}, false
			}
			a, b := g.branchPair(g.shape0(x).DType)
			return Instr{Op: "ItemIf", In: []int{c, x}, I: []int64{a, b}, F: []float64{[]float64{0, 1, -1}[g.r.IntN(3)]}}, true
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if !branchOK(in.I[0], s[1].DType) || !branchOK(in.I[1], s[1].DType) {
				return lazy.Shape{}, fmt.Errorf("branch ops of %s", s[1])
			}
			return s[1], nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			e.reads++
			v := x[0].Cast(lazy.F64).Sum().Item()
			active.noteBranch(v, in.F[0])
			if v > in.F[0] {
				return unaryByName(branchOps[in.I[0]]).apply(x[1])
			}
			return unaryByName(branchOps[in.I[1]]).apply(x[1])
		},
		text: func(in Instr, a []string, d string) string {
			return fmt.Sprintf("var %s *lazy.Tensor\n\tif %s.Cast(lazy.F64).Sum().Item() > %s {\n\t\t%s = %s.%s()\n\t} else {\n\t\t%s = %s.%s()\n\t}",
				d, a[0], fnum(in.F[0]), d, a[1], branchOps[in.I[0]], d, a[1], branchOps[in.I[1]])
		},
	})
	define(&opSpec{
		name: "HostRead", kind: kindRead, weight: 2,
		on: func(f *Features) bool { return f.GraphBreak },
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return isNumeric(s.DType) && s.Rank() >= 1 })
			return Instr{Op: "HostRead", In: []int{x}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if s[0].Rank() == 0 {
				// lazy.FromSlice of no dims makes a 1-D tensor.
				return lazy.Shape{}, fmt.Errorf("HostRead of a 0-d tensor")
			}
			return shp(lazy.F32, s[0].Dims...), nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			e.reads++
			return lazy.FromSlice(Reversed(x[0].Float32s()), x[0].Dims()...)
		},
		text: expr(func(in Instr, a []string) string {
			return fmt.Sprintf("lazy.FromSlice(difftest.Reversed(%s.Float32s()), %s.Dims()...)", a[0], a[0])
		}),
	})

	staticOn := func(f *Features) bool { return f.Statics }
	define(&opSpec{
		name: "StaticScale", on: staticOn, weight: 3,
		gen: func(g *gen) (Instr, bool) {
			if len(g.p.Statics) == 0 {
				return Instr{}, false
			}
			x, ok := g.pick(func(s lazy.Shape) bool { return isFloat(s.DType) })
			return Instr{Op: "StaticScale", In: []int{x}, I: []int64{int64(g.r.IntN(len(g.p.Statics))), int64(g.r.IntN(2))}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if !isFloat(s[0].DType) {
				return lazy.Shape{}, fmt.Errorf("StaticScale of %s", s[0])
			}
			return s[0], nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			v := e.statics[in.I[0]]
			if in.I[1] == 0 {
				return x[0].MulScalar(v)
			}
			return x[0].AddScalar(v)
		},
		text: func(in Instr, a []string, d string) string {
			m := "MulScalar"
			if in.I[1] == 1 {
				m = "AddScalar"
			}
			return fmt.Sprintf("%s := %s.%s(float64(%s))", d, a[0], m, staticName(in.I[0]))
		},
	})
	define(&opSpec{
		name: "StaticIf", on: staticOn, weight: 3,
		gen: func(g *gen) (Instr, bool) {
			if len(g.p.Statics) == 0 {
				return Instr{}, false
			}
			x, ok := g.pick(func(s lazy.Shape) bool { return isNumeric(s.DType) })
			if !ok {
				return Instr{}, false
			}
			a, b := g.branchPair(g.shape0(x).DType)
			return Instr{Op: "StaticIf", In: []int{x}, I: []int64{int64(g.r.IntN(len(g.p.Statics))), a, b}, F: []float64{1}}, true
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if !branchOK(in.I[1], s[0].DType) || !branchOK(in.I[2], s[0].DType) {
				return lazy.Shape{}, fmt.Errorf("branch ops of %s", s[0])
			}
			return s[0], nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			if e.statics[in.I[0]] > in.F[0] {
				return unaryByName(branchOps[in.I[1]]).apply(x[0])
			}
			return unaryByName(branchOps[in.I[2]]).apply(x[0])
		},
		text: func(in Instr, a []string, d string) string {
			return fmt.Sprintf("var %s *lazy.Tensor\n\tif float64(%s) > %s {\n\t\t%s = %s.%s()\n\t} else {\n\t\t%s = %s.%s()\n\t}",
				d, staticName(in.I[0]), fnum(in.F[0]), d, a[0], branchOps[in.I[1]], d, a[0], branchOps[in.I[2]])
		},
	})
}

// staticName names static parameter i in printed programs.
func staticName(i int64) string { return fmt.Sprintf("s%d", i) }

// Reversed returns v in reverse order (the host-side computation of the
// HostRead op).
func Reversed(v []float32) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[len(v)-1-i] = x
	}
	return out
}
