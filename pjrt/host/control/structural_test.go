package control_test

import (
	. "github.com/xlajit/xlajit/pjrt/host/internal/hosttest"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// whileSum builds: i, s = 0, 0; while i < n { s += i; i += 1 }; return s.
func whileSum() *hlo.Module {
	k := NewBlk(I64)
	zero := k.Cnst(Scalar(0))
	one := k.Cnst(Scalar(1))
	cond := NewBlk(I64, I64)
	cond.Ret("stablehlo.return", cond.V("test.lt", []*hlo.Value{cond.Arg(0), k.Arg(0)}, I1))
	body := NewBlk(I64, I64)
	body.Ret("stablehlo.return",
		body.V("test.add", []*hlo.Value{body.Arg(0), one}, I64),
		body.V("test.add", []*hlo.Value{body.Arg(1), body.Arg(0)}, I64))
	w := k.Op("stablehlo.while", []*hlo.Value{zero, zero}, []hlo.Type{I64, I64})
	w.Regions = []*hlo.Region{cond.Region(), body.Region()}
	k.Ret("func.return", w.Results[1])
	return Module(Fn("main", k))
}

func TestWhile(t *testing.T) {
	m := whileSum()
	for n, want := range map[int64]int64{0: 0, 1: 0, 10: 45, 100: 4950} {
		res, _ := Run(t, m, Scalar(n))
		WantInts(t, res[0], want)
	}
}

func TestWhileCanceled(t *testing.T) {
	p, err := host.Compile(whileSum())
	Must(t, err)
	stop := make(chan struct{})
	close(stop)
	_, err = p.Run(&kernel.Ctx{Cancel: stop}, []kernel.Value{Scalar(1 << 40)})
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("err = %v, want canceled", err)
	}
}

func TestIfAndCase(t *testing.T) {
	// if: pred ? a : b, where the branches read enclosing values.
	k := NewBlk(I1, I64, I64)
	tb, fb := NewBlk(), NewBlk()
	tb.Ret("stablehlo.return", k.Arg(1))
	fb.Ret("stablehlo.return", fb.V("test.add", []*hlo.Value{k.Arg(2), k.Arg(2)}, I64))
	o := k.Op("stablehlo.if", []*hlo.Value{k.Arg(0)}, []hlo.Type{I64})
	o.Regions = []*hlo.Region{tb.Region(), fb.Region()}
	k.Ret("func.return", o.Results[0])
	m := Module(Fn("main", k))
	tr, fa := hlo.NewLiteral(hlo.Bool), hlo.NewLiteral(hlo.Bool)
	tr.Data[0] = 1
	res, _ := Run(t, m, tr, Scalar(7), Scalar(5))
	WantInts(t, res[0], 7)
	res, _ = Run(t, m, fa, Scalar(7), Scalar(5))
	WantInts(t, res[0], 10)

	// case: branch i returns 10*i; out-of-range indices take the last.
	k = NewBlk(TT(hlo.I32))
	c := k.Op("stablehlo.case", []*hlo.Value{k.Arg(0)}, []hlo.Type{I64})
	for i := int64(0); i < 3; i++ {
		b := NewBlk()
		b.Ret("stablehlo.return", b.Cnst(Scalar(10*i)))
		c.Regions = append(c.Regions, b.Region())
	}
	k.Ret("func.return", c.Results[0])
	m = Module(Fn("main", k))
	for idx, want := range map[int32]int64{0: 0, 1: 10, 2: 20, 3: 20, -1: 20} {
		l := hlo.NewLiteral(hlo.I32)
		l.SetInt(0, int64(idx))
		res, _ := Run(t, m, l)
		WantInts(t, res[0], want)
	}
}

func TestCallCompositeTupleBarrierToken(t *testing.T) {
	inc := NewBlk(I64)
	inc.Ret("func.return", inc.V("test.add", []*hlo.Value{inc.Arg(0), inc.Cnst(Scalar(2))}, I64))

	k := NewBlk(I64)
	call := k.V("func.call", []*hlo.Value{k.Arg(0)}, I64, Attr("callee", Sym("add2")))
	comp := k.V("stablehlo.composite", []*hlo.Value{call}, I64,
		Attr("name", hlo.StringAttr("test.add_n")), Attr("decomposition", Sym("add2")))
	tup := k.V("stablehlo.tuple", []*hlo.Value{comp, k.Arg(0)}, &hlo.TupleType{Elems: []hlo.Type{I64, I64}})
	g0 := k.V("stablehlo.get_tuple_element", []*hlo.Value{tup}, I64, Attr("index", hlo.IntAttr{Value: 0}))
	g1 := k.V("stablehlo.get_tuple_element", []*hlo.Value{tup}, I64, Attr("index", hlo.IntAttr{Value: 1}))
	bar := k.Op("stablehlo.optimization_barrier", []*hlo.Value{g0, g1}, []hlo.Type{I64, I64})
	t0 := k.V("stablehlo.create_token", nil, Tok)
	t1 := k.V("stablehlo.after_all", []*hlo.Value{t0, t0}, Tok)
	k.Ret("func.return", bar.Results[0], bar.Results[1], t1)
	res, _ := Run(t, Module(Fn("main", k), Fn("add2", inc)), Scalar(1))
	WantInts(t, res[0], 5)
	WantInts(t, res[1], 1)
	if _, ok := res[2].(kernel.Token); !ok {
		t.Fatalf("result 2 is %T, want a token", res[2])
	}
}

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		build func(k *Blk)
		want  string
	}{
		{func(k *Blk) {
			k.Op("stablehlo.custom_call", []*hlo.Value{k.Arg(0)}, nil, Attr("call_target_name", hlo.StringAttr("foo.bar")))
		}, `unsupported custom_call target "foo.bar"`},
		{func(k *Blk) {
			k.Op("check.expect_serialized_eq", []*hlo.Value{k.Arg(0)}, nil, Attr("iteration", hlo.IntAttr{Value: 0}))
		}, "check.expect_serialized_eq: missing string attribute probe_id"},
		{func(k *Blk) { k.V("interpreter.probe", []*hlo.Value{k.Arg(0)}, I64) }, "interpreter.probe: missing string attribute probe_id"},
		{func(k *Blk) { k.V("func.call", []*hlo.Value{k.Arg(0)}, I64, Attr("callee", Sym("nope"))) }, "callee @nope is not a function of this module"},
	}
	for _, c := range cases {
		k := NewBlk(I64)
		c.build(k)
		k.Ret("func.return")
		_, err := host.Compile(Module(Fn("main", k)))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "test.mlir:") {
			t.Errorf("err = %v, want one naming %q and a location", err, c.want)
		}
	}
}
