package movement

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The unit tests drive each kernel directly: build one op with
// hand-made hlo values, compile it through the kernel table with a test
// region compiler, run it, and compare against a naive evaluation written
// here from the spec's index formulas.

func tt(dt hlo.DType, dims ...int64) *hlo.TensorType { return hlo.NewTensorType(dt, dims...) }

func val(t hlo.Type) *hlo.Value { return &hlo.Value{Type: t} }

// mkOp builds op name over operands of the given types.
func mkOp(name string, in []hlo.Type, out []hlo.Type, attrs ...hlo.NamedAttr) *hlo.Op {
	vals := make([]*hlo.Value, len(in))
	for i, t := range in {
		vals[i] = val(t)
	}
	return hlo.NewOp(name, vals, out, attrs...)
}

func ints(xs ...int64) hlo.Attr { return &hlo.DenseArrayAttr{DType: hlo.I64, Ints: xs} }

func attr(name string, a hlo.Attr) hlo.NamedAttr { return hlo.NamedAttr{Name: name, Value: a} }

// compile compiles op through the kernel table.
func compile(op *hlo.Op) (kernel.RunFn, error) {
	e := kernel.Lookup(op.Name)
	if e == nil {
		return nil, fmt.Errorf("no kernel for %s", op.Name)
	}
	oc := &kernel.OpCtx{Op: op, Compiler: testCompiler{}}
	for _, v := range op.Operands {
		oc.In = append(oc.In, v.Type)
	}
	for _, r := range op.Results {
		oc.Out = append(oc.Out, r.Type)
	}
	return e.Compile(oc)
}

// run compiles and runs op on args.
func run(t testing.TB, op *hlo.Op, args ...*hlo.Literal) []*hlo.Literal {
	t.Helper()
	out, err := tryRun(op, args...)
	if err != nil {
		t.Fatalf("%s: %v", op.Name, err)
	}
	return out
}

func tryRun(op *hlo.Op, args ...*hlo.Literal) ([]*hlo.Literal, error) {
	fn, err := compile(op)
	if err != nil {
		return nil, err
	}
	in := make([]kernel.Value, len(args))
	for i, a := range args {
		in[i] = a
	}
	res := make([]kernel.Value, len(op.Results))
	// Offer garbage-filled storage of each static result size, so that a
	// kernel that leaves an element unwritten is caught.
	pool := &kernel.Pool{}
	for _, r := range op.Results {
		if t := r.TensorType(); t != nil && t.IsStatic() {
			g := hlo.NewLiteral(t.DType, t.Dims...)
			for i := range g.Data {
				g.Data[i] = 0xA5
			}
			pool.Put(g)
		}
	}
	if err := fn(&kernel.Ctx{NumReplicas: 1, NumPartitions: 1, Pool: pool}, in, res); err != nil {
		return nil, err
	}
	out := make([]*hlo.Literal, len(res))
	for i, r := range res {
		out[i] = r.(*hlo.Literal)
	}
	return out, nil
}

// testCompiler evaluates region bodies with a tiny scalar interpreter of
// its own, so that these tests do not depend on the elementwise family.
type testCompiler struct{}

func (testCompiler) CompileRegion(r *hlo.Region) (kernel.Subplan, error) {
	return &scalarPlan{b: r.Blocks[0]}, nil
}

func (testCompiler) CompileFunc(string) (kernel.Subplan, error) {
	return nil, fmt.Errorf("no functions in unit tests")
}

type scalarPlan struct{ b *hlo.Block }

func (p *scalarPlan) NumResults() int { return len(p.b.Ops[len(p.b.Ops)-1].Operands) }

func (p *scalarPlan) Run(x *kernel.Ctx, args []kernel.Value) ([]kernel.Value, error) {
	env := map[*hlo.Value]*hlo.Literal{}
	for i, a := range p.b.Args {
		env[a] = args[i].(*hlo.Literal)
	}
	for _, op := range p.b.Ops {
		ins := make([]*hlo.Literal, len(op.Operands))
		for i, v := range op.Operands {
			ins[i] = env[v]
		}
		if op.Name == "stablehlo.return" {
			out := make([]kernel.Value, len(ins))
			for i, l := range ins {
				out[i] = l
			}
			return out, nil
		}
		r, err := evalScalar(op, ins)
		if err != nil {
			return nil, err
		}
		env[op.Results[0]] = r
	}
	return nil, fmt.Errorf("block without return")
}

func evalScalar(op *hlo.Op, in []*hlo.Literal) (*hlo.Literal, error) {
	rt := op.Results[0].TensorType().DType
	out := hlo.NewLiteral(rt)
	switch op.Name {
	case "stablehlo.constant":
		return op.Attr("value").(*hlo.DenseElementsAttr).Value, nil
	case "stablehlo.select":
		if in[0].Data[0] != 0 {
			return in[1], nil
		}
		return in[2], nil
	case "stablehlo.compare":
		dir, _ := hlo.AttrEnum(op.Attr("comparison_direction"))
		var lt, eq bool
		typ, _ := hlo.AttrEnum(op.Attr("compare_type"))
		if typ == "TOTALORDER" {
			ka, kb := totalKey64(math.Float64bits(in[0].Float(0))), totalKey64(math.Float64bits(in[1].Float(0)))
			lt, eq = ka < kb, ka == kb
		} else if in[0].DType.IsFloat() {
			a, b := in[0].Float(0), in[1].Float(0)
			lt, eq = a < b, a == b
			if math.IsNaN(a) || math.IsNaN(b) {
				out.Data[0] = boolByte(dir == "NE")
				return out, nil
			}
		} else if in[0].DType.IsUnsigned() || in[0].DType.IsBool() {
			a, b := in[0].Uint(0), in[1].Uint(0)
			lt, eq = a < b, a == b
		} else {
			a, b := in[0].Int(0), in[1].Int(0)
			lt, eq = a < b, a == b
		}
		var r bool
		switch dir {
		case "LT":
			r = lt
		case "LE":
			r = lt || eq
		case "GT":
			r = !lt && !eq
		case "GE":
			r = !lt
		case "EQ":
			r = eq
		case "NE":
			r = !eq
		}
		out.Data[0] = boolByte(r)
		return out, nil
	}
	switch op.Name {
	case "stablehlo.not":
		if rt.IsBool() {
			out.Data[0] = in[0].Data[0] ^ 1
		} else {
			out.SetInt(0, ^in[0].Int(0))
		}
		return out, nil
	case "stablehlo.negate":
		if rt.IsFloat() {
			out.SetFloat(0, -in[0].Float(0))
		} else {
			out.SetInt(0, -in[0].Int(0))
		}
		return out, nil
	}
	a, b := in[0], in[1]
	switch {
	case rt.IsFloat():
		x, y := a.Float(0), b.Float(0)
		var r float64
		switch op.Name {
		case "stablehlo.add":
			r = x + y
		case "stablehlo.subtract":
			r = x - y
		case "stablehlo.multiply":
			r = x * y
		case "stablehlo.maximum":
			r = max(x, y) // IEEE maximum: NaN wins (math.Max lets +Inf win)
		case "stablehlo.minimum":
			r = min(x, y)
		default:
			return nil, fmt.Errorf("test interpreter: %s", op.Name)
		}
		out.SetFloat(0, r)
	case rt.IsComplex():
		x, y := a.Complex(0), b.Complex(0)
		switch op.Name {
		case "stablehlo.add":
			out.SetComplex(0, x+y)
		case "stablehlo.multiply":
			out.SetComplex(0, x*y)
		default:
			return nil, fmt.Errorf("test interpreter: %s", op.Name)
		}
	default:
		x, y := a.Int(0), b.Int(0)
		var r int64
		switch op.Name {
		case "stablehlo.add":
			r = x + y
		case "stablehlo.subtract":
			r = x - y
		case "stablehlo.multiply":
			r = x * y
		case "stablehlo.maximum":
			r = max(x, y)
			if rt.IsUnsigned() {
				r = int64(max(a.Uint(0), b.Uint(0)))
			}
		case "stablehlo.minimum":
			r = min(x, y)
			if rt.IsUnsigned() {
				r = int64(min(a.Uint(0), b.Uint(0)))
			}
		case "stablehlo.and":
			r = x & y
		case "stablehlo.or":
			r = x | y
		case "stablehlo.xor":
			r = x ^ y
		default:
			return nil, fmt.Errorf("test interpreter: %s", op.Name)
		}
		out.SetInt(0, r)
	}
	return out, nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// bodyBuilder builds a one-block region with scalar arguments.
type bodyBuilder struct {
	blk *hlo.Block
}

func newBody(dts ...hlo.DType) *bodyBuilder {
	b := &bodyBuilder{blk: &hlo.Block{}}
	for i, dt := range dts {
		b.blk.Args = append(b.blk.Args, &hlo.Value{Type: tt(dt), Index: i})
	}
	return b
}

func (b *bodyBuilder) arg(i int) *hlo.Value { return b.blk.Args[i] }

func (b *bodyBuilder) op(name string, rt hlo.DType, operands []*hlo.Value, attrs ...hlo.NamedAttr) *hlo.Value {
	op := hlo.NewOp(name, operands, []hlo.Type{tt(rt)}, attrs...)
	b.blk.Ops = append(b.blk.Ops, op)
	return op.Results[0]
}

func (b *bodyBuilder) cmp(dir string, x, y *hlo.Value) *hlo.Value {
	return b.op("stablehlo.compare", hlo.Bool, []*hlo.Value{x, y},
		attr("comparison_direction", hlo.EnumAttr{Dialect: "stablehlo", Kind: "comparison_direction", Value: dir}))
}

func (b *bodyBuilder) constant(dt hlo.DType, v float64) *hlo.Value {
	l := hlo.ScalarLiteral(dt, v)
	return b.op("stablehlo.constant", dt, nil, attr("value", &hlo.DenseElementsAttr{Type: tt(dt), Value: l}))
}

func (b *bodyBuilder) ret(vs ...*hlo.Value) *hlo.Region {
	b.blk.Ops = append(b.blk.Ops, hlo.NewOp("stablehlo.return", vs, nil))
	return &hlo.Region{Blocks: []*hlo.Block{b.blk}}
}

// binRegion is `return name(arg0, arg1)`.
func binRegion(name string, dt hlo.DType) *hlo.Region {
	b := newBody(dt, dt)
	return b.ret(b.op(name, dt, []*hlo.Value{b.arg(0), b.arg(1)}))
}

// slowRegion computes name(arg0, arg1) through a detour (x*1 + 0 shapes
// aside) so that the fast path does not recognise it.
func slowRegion(name string, dt hlo.DType) *hlo.Region {
	b := newBody(dt, dt)
	r := b.op(name, dt, []*hlo.Value{b.arg(0), b.arg(1)})
	one := b.constant(dt, 1)
	return b.ret(b.op("stablehlo.multiply", dt, []*hlo.Value{r, one}))
}

// ---- data ----

func randLit(r *rand.Rand, dt hlo.DType, dims ...int64) *hlo.Literal {
	l := hlo.NewLiteral(dt, dims...)
	for i := 0; i < l.NumElements(); i++ {
		switch {
		case dt.IsBool():
			l.SetInt(i, int64(r.IntN(2)))
		case dt.IsInt():
			l.SetInt(i, int64(r.IntN(200)-100))
		case dt.IsComplex():
			l.SetComplex(i, complex(float64(r.IntN(64)-32)/4, float64(r.IntN(64)-32)/4))
		default:
			l.SetFloat(i, float64(r.IntN(256)-128)/8)
		}
	}
	return l
}

func iotaLit(dt hlo.DType, dims ...int64) *hlo.Literal {
	l := hlo.NewLiteral(dt, dims...)
	for i := 0; i < l.NumElements(); i++ {
		l.SetInt(i, int64(i))
	}
	return l
}

func unravel(i int, dims []int64) []int64 {
	idx := make([]int64, len(dims))
	for d := len(dims) - 1; d >= 0; d-- {
		idx[d] = int64(i) % dims[d]
		i /= int(dims[d])
	}
	return idx
}

func ravel(idx, dims []int64) int {
	o := 0
	for d := range dims {
		o = o*int(dims[d]) + int(idx[d])
	}
	return o
}

func inBounds(idx, dims []int64) bool {
	for d := range dims {
		if idx[d] < 0 || idx[d] >= dims[d] {
			return false
		}
	}
	return true
}

// elem returns element i's bytes.
func elem(l *hlo.Literal, i int) []byte {
	es := l.DType.Size()
	return l.Data[i*es : i*es+es]
}

func setElem(l *hlo.Literal, i int, b []byte) { copy(elem(l, i), b) }

func sameLit(t *testing.T, what string, got, want *hlo.Literal) {
	t.Helper()
	if !got.Equal(want) {
		t.Fatalf("%s:\n got  %v\n want %v", what, got, want)
	}
}

var allTypes = []hlo.DType{hlo.Bool, hlo.I4, hlo.I8, hlo.U16, hlo.F16, hlo.BF16, hlo.F32, hlo.I64, hlo.F64, hlo.C64, hlo.C128, hlo.F8E4M3FN}
