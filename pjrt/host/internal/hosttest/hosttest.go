package hosttest

import (
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Test-only ops, so that these tests do not depend on the elementwise
// family: test.const {value}, test.add (integers, any shape), test.lt
// (integer scalars -> i1).
func init() {
	kernel.Register(
		kernel.Entry{Name: "test.const", Compile: func(c *kernel.OpCtx) (kernel.RunFn, error) {
			d := c.Op.Attr("value").(*hlo.DenseElementsAttr)
			return func(x *kernel.Ctx, args, results []kernel.Value) error {
				results[0] = d.Value
				return nil
			}, nil
		}},
		kernel.Entry{Name: "test.add", Fresh: true, Compile: func(c *kernel.OpCtx) (kernel.RunFn, error) {
			return func(x *kernel.Ctx, args, results []kernel.Value) error {
				a, b := args[0].(*hlo.Literal), args[1].(*hlo.Literal)
				r := hlo.NewLiteral(a.DType, a.Dims...)
				for i := 0; i < r.NumElements(); i++ {
					r.SetInt(i, a.Int(i)+b.Int(i))
				}
				results[0] = r
				return nil
			}, nil
		}},
		kernel.Entry{Name: "test.lt", Fresh: true, Compile: func(c *kernel.OpCtx) (kernel.RunFn, error) {
			return func(x *kernel.Ctx, args, results []kernel.Value) error {
				a, b := args[0].(*hlo.Literal), args[1].(*hlo.Literal)
				r := hlo.NewLiteral(hlo.Bool)
				if a.Int(0) < b.Int(0) {
					r.Data[0] = 1
				}
				results[0] = r
				return nil
			}, nil
		}},
	)
}

// TT is a static tensor type.
func TT(dt hlo.DType, dims ...int64) *hlo.TensorType { return hlo.NewTensorType(dt, dims...) }

// Common types: i64 and i1 scalars, the token.
var (
	I64  = TT(hlo.I64)
	I1   = TT(hlo.Bool)
	Tok  = &hlo.TokenType{}
	line = 0
)

// Blk builds one block.
type Blk struct{ B *hlo.Block }

// NewBlk starts a block with arguments of the given types.
func NewBlk(args ...hlo.Type) *Blk {
	b := &hlo.Block{}
	for i, t := range args {
		b.Args = append(b.Args, &hlo.Value{Type: t, Index: i})
	}
	return &Blk{b}
}

// Arg is block argument i.
func (k *Blk) Arg(i int) *hlo.Value { return k.B.Args[i] }

// Op appends an op with a fresh source line, so errors name a location.
func (k *Blk) Op(name string, operands []*hlo.Value, results []hlo.Type, attrs ...hlo.NamedAttr) *hlo.Op {
	o := hlo.NewOp(name, operands, results, attrs...)
	line++
	o.Loc = hlo.Loc{File: "test.mlir", Line: line, Col: 3}
	k.B.Ops = append(k.B.Ops, o)
	return o
}

// V appends an op with one result and returns it.
func (k *Blk) V(name string, operands []*hlo.Value, result hlo.Type, attrs ...hlo.NamedAttr) *hlo.Value {
	return k.Op(name, operands, []hlo.Type{result}, attrs...).Results[0]
}

// Cnst appends a test.const of l.
func (k *Blk) Cnst(l *hlo.Literal) *hlo.Value {
	return k.V("test.const", nil, l.Type(), Attr("value", &hlo.DenseElementsAttr{Type: l.Type(), Value: l}))
}

// Ret appends the terminator name of vals.
func (k *Blk) Ret(name string, vals ...*hlo.Value) { k.Op(name, vals, nil) }

// Region is a region of the block.
func (k *Blk) Region() *hlo.Region { return &hlo.Region{Blocks: []*hlo.Block{k.B}} }

// Attr names an attribute.
func Attr(name string, a hlo.Attr) hlo.NamedAttr { return hlo.NamedAttr{Name: name, Value: a} }

// Ints is an i64 vector.
func Ints(xs ...int64) *hlo.Literal { return hlo.LiteralFromSlice(xs) }

// Scalar is an i64 scalar.
func Scalar(v int64) *hlo.Literal {
	l := hlo.NewLiteral(hlo.I64)
	l.SetInt(0, v)
	return l
}

// Dense is l as a dense attribute.
func Dense(l *hlo.Literal) *hlo.DenseElementsAttr {
	return &hlo.DenseElementsAttr{Type: l.Type(), Value: l}
}

// Groups is a replica_groups attribute of equal-sized rows.
func Groups(rows ...[]int64) *hlo.DenseElementsAttr {
	var flat []int64
	for _, r := range rows {
		flat = append(flat, r...)
	}
	return Dense(hlo.LiteralFromSlice(flat, int64(len(rows)), int64(len(rows[0]))))
}

// Fn makes a function from a block whose last op is the func.return.
func Fn(name string, k *Blk) *hlo.Func {
	f := &hlo.Func{Name: name, Args: k.B.Args, Body: k.Region()}
	ret := k.B.Ops[len(k.B.Ops)-1]
	for _, v := range ret.Operands {
		f.ResultTypes = append(f.ResultTypes, v.Type)
	}
	return f
}

// Module is a module of the functions.
func Module(fs ...*hlo.Func) *hlo.Module { return &hlo.Module{Name: "test", Funcs: fs} }

// Run compiles m and runs its entry with a check log.
func Run(t *testing.T, m *hlo.Module, args ...kernel.Value) ([]kernel.Value, *kernel.CheckLog) {
	t.Helper()
	p, err := host.Compile(m)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	log := &kernel.CheckLog{}
	res, err := p.Run(&kernel.Ctx{NumReplicas: 1, NumPartitions: 1, Checks: log}, args)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res, log
}

// WantInts fails t unless v is an integer tensor holding want.
func WantInts(t *testing.T, v kernel.Value, want ...int64) {
	t.Helper()
	l, ok := v.(*hlo.Literal)
	if !ok {
		t.Fatalf("got %T, want a tensor", v)
	}
	if l.NumElements() != len(want) {
		t.Fatalf("got %s, want %v", l, want)
	}
	for i, w := range want {
		if l.Int(i) != w {
			t.Fatalf("got %s, want %v", l, want)
		}
	}
}

// WantChecks fails t unless log counted passed and failed checks.
func WantChecks(t *testing.T, log *kernel.CheckLog, passed, failed int) {
	t.Helper()
	if log.Passed != passed || len(log.Failed) != failed {
		t.Fatalf("checks: %d passed, %d failed %q; want %d passed, %d failed", log.Passed, len(log.Failed), log.Failed, passed, failed)
	}
}

// Sym is a symbol reference.
func Sym(name string) hlo.SymbolRefAttr { return hlo.SymbolRefAttr{Name: name} }

// Syms is a list of lists of symbol references.
func Syms(rows ...[]string) hlo.ArrayAttr {
	var out hlo.ArrayAttr
	for _, r := range rows {
		var row hlo.ArrayAttr
		for _, n := range r {
			row = append(row, Sym(n))
		}
		out = append(out, row)
	}
	return out
}

// Must fails t on err.
func Must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
