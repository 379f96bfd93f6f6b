package control_test

import (
	"fmt"
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

func tt(dt hlo.DType, dims ...int64) *hlo.TensorType { return hlo.NewTensorType(dt, dims...) }

var (
	i64  = tt(hlo.I64)
	i1   = tt(hlo.Bool)
	tok  = &hlo.TokenType{}
	line = 0
)

// blk builds one block.
type blk struct{ b *hlo.Block }

func newBlk(args ...hlo.Type) *blk {
	b := &hlo.Block{}
	for i, t := range args {
		b.Args = append(b.Args, &hlo.Value{Type: t, Index: i})
	}
	return &blk{b}
}

func (k *blk) arg(i int) *hlo.Value { return k.b.Args[i] }

// op appends an op with a fresh source line, so errors name a location.
func (k *blk) op(name string, operands []*hlo.Value, results []hlo.Type, attrs ...hlo.NamedAttr) *hlo.Op {
	o := hlo.NewOp(name, operands, results, attrs...)
	line++
	o.Loc = hlo.Loc{File: "test.mlir", Line: line, Col: 3}
	k.b.Ops = append(k.b.Ops, o)
	return o
}

func (k *blk) v(name string, operands []*hlo.Value, result hlo.Type, attrs ...hlo.NamedAttr) *hlo.Value {
	return k.op(name, operands, []hlo.Type{result}, attrs...).Results[0]
}

func (k *blk) cnst(l *hlo.Literal) *hlo.Value {
	return k.v("test.const", nil, l.Type(), attr("value", &hlo.DenseElementsAttr{Type: l.Type(), Value: l}))
}

func (k *blk) ret(name string, vals ...*hlo.Value) { k.op(name, vals, nil) }

func (k *blk) region() *hlo.Region { return &hlo.Region{Blocks: []*hlo.Block{k.b}} }

func attr(name string, a hlo.Attr) hlo.NamedAttr { return hlo.NamedAttr{Name: name, Value: a} }

func ints(xs ...int64) *hlo.Literal { return hlo.LiteralFromSlice(xs) }

func scalar(v int64) *hlo.Literal {
	l := hlo.NewLiteral(hlo.I64)
	l.SetInt(0, v)
	return l
}

func dense(l *hlo.Literal) *hlo.DenseElementsAttr {
	return &hlo.DenseElementsAttr{Type: l.Type(), Value: l}
}

func groups(rows ...[]int64) *hlo.DenseElementsAttr {
	var flat []int64
	for _, r := range rows {
		flat = append(flat, r...)
	}
	return dense(hlo.LiteralFromSlice(flat, int64(len(rows)), int64(len(rows[0]))))
}

// fn makes a function from a block whose last op is the func.return.
func fn(name string, k *blk) *hlo.Func {
	f := &hlo.Func{Name: name, Args: k.b.Args, Body: k.region()}
	ret := k.b.Ops[len(k.b.Ops)-1]
	for _, v := range ret.Operands {
		f.ResultTypes = append(f.ResultTypes, v.Type)
	}
	return f
}

func module(fs ...*hlo.Func) *hlo.Module { return &hlo.Module{Name: "test", Funcs: fs} }

// run compiles m and runs its entry with a check log.
func run(t *testing.T, m *hlo.Module, args ...kernel.Value) ([]kernel.Value, *kernel.CheckLog) {
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

func wantInts(t *testing.T, v kernel.Value, want ...int64) {
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

func wantChecks(t *testing.T, log *kernel.CheckLog, passed, failed int) {
	t.Helper()
	if log.Passed != passed || len(log.Failed) != failed {
		t.Fatalf("checks: %d passed, %d failed %q; want %d passed, %d failed", log.Passed, len(log.Failed), log.Failed, passed, failed)
	}
}

func sym(name string) hlo.SymbolRefAttr { return hlo.SymbolRefAttr{Name: name} }

func syms(rows ...[]string) hlo.ArrayAttr {
	var out hlo.ArrayAttr
	for _, r := range rows {
		var row hlo.ArrayAttr
		for _, n := range r {
			row = append(row, sym(n))
		}
		out = append(out, row)
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var _ = fmt.Sprint
