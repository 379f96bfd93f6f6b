package control_test

import (
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// whileSum builds: i, s = 0, 0; while i < n { s += i; i += 1 }; return s.
func whileSum() *hlo.Module {
	k := newBlk(i64)
	zero := k.cnst(scalar(0))
	one := k.cnst(scalar(1))
	cond := newBlk(i64, i64)
	cond.ret("stablehlo.return", cond.v("test.lt", []*hlo.Value{cond.arg(0), k.arg(0)}, i1))
	body := newBlk(i64, i64)
	body.ret("stablehlo.return",
		body.v("test.add", []*hlo.Value{body.arg(0), one}, i64),
		body.v("test.add", []*hlo.Value{body.arg(1), body.arg(0)}, i64))
	w := k.op("stablehlo.while", []*hlo.Value{zero, zero}, []hlo.Type{i64, i64})
	w.Regions = []*hlo.Region{cond.region(), body.region()}
	k.ret("func.return", w.Results[1])
	return module(fn("main", k))
}

func TestWhile(t *testing.T) {
	m := whileSum()
	for n, want := range map[int64]int64{0: 0, 1: 0, 10: 45, 100: 4950} {
		res, _ := run(t, m, scalar(n))
		wantInts(t, res[0], want)
	}
}

func TestWhileCanceled(t *testing.T) {
	p, err := host.Compile(whileSum())
	must(t, err)
	stop := make(chan struct{})
	close(stop)
	_, err = p.Run(&kernel.Ctx{Cancel: stop}, []kernel.Value{scalar(1 << 40)})
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("err = %v, want canceled", err)
	}
}

func TestIfAndCase(t *testing.T) {
	// if: pred ? a : b, where the branches read enclosing values.
	k := newBlk(i1, i64, i64)
	tb, fb := newBlk(), newBlk()
	tb.ret("stablehlo.return", k.arg(1))
	fb.ret("stablehlo.return", fb.v("test.add", []*hlo.Value{k.arg(2), k.arg(2)}, i64))
	o := k.op("stablehlo.if", []*hlo.Value{k.arg(0)}, []hlo.Type{i64})
	o.Regions = []*hlo.Region{tb.region(), fb.region()}
	k.ret("func.return", o.Results[0])
	m := module(fn("main", k))
	tr, fa := hlo.NewLiteral(hlo.Bool), hlo.NewLiteral(hlo.Bool)
	tr.Data[0] = 1
	res, _ := run(t, m, tr, scalar(7), scalar(5))
	wantInts(t, res[0], 7)
	res, _ = run(t, m, fa, scalar(7), scalar(5))
	wantInts(t, res[0], 10)

	// case: branch i returns 10*i; out-of-range indices take the last.
	k = newBlk(tt(hlo.I32))
	c := k.op("stablehlo.case", []*hlo.Value{k.arg(0)}, []hlo.Type{i64})
	for i := int64(0); i < 3; i++ {
		b := newBlk()
		b.ret("stablehlo.return", b.cnst(scalar(10*i)))
		c.Regions = append(c.Regions, b.region())
	}
	k.ret("func.return", c.Results[0])
	m = module(fn("main", k))
	for idx, want := range map[int32]int64{0: 0, 1: 10, 2: 20, 3: 20, -1: 20} {
		l := hlo.NewLiteral(hlo.I32)
		l.SetInt(0, int64(idx))
		res, _ := run(t, m, l)
		wantInts(t, res[0], want)
	}
}

func TestCallCompositeTupleBarrierToken(t *testing.T) {
	inc := newBlk(i64)
	inc.ret("func.return", inc.v("test.add", []*hlo.Value{inc.arg(0), inc.cnst(scalar(2))}, i64))

	k := newBlk(i64)
	call := k.v("func.call", []*hlo.Value{k.arg(0)}, i64, attr("callee", sym("add2")))
	comp := k.v("stablehlo.composite", []*hlo.Value{call}, i64,
		attr("name", hlo.StringAttr("test.add_n")), attr("decomposition", sym("add2")))
	tup := k.v("stablehlo.tuple", []*hlo.Value{comp, k.arg(0)}, &hlo.TupleType{Elems: []hlo.Type{i64, i64}})
	g0 := k.v("stablehlo.get_tuple_element", []*hlo.Value{tup}, i64, attr("index", hlo.IntAttr{Value: 0}))
	g1 := k.v("stablehlo.get_tuple_element", []*hlo.Value{tup}, i64, attr("index", hlo.IntAttr{Value: 1}))
	bar := k.op("stablehlo.optimization_barrier", []*hlo.Value{g0, g1}, []hlo.Type{i64, i64})
	t0 := k.v("stablehlo.create_token", nil, tok)
	t1 := k.v("stablehlo.after_all", []*hlo.Value{t0, t0}, tok)
	k.ret("func.return", bar.Results[0], bar.Results[1], t1)
	res, _ := run(t, module(fn("main", k), fn("add2", inc)), scalar(1))
	wantInts(t, res[0], 5)
	wantInts(t, res[1], 1)
	if _, ok := res[2].(kernel.Token); !ok {
		t.Fatalf("result 2 is %T, want a token", res[2])
	}
}

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		build func(k *blk)
		want  string
	}{
		{func(k *blk) {
			k.op("stablehlo.custom_call", []*hlo.Value{k.arg(0)}, nil, attr("call_target_name", hlo.StringAttr("foo.bar")))
		}, `unsupported custom_call target "foo.bar"`},
		{func(k *blk) {
			k.op("check.expect_serialized_eq", []*hlo.Value{k.arg(0)}, nil, attr("iteration", hlo.IntAttr{Value: 0}))
		}, "check.expect_serialized_eq: missing string attribute probe_id"},
		{func(k *blk) { k.v("interpreter.probe", []*hlo.Value{k.arg(0)}, i64) }, "interpreter.probe: missing string attribute probe_id"},
		{func(k *blk) { k.v("func.call", []*hlo.Value{k.arg(0)}, i64, attr("callee", sym("nope"))) }, "callee @nope is not a function of this module"},
	}
	for _, c := range cases {
		k := newBlk(i64)
		c.build(k)
		k.ret("func.return")
		_, err := host.Compile(module(fn("main", k)))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "test.mlir:") {
			t.Errorf("err = %v, want one naming %q and a location", err, c.want)
		}
	}
}
