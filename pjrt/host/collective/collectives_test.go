package collective_test

import (
	. "github.com/xlajit/xlajit/pjrt/host/internal/hosttest"
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
	b := NewBlk(I64, I64)
	b.Ret("stablehlo.return", b.V(opName, []*hlo.Value{b.Arg(0), b.Arg(1)}, I64))
	return b.Region()
}

// parallel builds main = run_parallel(inputs) over a grid of @f and runs
// it; f is built by body from one argument of type in.
func parallel(t *testing.T, nr, np int, in, out hlo.Type, body func(k *Blk) *hlo.Value, inputs ...*hlo.Literal) []kernel.Value {
	t.Helper()
	f := NewBlk(in)
	f.Ret("func.return", body(f))
	m := parallelModule(nr, np, []*hlo.Func{Fn("f", f)}, []hlo.Type{in}, []hlo.Type{out}, inputs)
	res, log := Run(t, m)
	WantChecks(t, log, 0, 0)
	return res
}

// parallelModule makes main run @f (funcs[0]) on every device of an nr x
// np grid with one input each.
func parallelModule(nr, np int, funcs []*hlo.Func, in, out []hlo.Type, inputs []*hlo.Literal) *hlo.Module {
	k := NewBlk()
	var ops []*hlo.Value
	var outs []hlo.Type
	for i, l := range inputs {
		ops = append(ops, k.Cnst(l))
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
	rp := k.Op("interpreter.run_parallel", ops, outs, Attr("programs", Syms(rows...)))
	k.Ret("func.return", rp.Results...)
	return Module(append([]*hlo.Func{Fn("main", k)}, funcs...)...)
}

func TestAllReduceModes(t *testing.T) {
	v4 := TT(hlo.I64, 2)
	in := []*hlo.Literal{Ints(1, 2), Ints(10, 20), Ints(100, 200), Ints(1000, 2000)}
	cases := []struct {
		name   string
		attrs  []hlo.NamedAttr
		region string
		want   [][]int64
	}{
		// 2 replicas x 2 partitions; device d = 2*replica + partition.
		{"cross_replica", []hlo.NamedAttr{Attr("replica_groups", Groups([]int64{0, 1}))}, "stablehlo.add",
			[][]int64{{101, 202}, {1010, 2020}, {101, 202}, {1010, 2020}}},
		{"cross_replica region", []hlo.NamedAttr{Attr("replica_groups", Groups([]int64{0, 1}))}, "test.add",
			[][]int64{{101, 202}, {1010, 2020}, {101, 202}, {1010, 2020}}},
		{"cross_replica_and_partition", []hlo.NamedAttr{Attr("replica_groups", Groups([]int64{0, 1})),
			Attr("channel_handle", hlo.ChannelHandleAttr{Handle: 1})}, "stablehlo.add",
			[][]int64{{1111, 2222}, {1111, 2222}, {1111, 2222}, {1111, 2222}}},
		{"flattened_ids", []hlo.NamedAttr{Attr("replica_groups", Groups([]int64{0, 3}, []int64{1, 2})),
			Attr("channel_handle", hlo.ChannelHandleAttr{Handle: 1}), Attr("use_global_device_ids", hlo.UnitAttr{})}, "test.add",
			[][]int64{{1001, 2002}, {110, 220}, {110, 220}, {1001, 2002}}},
	}
	for _, c := range cases {
		res := parallel(t, 2, 2, v4, v4, func(k *Blk) *hlo.Value {
			o := k.Op("stablehlo.all_reduce", []*hlo.Value{k.Arg(0)}, []hlo.Type{v4}, c.attrs...)
			o.Regions = []*hlo.Region{addRegion(c.region)}
			return o.Results[0]
		}, in...)
		for d, w := range c.want {
			WantInts(t, res[d], w...)
		}
	}
}

func TestAllGatherReduceScatterAllToAll(t *testing.T) {
	v2 := TT(hlo.I64, 2)
	v4 := TT(hlo.I64, 4)
	rg := Attr("replica_groups", Groups([]int64{1, 0}))
	res := parallel(t, 2, 1, v2, v4, func(k *Blk) *hlo.Value {
		return k.V("stablehlo.all_gather", []*hlo.Value{k.Arg(0)}, v4, rg, Attr("all_gather_dim", hlo.IntAttr{Value: 0}))
	}, Ints(1, 2), Ints(3, 4))
	WantInts(t, res[0], 3, 4, 1, 2)
	WantInts(t, res[1], 3, 4, 1, 2)

	res = parallel(t, 2, 1, v4, v2, func(k *Blk) *hlo.Value {
		o := k.Op("stablehlo.reduce_scatter", []*hlo.Value{k.Arg(0)}, []hlo.Type{v2},
			Attr("replica_groups", Groups([]int64{0, 1})), Attr("scatter_dimension", hlo.IntAttr{Value: 0}))
		o.Regions = []*hlo.Region{addRegion("stablehlo.add")}
		return o.Results[0]
	}, Ints(1, 2, 3, 4), Ints(10, 20, 30, 40))
	WantInts(t, res[0], 11, 22)
	WantInts(t, res[1], 33, 44)

	m24 := TT(hlo.I64, 2, 4)
	m42 := TT(hlo.I64, 4, 2)
	res = parallel(t, 1, 2, m24, m42, func(k *Blk) *hlo.Value {
		return k.V("stablehlo.all_to_all", []*hlo.Value{k.Arg(0)}, m42,
			Attr("replica_groups", Groups([]int64{0, 1})), Attr("channel_handle", hlo.ChannelHandleAttr{Handle: 1}),
			Attr("split_dimension", hlo.IntAttr{Value: 1}), Attr("concat_dimension", hlo.IntAttr{Value: 0}),
			Attr("split_count", hlo.IntAttr{Value: 2}))
	}, hlo.LiteralFromSlice([]int64{1, 2, 3, 4, 5, 6, 7, 8}, 2, 4), hlo.LiteralFromSlice([]int64{9, 10, 11, 12, 13, 14, 15, 16}, 2, 4))
	WantInts(t, res[0], 1, 2, 5, 6, 9, 10, 13, 14)
	WantInts(t, res[1], 3, 4, 7, 8, 11, 12, 15, 16)
}

func TestPermuteBroadcastReduceIDs(t *testing.T) {
	v1 := TT(hlo.I64, 1)
	in := []*hlo.Literal{Ints(1), Ints(2), Ints(3), Ints(4)}
	res := parallel(t, 4, 1, v1, v1, func(k *Blk) *hlo.Value {
		return k.V("stablehlo.collective_permute", []*hlo.Value{k.Arg(0)}, v1,
			Attr("source_target_pairs", Groups([]int64{0, 1}, []int64{1, 2}, []int64{3, 3})))
	}, in...)
	for d, w := range []int64{0, 1, 2, 4} {
		WantInts(t, res[d], w)
	}

	res = parallel(t, 4, 1, v1, v1, func(k *Blk) *hlo.Value {
		return k.V("stablehlo.collective_broadcast", []*hlo.Value{k.Arg(0)}, v1,
			Attr("replica_groups", Groups([]int64{2, 1})))
	}, in...)
	for d, w := range []int64{0, 3, 3, 0} {
		WantInts(t, res[d], w)
	}

	res = parallel(t, 2, 2, v1, v1, func(k *Blk) *hlo.Value {
		o := k.Op("stablehlo.collective_reduce", []*hlo.Value{k.Arg(0)}, []hlo.Type{v1},
			Attr("replica_groups", Groups([]int64{1, 0})), Attr("channel_handle", hlo.ChannelHandleAttr{Handle: 1}))
		o.Regions = []*hlo.Region{addRegion("stablehlo.add")}
		return o.Results[0]
	}, in...)
	// cross_partition groups per replica: partition 1 is the root.
	for d, w := range []int64{0, 3, 0, 7} {
		WantInts(t, res[d], w)
	}

	u32 := TT(hlo.U32)
	f := NewBlk()
	f.Ret("func.return", f.V("stablehlo.replica_id", nil, u32), f.V("stablehlo.partition_id", nil, u32))
	k := NewBlk()
	rp := k.Op("interpreter.run_parallel", nil, []hlo.Type{u32, u32, u32, u32, u32, u32}, Attr("programs", Syms([]string{"ids"}, []string{"ids"}, []string{"ids"})))
	k.Ret("func.return", rp.Results...)
	r, _ := Run(t, Module(Fn("main", k), Fn("ids", f)))
	for i, w := range []int64{0, 0, 1, 0, 2, 0} {
		WantInts(t, r[i], w)
	}
}

func TestSendRecvInfeedOutfeed(t *testing.T) {
	m22 := TT(hlo.I64, 2)
	ch := Attr("channel_handle", hlo.ChannelHandleAttr{Handle: 5, Type: 2})
	send := NewBlk(m22, Tok)
	s1 := send.V("stablehlo.send", []*hlo.Value{send.Arg(0), send.Arg(1)}, Tok, ch)
	s2 := send.V("stablehlo.send", []*hlo.Value{send.Cnst(Ints(7, 8)), s1}, Tok, ch)
	send.Ret("func.return", s2)
	recv := NewBlk(Tok)
	r1 := recv.Op("stablehlo.recv", []*hlo.Value{recv.Arg(0)}, []hlo.Type{m22, Tok}, ch)
	r2 := recv.Op("stablehlo.recv", []*hlo.Value{r1.Results[1]}, []hlo.Type{m22, Tok}, ch)
	i1op := recv.Op("stablehlo.infeed", []*hlo.Value{r2.Results[1]}, []hlo.Type{m22, Tok})
	o := recv.V("stablehlo.outfeed", []*hlo.Value{i1op.Results[0], i1op.Results[1]}, Tok)
	recv.Ret("func.return", r1.Results[0], r2.Results[0], i1op.Results[0], o)
	q := NewBlk()
	q.Ret("func.return", q.Cnst(Ints(42, 43)))

	k := NewBlk()
	t0 := k.V("stablehlo.after_all", nil, Tok)
	// Receiver first: device 0 blocks until device 1 sends.
	rp := k.Op("interpreter.run_parallel", []*hlo.Value{t0, k.Cnst(Ints(1, 2)), t0},
		[]hlo.Type{m22, m22, m22, Tok, Tok},
		Attr("programs", Syms([]string{"recv"}, []string{"send"})), Attr("infeed", hlo.ArrayAttr{Sym("queue")}))
	k.Ret("func.return", rp.Results[:3]...)
	res, _ := Run(t, Module(Fn("main", k), Fn("send", send), Fn("recv", recv), Fn("queue", q)))
	WantInts(t, res[0], 1, 2)
	WantInts(t, res[1], 7, 8)
	WantInts(t, res[2], 42, 43)
}

// TestLoopCollectives runs all_reduce inside a while loop on every replica
// of a replicated run: the hub matches the k-th iterations up by order.
func TestLoopCollectives(t *testing.T) {
	k := NewBlk(I64, I64) // (n, x)
	cond := NewBlk(I64, I64)
	cond.Ret("stablehlo.return", cond.V("test.lt", []*hlo.Value{cond.Arg(0), k.Arg(0)}, I1))
	body := NewBlk(I64, I64)
	ar := body.Op("stablehlo.all_reduce", []*hlo.Value{body.Arg(1)}, []hlo.Type{I64}, Attr("replica_groups", Groups([]int64{0, 1, 2})))
	ar.Regions = []*hlo.Region{addRegion("stablehlo.add")}
	body.Ret("stablehlo.return", body.V("test.add", []*hlo.Value{body.Arg(0), body.Cnst(Scalar(1))}, I64), ar.Results[0])
	w := k.Op("stablehlo.while", []*hlo.Value{k.Cnst(Scalar(0)), k.Arg(1)}, []hlo.Type{I64, I64})
	w.Regions = []*hlo.Region{cond.Region(), body.Region()}
	k.Ret("func.return", w.Results[1])
	p, err := host.Compile(Module(Fn("main", k)))
	Must(t, err)
	ins := [][]kernel.Value{{Scalar(3), Scalar(1)}, {Scalar(3), Scalar(2)}, {Scalar(3), Scalar(3)}}
	for iter := 0; iter < 5; iter++ {
		res, err := host.RunReplicated(p, 3, 1, ins, nil)
		Must(t, err)
		for d := range res {
			WantInts(t, res[d][0], 54) // 1+2+3 = 6 -> 18 -> 54
		}
	}
}

// TestMismatchedCollectivesFail: a device that never joins makes the others
// fail instead of hanging.
func TestMismatchedCollectivesFail(t *testing.T) {
	a := NewBlk(I64)
	ar := a.Op("stablehlo.all_reduce", []*hlo.Value{a.Arg(0)}, []hlo.Type{I64}, Attr("replica_groups", Groups([]int64{0, 1})))
	ar.Regions = []*hlo.Region{addRegion("stablehlo.add")}
	a.Ret("func.return", ar.Results[0])
	b := NewBlk(I64)
	b.Ret("func.return", b.Arg(0))
	k := NewBlk()
	rp := k.Op("interpreter.run_parallel", []*hlo.Value{k.Cnst(Scalar(1)), k.Cnst(Scalar(2))}, []hlo.Type{I64, I64},
		Attr("programs", Syms([]string{"a"}, []string{"b"})))
	k.Ret("func.return", rp.Results...)
	p, err := host.Compile(Module(Fn("main", k), Fn("a", a), Fn("b", b)))
	Must(t, err)
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
	v := TT(hlo.F32, 3)
	for _, op := range []string{"stablehlo.maximum", "stablehlo.minimum"} {
		in := []*hlo.Literal{hlo.LiteralFromSlice([]float32{float32(nan), 1, 2}), hlo.LiteralFromSlice([]float32{float32(inf), float32(-inf), float32(nan)})}
		res := parallel(t, 2, 1, v, v, func(k *Blk) *hlo.Value {
			body := NewBlk(TT(hlo.F32), TT(hlo.F32))
			body.Ret("stablehlo.return", body.V(op, []*hlo.Value{body.Arg(0), body.Arg(1)}, TT(hlo.F32)))
			o := k.Op("stablehlo.all_reduce", []*hlo.Value{k.Arg(0)}, []hlo.Type{v}, Attr("replica_groups", Groups([]int64{0, 1})))
			o.Regions = []*hlo.Region{body.Region()}
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
