package control_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// addRegion is a reduction body: stablehlo.add runs natively, test.add
// through the region path.
func addRegion(opName string) *hlo.Region {
	b := newBlk(i64, i64)
	b.ret("stablehlo.return", b.v(opName, []*hlo.Value{b.arg(0), b.arg(1)}, i64))
	return b.region()
}

// parallel builds main = run_parallel(inputs) over a grid of @f and runs
// it; f is built by body from one argument of type in.
func parallel(t *testing.T, nr, np int, in, out hlo.Type, body func(k *blk) *hlo.Value, inputs ...*hlo.Literal) []kernel.Value {
	t.Helper()
	f := newBlk(in)
	f.ret("func.return", body(f))
	m := parallelModule(nr, np, []*hlo.Func{fn("f", f)}, []hlo.Type{in}, []hlo.Type{out}, inputs)
	res, log := run(t, m)
	wantChecks(t, log, 0, 0)
	return res
}

// parallelModule makes main run @f (funcs[0]) on every device of an nr x
// np grid with one input each.
func parallelModule(nr, np int, funcs []*hlo.Func, in, out []hlo.Type, inputs []*hlo.Literal) *hlo.Module {
	k := newBlk()
	var ops []*hlo.Value
	var outs []hlo.Type
	for i, l := range inputs {
		ops = append(ops, k.cnst(l))
		outs = append(outs, out[i%len(out)])
	}
	var rows [][]string
	for r := 0; r < nr; r++ {
		var row []string
		for p := 0; p < np; p++ {
			row = append(row, funcs[0].Name)
		}
		rows = append(rows, row)
	}
	rp := k.op("interpreter.run_parallel", ops, outs, attr("programs", syms(rows...)))
	k.ret("func.return", rp.Results...)
	return module(append([]*hlo.Func{fn("main", k)}, funcs...)...)
}

func vec(xs ...int64) *hlo.Literal { return ints(xs...) }

func TestAllReduceModes(t *testing.T) {
	v4 := tt(hlo.I64, 2)
	in := []*hlo.Literal{vec(1, 2), vec(10, 20), vec(100, 200), vec(1000, 2000)}
	cases := []struct {
		name   string
		attrs  []hlo.NamedAttr
		region string
		want   [][]int64
	}{
		// 2 replicas x 2 partitions; device d = 2*replica + partition.
		{"cross_replica", []hlo.NamedAttr{attr("replica_groups", groups([]int64{0, 1}))}, "stablehlo.add",
			[][]int64{{101, 202}, {1010, 2020}, {101, 202}, {1010, 2020}}},
		{"cross_replica region", []hlo.NamedAttr{attr("replica_groups", groups([]int64{0, 1}))}, "test.add",
			[][]int64{{101, 202}, {1010, 2020}, {101, 202}, {1010, 2020}}},
		{"cross_replica_and_partition", []hlo.NamedAttr{attr("replica_groups", groups([]int64{0, 1})),
			attr("channel_handle", hlo.ChannelHandleAttr{Handle: 1})}, "stablehlo.add",
			[][]int64{{1111, 2222}, {1111, 2222}, {1111, 2222}, {1111, 2222}}},
		{"flattened_ids", []hlo.NamedAttr{attr("replica_groups", groups([]int64{0, 3}, []int64{1, 2})),
			attr("channel_handle", hlo.ChannelHandleAttr{Handle: 1}), attr("use_global_device_ids", hlo.UnitAttr{})}, "test.add",
			[][]int64{{1001, 2002}, {110, 220}, {110, 220}, {1001, 2002}}},
	}
	for _, c := range cases {
		res := parallel(t, 2, 2, v4, v4, func(k *blk) *hlo.Value {
			o := k.op("stablehlo.all_reduce", []*hlo.Value{k.arg(0)}, []hlo.Type{v4}, c.attrs...)
			o.Regions = []*hlo.Region{addRegion(c.region)}
			return o.Results[0]
		}, in...)
		for d, w := range c.want {
			wantInts(t, res[d], w...)
		}
	}
}

func TestAllGatherReduceScatterAllToAll(t *testing.T) {
	v2 := tt(hlo.I64, 2)
	v4 := tt(hlo.I64, 4)
	rg := attr("replica_groups", groups([]int64{1, 0}))
	res := parallel(t, 2, 1, v2, v4, func(k *blk) *hlo.Value {
		return k.v("stablehlo.all_gather", []*hlo.Value{k.arg(0)}, v4, rg, attr("all_gather_dim", hlo.IntAttr{Value: 0}))
	}, vec(1, 2), vec(3, 4))
	wantInts(t, res[0], 3, 4, 1, 2)
	wantInts(t, res[1], 3, 4, 1, 2)

	res = parallel(t, 2, 1, v4, v2, func(k *blk) *hlo.Value {
		o := k.op("stablehlo.reduce_scatter", []*hlo.Value{k.arg(0)}, []hlo.Type{v2},
			attr("replica_groups", groups([]int64{0, 1})), attr("scatter_dimension", hlo.IntAttr{Value: 0}))
		o.Regions = []*hlo.Region{addRegion("stablehlo.add")}
		return o.Results[0]
	}, vec(1, 2, 3, 4), vec(10, 20, 30, 40))
	wantInts(t, res[0], 11, 22)
	wantInts(t, res[1], 33, 44)

	m24 := tt(hlo.I64, 2, 4)
	m42 := tt(hlo.I64, 4, 2)
	res = parallel(t, 1, 2, m24, m42, func(k *blk) *hlo.Value {
		return k.v("stablehlo.all_to_all", []*hlo.Value{k.arg(0)}, m42,
			attr("replica_groups", groups([]int64{0, 1})), attr("channel_handle", hlo.ChannelHandleAttr{Handle: 1}),
			attr("split_dimension", hlo.IntAttr{Value: 1}), attr("concat_dimension", hlo.IntAttr{Value: 0}),
			attr("split_count", hlo.IntAttr{Value: 2}))
	}, hlo.LiteralFromSlice([]int64{1, 2, 3, 4, 5, 6, 7, 8}, 2, 4), hlo.LiteralFromSlice([]int64{9, 10, 11, 12, 13, 14, 15, 16}, 2, 4))
	wantInts(t, res[0], 1, 2, 5, 6, 9, 10, 13, 14)
	wantInts(t, res[1], 3, 4, 7, 8, 11, 12, 15, 16)
}

func TestPermuteBroadcastReduceIDs(t *testing.T) {
	v1 := tt(hlo.I64, 1)
	in := []*hlo.Literal{vec(1), vec(2), vec(3), vec(4)}
	res := parallel(t, 4, 1, v1, v1, func(k *blk) *hlo.Value {
		return k.v("stablehlo.collective_permute", []*hlo.Value{k.arg(0)}, v1,
			attr("source_target_pairs", groups([]int64{0, 1}, []int64{1, 2}, []int64{3, 3})))
	}, in...)
	for d, w := range []int64{0, 1, 2, 4} {
		wantInts(t, res[d], w)
	}

	res = parallel(t, 4, 1, v1, v1, func(k *blk) *hlo.Value {
		return k.v("stablehlo.collective_broadcast", []*hlo.Value{k.arg(0)}, v1,
			attr("replica_groups", groups([]int64{2, 1})))
	}, in...)
	for d, w := range []int64{0, 3, 3, 0} {
		wantInts(t, res[d], w)
	}

	res = parallel(t, 2, 2, v1, v1, func(k *blk) *hlo.Value {
		o := k.op("stablehlo.collective_reduce", []*hlo.Value{k.arg(0)}, []hlo.Type{v1},
			attr("replica_groups", groups([]int64{1, 0})), attr("channel_handle", hlo.ChannelHandleAttr{Handle: 1}))
		o.Regions = []*hlo.Region{addRegion("stablehlo.add")}
		return o.Results[0]
	}, in...)
	// cross_partition groups per replica: partition 1 is the root.
	for d, w := range []int64{0, 3, 0, 7} {
		wantInts(t, res[d], w)
	}

	u32 := tt(hlo.U32)
	f := newBlk()
	f.ret("func.return", f.v("stablehlo.replica_id", nil, u32), f.v("stablehlo.partition_id", nil, u32))
	k := newBlk()
	rp := k.op("interpreter.run_parallel", nil, []hlo.Type{u32, u32, u32, u32, u32, u32}, attr("programs", syms([]string{"ids"}, []string{"ids"}, []string{"ids"})))
	k.ret("func.return", rp.Results...)
	r, _ := run(t, module(fn("main", k), fn("ids", f)))
	for i, w := range []int64{0, 0, 1, 0, 2, 0} {
		wantInts(t, r[i], w)
	}
}

func TestSendRecvInfeedOutfeed(t *testing.T) {
	m22 := tt(hlo.I64, 2)
	ch := attr("channel_handle", hlo.ChannelHandleAttr{Handle: 5, Type: 2})
	send := newBlk(m22, tok)
	s1 := send.v("stablehlo.send", []*hlo.Value{send.arg(0), send.arg(1)}, tok, ch)
	s2 := send.v("stablehlo.send", []*hlo.Value{send.cnst(vec(7, 8)), s1}, tok, ch)
	send.ret("func.return", s2)
	recv := newBlk(tok)
	r1 := recv.op("stablehlo.recv", []*hlo.Value{recv.arg(0)}, []hlo.Type{m22, tok}, ch)
	r2 := recv.op("stablehlo.recv", []*hlo.Value{r1.Results[1]}, []hlo.Type{m22, tok}, ch)
	i1op := recv.op("stablehlo.infeed", []*hlo.Value{r2.Results[1]}, []hlo.Type{m22, tok})
	o := recv.v("stablehlo.outfeed", []*hlo.Value{i1op.Results[0], i1op.Results[1]}, tok)
	recv.ret("func.return", r1.Results[0], r2.Results[0], i1op.Results[0], o)
	q := newBlk()
	q.ret("func.return", q.cnst(vec(42, 43)))

	k := newBlk()
	t0 := k.v("stablehlo.after_all", nil, tok)
	// Receiver first: device 0 blocks until device 1 sends.
	rp := k.op("interpreter.run_parallel", []*hlo.Value{t0, k.cnst(vec(1, 2)), t0},
		[]hlo.Type{m22, m22, m22, tok, tok},
		attr("programs", syms([]string{"recv"}, []string{"send"})), attr("infeed", hlo.ArrayAttr{sym("queue")}))
	k.ret("func.return", rp.Results[:3]...)
	res, _ := run(t, module(fn("main", k), fn("send", send), fn("recv", recv), fn("queue", q)))
	wantInts(t, res[0], 1, 2)
	wantInts(t, res[1], 7, 8)
	wantInts(t, res[2], 42, 43)
}

// TestLoopCollectives runs all_reduce inside a while loop on every replica
// of a replicated run: the hub matches the k-th iterations up by order.
func TestLoopCollectives(t *testing.T) {
	k := newBlk(i64, i64) // (n, x)
	cond := newBlk(i64, i64)
	cond.ret("stablehlo.return", cond.v("test.lt", []*hlo.Value{cond.arg(0), k.arg(0)}, i1))
	body := newBlk(i64, i64)
	ar := body.op("stablehlo.all_reduce", []*hlo.Value{body.arg(1)}, []hlo.Type{i64}, attr("replica_groups", groups([]int64{0, 1, 2})))
	ar.Regions = []*hlo.Region{addRegion("stablehlo.add")}
	body.ret("stablehlo.return", body.v("test.add", []*hlo.Value{body.arg(0), body.cnst(scalar(1))}, i64), ar.Results[0])
	w := k.op("stablehlo.while", []*hlo.Value{k.cnst(scalar(0)), k.arg(1)}, []hlo.Type{i64, i64})
	w.Regions = []*hlo.Region{cond.region(), body.region()}
	k.ret("func.return", w.Results[1])
	p, err := host.Compile(module(fn("main", k)))
	must(t, err)
	ins := [][]kernel.Value{{scalar(3), scalar(1)}, {scalar(3), scalar(2)}, {scalar(3), scalar(3)}}
	for iter := 0; iter < 5; iter++ {
		res, err := host.RunReplicated(p, 3, 1, ins, nil)
		must(t, err)
		for d := range res {
			wantInts(t, res[d][0], 54) // 1+2+3 = 6 -> 18 -> 54
		}
	}
}

// TestMismatchedCollectivesFail: a device that never joins makes the others
// fail instead of hanging.
func TestMismatchedCollectivesFail(t *testing.T) {
	a := newBlk(i64)
	ar := a.op("stablehlo.all_reduce", []*hlo.Value{a.arg(0)}, []hlo.Type{i64}, attr("replica_groups", groups([]int64{0, 1})))
	ar.Regions = []*hlo.Region{addRegion("stablehlo.add")}
	a.ret("func.return", ar.Results[0])
	b := newBlk(i64)
	b.ret("func.return", b.arg(0))
	k := newBlk()
	rp := k.op("interpreter.run_parallel", []*hlo.Value{k.cnst(scalar(1)), k.cnst(scalar(2))}, []hlo.Type{i64, i64},
		attr("programs", syms([]string{"a"}, []string{"b"})))
	k.ret("func.return", rp.Results...)
	p, err := host.Compile(module(fn("main", k), fn("a", a), fn("b", b)))
	must(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := p.Run(nil, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "finished without joining") {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("mismatched collectives hang")
	}
}

// A reducing collective's maximum and minimum propagate NaN, also against
// infinities (as stablehlo.maximum and minimum do element-wise).
func TestAllReduceMaxMinNaN(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	v := tt(hlo.F32, 3)
	for _, op := range []string{"stablehlo.maximum", "stablehlo.minimum"} {
		in := []*hlo.Literal{hlo.LiteralFromSlice([]float32{float32(nan), 1, 2}), hlo.LiteralFromSlice([]float32{float32(inf), float32(-inf), float32(nan)})}
		res := parallel(t, 2, 1, v, v, func(k *blk) *hlo.Value {
			body := newBlk(tt(hlo.F32), tt(hlo.F32))
			body.ret("stablehlo.return", body.v(op, []*hlo.Value{body.arg(0), body.arg(1)}, tt(hlo.F32)))
			o := k.op("stablehlo.all_reduce", []*hlo.Value{k.arg(0)}, []hlo.Type{v}, attr("replica_groups", groups([]int64{0, 1})))
			o.Regions = []*hlo.Region{body.region()}
			return o.Results[0]
		}, in...)
		for d := range res {
			got := res[d].(*hlo.Literal).F32()
			if !math.IsNaN(float64(got[0])) || !math.IsNaN(float64(got[2])) {
				t.Errorf("%s on device %d: %v, want NaN in elements 0 and 2", op, d, got)
			}
		}
	}
}
