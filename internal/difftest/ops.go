package difftest

import (
	"fmt"
	"math"
	"strings"

	"github.com/xlajit/xlajit/lazy"
)

// opSpec is one row of the op table: how the generator proposes the op,
// how its result shape follows from its operands' (for one input variant),
// how the interpreter runs it and how the printer writes it.
type opSpec struct {
	name   string
	on     func(f *Features) bool
	weight int
	// gen proposes operands and parameters (false: nothing fits).
	gen func(g *gen) (Instr, bool)
	// infer gives the result shape for one variant's operand shapes; k is
	// the instruction's index (for symbols of data-dependent sizes).
	infer func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error)
	// run computes the result (nil for statements such as Assign).
	run func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor
	// text writes the statement defining d from operands named a.
	text func(in Instr, a []string, d string) string
	// alias reports that the result may be operand 0 itself.
	alias func(in Instr, s []lazy.Shape) bool
	// void: the op defines no register (Assign, ManualSeed).
	void bool
	// shapeOnly: the op reads only its operands' shapes, not their values.
	shapeOnly bool
	// kind marks ops the checker and features care about.
	kind opKind
}

type opKind int

const (
	kindPlain     opKind = iota
	kindAssign           // writes In[0]
	kindHostDyn          // host op with a data-dependent result shape
	kindHostFunc         // lazy.HostFunc
	kindRead             // graph break
	kindRandom           // draws random numbers or reseeds
	kindHostError        // HostFunc that may fail on some data
	kindReplace          // replaces In[0]'s contents other than by Assign (ops_state.go)
	kindOptim            // an optimizer step (ops_optim.go)
)

var (
	ops    []*opSpec
	opByNm = map[string]*opSpec{}
)

func define(o *opSpec) {
	if _, dup := opByNm[o.name]; dup {
		panic("difftest: op " + o.name + " defined twice")
	}
	if o.weight == 0 {
		o.weight = 10
	}
	ops = append(ops, o)
	opByNm[o.name] = o
}

func opOf(name string) *opSpec {
	o := opByNm[name]
	if o == nil {
		panic("difftest: unknown op " + name)
	}
	return o
}

// expr makes a text function for a one-expression op.
func expr(f func(in Instr, a []string) string) func(in Instr, a []string, d string) string {
	return func(in Instr, a []string, d string) string { return d + " := " + f(in, a) }
}

func ints(xs []int64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

func intsOf(xs []int64) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}

func fnum(v float64) string {
	s := fmt.Sprint(v)
	if !strings.ContainsAny(s, ".eEIN") {
		s += ".0"
	}
	switch s {
	case "+Inf":
		return "math.Inf(1)"
	case "-Inf":
		return "math.Inf(-1)"
	case "NaN":
		return "math.NaN()"
	}
	return s
}

// ---- elementwise ----

type unaryDef struct {
	name  string
	dts   func(lazy.DType) bool
	out   lazy.DType // result dtype (0: the operand's)
	apply func(x *lazy.Tensor) *lazy.Tensor
}

var unaries = []unaryDef{
	{"Neg", isNumeric, 0, (*lazy.Tensor).Neg},
	{"Abs", isNumeric, 0, (*lazy.Tensor).Abs},
	{"Square", isNumeric, 0, (*lazy.Tensor).Square},
	{"Sign", isNumeric, 0, (*lazy.Tensor).Sign},
	{"Exp", isFloat, 0, (*lazy.Tensor).Exp},
	{"Tanh", isFloat, 0, (*lazy.Tensor).Tanh},
	{"Expm1", isFloat, 0, (*lazy.Tensor).Expm1},
	{"Log", isFloat, 0, (*lazy.Tensor).Log},
	{"Log1p", isFloat, 0, (*lazy.Tensor).Log1p},
	{"Sqrt", isFloat, 0, (*lazy.Tensor).Sqrt},
	{"Rsqrt", isFloat, 0, (*lazy.Tensor).Rsqrt},
	{"Sigmoid", isFloat, 0, (*lazy.Tensor).Sigmoid},
	{"Sin", isFloat, 0, (*lazy.Tensor).Sin},
	{"Cos", isFloat, 0, (*lazy.Tensor).Cos},
	{"Floor", isFloat, 0, (*lazy.Tensor).Floor},
	{"Ceil", isFloat, 0, (*lazy.Tensor).Ceil},
	{"Round", isFloat, 0, (*lazy.Tensor).Round},
	{"ReLU", isFloat, 0, (*lazy.Tensor).ReLU},
	{"Erf", isFloat, 0, (*lazy.Tensor).Erf},
	{"Reciprocal", isFloat, 0, (*lazy.Tensor).Reciprocal},
	{"GELU", isFloat, 0, (*lazy.Tensor).GELU},
	{"IsFinite", isFloat, lazy.Bool, (*lazy.Tensor).IsFinite},
	{"Not", func(dt lazy.DType) bool { return dt == lazy.Bool }, 0, (*lazy.Tensor).Not},
}

// branchOps are the unaries the control-flow ops choose between; the
// first four take integers too.
var branchOps = []string{"Neg", "Abs", "Square", "Sign", "Exp", "Tanh"}

func unaryByName(n string) unaryDef {
	for _, u := range unaries {
		if u.name == n {
			return u
		}
	}
	panic("difftest: unknown unary " + n)
}

// branchOK reports whether branch op b takes dtype dt.
func branchOK(b int64, dt lazy.DType) bool { return unaryByName(branchOps[b]).dts(dt) }

type binaryDef struct {
	name  string
	dts   func(lazy.DType) bool
	cmp   bool // result is bool
	apply func(x, y *lazy.Tensor) *lazy.Tensor
}

func isBool(dt lazy.DType) bool { return dt == lazy.Bool }

func anyDT(lazy.DType) bool { return true }

var binaries = []binaryDef{
	{"Add", isNumeric, false, (*lazy.Tensor).Add},
	{"Sub", isNumeric, false, (*lazy.Tensor).Sub},
	{"Mul", isNumeric, false, (*lazy.Tensor).Mul},
	{"Div", isNumeric, false, (*lazy.Tensor).Div},
	{"Max", isNumeric, false, (*lazy.Tensor).Max},
	{"Min", isNumeric, false, (*lazy.Tensor).Min},
	{"Rem", isNumeric, false, (*lazy.Tensor).Rem},
	{"Pow", isFloat, false, (*lazy.Tensor).Pow},
	{"Atan2", isFloat, false, (*lazy.Tensor).Atan2},
	{"And", isBool, false, (*lazy.Tensor).And},
	{"Or", isBool, false, (*lazy.Tensor).Or},
	{"Xor", isBool, false, (*lazy.Tensor).Xor},
	{"Eq", anyDT, true, (*lazy.Tensor).Eq},
	{"Ne", anyDT, true, (*lazy.Tensor).Ne},
	{"Lt", isNumeric, true, (*lazy.Tensor).Lt},
	{"Le", isNumeric, true, (*lazy.Tensor).Le},
	{"Gt", isNumeric, true, (*lazy.Tensor).Gt},
	{"Ge", isNumeric, true, (*lazy.Tensor).Ge},
}

// integral reports a Go number that promotes like a Python int.
func integral(v float64) bool { return v == math.Trunc(v) && !math.IsInf(v, 0) }

// scalarResult is the result type of a *Scalar op on dt with the Go
// number v, as PyTorch promotes a tensor with a Python scalar: a
// fractional number makes an integer tensor f32, DivScalar always does.
func scalarResult(op string, dt lazy.DType, v float64) lazy.DType {
	if isInt(dt) && (op == "DivScalar" || !integral(v)) {
		return lazy.F32
	}
	return dt
}

type scalarDef struct {
	name  string
	dts   func(lazy.DType) bool
	cmp   bool
	vals  []float64 // constants chosen from (few, so eager mode reuses its programs)
	apply func(x *lazy.Tensor, v float64) *lazy.Tensor
}

var scalars = []scalarDef{
	{"AddScalar", isNumeric, false, []float64{1, -2, 0.5, 3}, (*lazy.Tensor).AddScalar},
	{"SubScalar", isNumeric, false, []float64{1, 0.25, -3}, (*lazy.Tensor).SubScalar},
	{"MulScalar", isNumeric, false, []float64{2, -1, 0.5, 3, 0}, (*lazy.Tensor).MulScalar},
	{"DivScalar", isNumeric, false, []float64{2, -4, 0.5, 3}, (*lazy.Tensor).DivScalar},
	{"PowScalar", isFloat, false, []float64{2, 0.5, -1, 3}, (*lazy.Tensor).PowScalar},
	{"MaxScalar", isNumeric, false, []float64{0, 1, -1}, (*lazy.Tensor).MaxScalar},
	{"MinScalar", isNumeric, false, []float64{0, 1, -1}, (*lazy.Tensor).MinScalar},
	{"GtScalar", isNumeric, true, []float64{0, 1, -0.5}, (*lazy.Tensor).GtScalar},
	{"LtScalar", isNumeric, true, []float64{0, 2}, (*lazy.Tensor).LtScalar},
	{"EqScalar", isNumeric, true, []float64{0, 1}, (*lazy.Tensor).EqScalar},
}

func init() {
	for _, u := range unaries {
		u := u
		define(&opSpec{
			name: u.name, on: func(f *Features) bool { return f.Elementwise }, weight: 4,
			gen: func(g *gen) (Instr, bool) {
				x, ok := g.pick(func(s lazy.Shape) bool { return u.dts(s.DType) })
				return Instr{Op: u.name, In: []int{x}}, ok
			},
			infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
				if !u.dts(s[0].DType) {
					return lazy.Shape{}, fmt.Errorf("%s takes no %s", u.name, s[0].DType)
				}
				if u.out != 0 {
					return shp(u.out, s[0].Dims...), nil
				}
				return s[0], nil
			},
			run:  func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return u.apply(x[0]) },
			text: expr(func(in Instr, a []string) string { return a[0] + "." + u.name + "()" }),
		})
	}
	for _, b := range binaries {
		b := b
		on := func(f *Features) bool { return f.Elementwise }
		if b.cmp || b.name == "And" || b.name == "Or" || b.name == "Xor" {
			on = func(f *Features) bool { return f.Compare }
		}
		define(&opSpec{
			name: b.name, on: on, weight: 6,
			gen: func(g *gen) (Instr, bool) {
				x, ok := g.pick(func(s lazy.Shape) bool { return b.dts(s.DType) })
				if !ok {
					return Instr{}, false
				}
				y, ok := g.pickCompatible(x)
				return Instr{Op: b.name, In: []int{x, y}}, ok
			},
			infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
				if s[0].DType != s[1].DType || !b.dts(s[0].DType) {
					return lazy.Shape{}, fmt.Errorf("%s of %s and %s", b.name, s[0].DType, s[1].DType)
				}
				d, err := bcastDims(s[0].Dims, s[1].Dims)
				if err != nil {
					return lazy.Shape{}, err
				}
				if b.cmp {
					return shp(lazy.Bool, d...), nil
				}
				if b.name == "Div" && isInt(s[0].DType) {
					return shp(lazy.F32, d...), nil // true division
				}
				return shp(s[0].DType, d...), nil
			},
			run:  func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return b.apply(x[0], x[1]) },
			text: expr(func(in Instr, a []string) string { return a[0] + "." + b.name + "(" + a[1] + ")" }),
		})
	}
	for _, c := range scalars {
		c := c
		on := func(f *Features) bool { return f.Scalar }
		if c.cmp {
			on = func(f *Features) bool { return f.Compare }
		}
		define(&opSpec{
			name: c.name, on: on, weight: 4,
			gen: func(g *gen) (Instr, bool) {
				x, ok := g.pick(func(s lazy.Shape) bool { return c.dts(s.DType) })
				return Instr{Op: c.name, In: []int{x}, F: []float64{c.vals[g.r.IntN(len(c.vals))]}}, ok
			},
			infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
				if !c.dts(s[0].DType) {
					return lazy.Shape{}, fmt.Errorf("%s takes no %s", c.name, s[0].DType)
				}
				if c.cmp {
					return shp(lazy.Bool, s[0].Dims...), nil
				}
				return shp(scalarResult(c.name, s[0].DType, in.F[0]), s[0].Dims...), nil
			},
			run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return c.apply(x[0], in.F[0]) },
			text: expr(func(in Instr, a []string) string {
				return a[0] + "." + c.name + "(" + fnum(in.F[0]) + ")"
			}),
		})
	}
	define(&opSpec{
		name: "Clamp", on: func(f *Features) bool { return f.Scalar }, weight: 3,
		gen: func(g *gen) (Instr, bool) {
			x, ok := g.pick(func(s lazy.Shape) bool { return isNumeric(s.DType) })
			lo := []float64{-1, 0, -0.5}[g.r.IntN(3)]
			return Instr{Op: "Clamp", In: []int{x}, F: []float64{lo, lo + []float64{1, 2, 0.75}[g.r.IntN(3)]}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if !isNumeric(s[0].DType) {
				return lazy.Shape{}, fmt.Errorf("Clamp of bool")
			}
			dt := s[0].DType
			if isInt(dt) && (!integral(in.F[0]) || !integral(in.F[1])) {
				dt = lazy.F32
			}
			return shp(dt, s[0].Dims...), nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return x[0].Clamp(in.F[0], in.F[1]) },
		text: expr(func(in Instr, a []string) string {
			return fmt.Sprintf("%s.Clamp(%s, %s)", a[0], fnum(in.F[0]), fnum(in.F[1]))
		}),
	})
	define(&opSpec{
		name: "Where", on: func(f *Features) bool { return f.Compare }, weight: 5,
		gen: func(g *gen) (Instr, bool) {
			c, ok := g.pick(func(s lazy.Shape) bool { return s.DType == lazy.Bool })
			if !ok {
				return Instr{}, false
			}
			a, ok := g.pickCompatible(c, anyDType)
			if !ok {
				return Instr{}, false
			}
			b, ok := g.pickCompatible(a)
			return Instr{Op: "Where", In: []int{c, a, b}}, ok
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if s[0].DType != lazy.Bool || s[1].DType != s[2].DType {
				return lazy.Shape{}, fmt.Errorf("Where(%s, %s, %s)", s[0].DType, s[1].DType, s[2].DType)
			}
			d, err := bcastDims(s[1].Dims, s[2].Dims)
			if err != nil {
				return lazy.Shape{}, err
			}
			d, err = bcastDims(s[0].Dims, d)
			return shp(s[1].DType, d...), err
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { return lazy.Where(x[0], x[1], x[2]) },
		text: expr(func(in Instr, a []string) string {
			return "lazy.Where(" + strings.Join(a, ", ") + ")"
		}),
	})
}
