package jit_test

import (
	"fmt"
	"testing"

	"github.com/xlajit/xlajit/bridge"
	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// sharedNumbers applies 0.5 and 2 to tensors of a few shapes and types
// many times, with a host op (and its cut) between the uses.
func sharedNumbers(x *lazy.Tensor) (y, z, w, n *lazy.Tensor) {
	y = x
	for i := 0; i < 5; i++ {
		y = y.MulScalar(0.5).AddScalar(0.5) // 0.5 of f32[2,2]
	}
	z = y.Reshape(4).AddScalar(0.5) // 0.5 of f32[4]
	nz := x.NonZero()               // a host op: the trace cuts here
	z = z.AddScalar(0.5).MulScalar(2).AddScalar(2)
	w = y.Cast(lazy.F64).AddScalar(0.5) // 0.5 of f64[2,2]
	n = nz.AddScalar(2).AddScalar(2)    // 2 of i64[3,2]
	return y, z, w, n
}

// TestTraceSharesNumberConstants: a Go number applied to tensors of one
// shape and type many times in a trace is one Splat node, also across a
// host op's cut; other values, types and shapes get theirs; the compiled
// function computes what the plain function computes eagerly.
func TestTraceSharesNumberConstants(t *testing.T) {
	freshDevice(t)
	x := lazy.FromSlice([]float32{1, 0, 2, 3}, 2, 2)
	lazy.Sync(x)
	tr, err := bridge.Trace([]*lazy.Tensor{x}, func() ([]*lazy.Tensor, error) {
		y, z, w, n := sharedNumbers(x)
		return []*lazy.Tensor{y, z, w, n}, nil
	}, bridge.TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, n := range tr.Graph.Nodes {
		if n.Kind == fx.Call && n.Op != nil && n.Op.Name == "Splat" {
			got[fmt.Sprint(n.Attrs)]++
		}
	}
	if len(got) != 5 {
		t.Errorf("Splat nodes by value and shape: %v, want 5 (0.5 of f32[2,2], f32[4] and f64[2,2]; 2 of f32[4] and i64[3,2])", got)
	}
	for k, n := range got {
		if n != 1 {
			t.Errorf("%s: %d Splat nodes, want 1", k, n)
		}
	}
	f := jit.Compile(sharedNumbers)
	for call := 0; call < 2; call++ { // the trace, then a replay
		gy, gz, gw, gn := f(x)
		lazy.SetEager(true)
		wy, wz, ww, wn := sharedNumbers(x)
		lazy.SetEager(false)
		for i, p := range [][2]*lazy.Tensor{{gy, wy}, {gz, wz}, {gw, ww}, {gn, wn}} {
			if g, w := fmt.Sprint(p[0].Literal()), fmt.Sprint(p[1].Literal()); g != w {
				t.Errorf("call %d: output %d = %s, want %s (eager)", call, i, g, w)
			}
		}
	}
}
