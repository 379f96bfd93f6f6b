package lazy

import (
	"fmt"
	"runtime"
	"testing"
	"weak"
)

// A compiled program keeps its IR only where it is read again (run-time
// checks, dumps): the compile cache would otherwise keep every program's
// graph alive for the collector to walk. An evicted program compiles again
// from its module.
func TestExecutableKeepsNoIR(t *testing.T) {
	if dumping {
		t.Skip("dumps keep the IR")
	}
	dev := DefaultDevice()
	in := FromSlice([]float32{1, 2})
	x := in.AddScalar(41.5).MulScalar(3)
	g := CollectGraph([]Value{x.val})
	exe, _, err := CompileGraph(dev, g, "keep")
	if err != nil {
		t.Fatal(err)
	}
	if exe.graph != nil {
		t.Errorf("the executable keeps its graph")
	}
	dev.state.cache.mu.Lock()
	n := dev.state.cache.cap
	dev.state.cache.mu.Unlock()
	SetCacheSize(dev, 1)
	if _, _, err := CompileGraph(dev, CollectGraph([]Value{FromSlice([]float32{1}).AddScalar(7).val}), "other"); err != nil {
		t.Fatal(err)
	}
	SetCacheSize(dev, n)
	if !exe.Evicted() {
		t.Fatal("not evicted")
	}
	again, err := exe.Recompile()
	if err != nil {
		t.Fatal(err)
	}
	if again == exe || again.Hash != exe.Hash || again.Module == exe.Module || again.Module.String() != exe.Module.String() {
		t.Errorf("recompiled %p (hash %s), evicted %p (hash %s)", again, again.Hash, exe, exe.Hash)
	}
	outs, err := again.Run([]*Tensor{in})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(outs[0].Float32s()); got != "[127.5 130.5]" {
		t.Errorf("the recompiled program computes %s, want [127.5 130.5]", got)
	}
	if y, err := again.Recompile(); err != nil || y != again {
		t.Errorf("a cached program compiles again: %v", err)
	}
}

// A compiled program does not keep the tensors its constants were traced
// for: a Go number filling a shape (Full, Zeros, a scalar op's operand) is
// one node beside its tensor, and its literal, which the module holds, is
// an allocation of its own.
func TestCompiledProgramsKeepNoTensors(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func() *Tensor
	}{
		{"Zeros", func() *Tensor { return Zeros(F32, 1<<16+3) }},
		{"Full", func() *Tensor { return Full(F32, 2.5, 1<<16+5) }},
	} {
		z := tc.make()
		if err := Sync(z); err != nil {
			t.Fatal(err)
		}
		w := weak.Make(z)
		z = nil
		runtime.GC()
		runtime.GC()
		if w.Value() != nil {
			t.Errorf("%s: the tensor is still reachable after its program was compiled and cached", tc.name)
		}
	}
}

// An executable that keeps its graph (a program with run-time checks
// keeps it for their pre-check) keeps a copy over placeholders, with
// attributes and shapes of its own: not the input buffers, nor the
// tensors the graph computed or filled (whose cells held the original
// nodes' shapes and attributes).
func TestCheckedProgramsKeepNoTensors(t *testing.T) {
	if dumping {
		t.Skip("dumps keep the graph that ran")
	}
	for _, tc := range []struct {
		name string
		mk   func(in, idx *Tensor) (y, keep *Tensor)
	}{
		{"IndexSelect", func(in, idx *Tensor) (*Tensor, *Tensor) { return in.IndexSelect(0, idx), nil }},
		{"Neg after", func(in, idx *Tensor) (*Tensor, *Tensor) { return in.IndexSelect(0, idx).Neg(), nil }},
		{"Neg before", func(in, idx *Tensor) (*Tensor, *Tensor) { return in.Neg().IndexSelect(0, idx), nil }},
		{"Full", func(in, idx *Tensor) (*Tensor, *Tensor) {
			z := Full(F32, 2, 5)
			return z.IndexSelect(0, idx).Add(in.IndexSelect(0, idx)), z
		}},
	} {
		in := FromSlice([]float32{1, 2, 3, 4, 5})
		idx := FromSlice([]int64{4, 1})
		y, z := tc.mk(in, idx)
		if err := Sync(y, z); err != nil {
			t.Fatal(err)
		}
		wy, wi, wz := weak.Make(y), weak.Make(in), weak.Make(z)
		y, in, z = nil, nil, nil
		runtime.GC()
		runtime.GC()
		if wy.Value() != nil || wi.Value() != nil || wz.Value() != nil {
			t.Errorf("%s: after its checked program was compiled and cached, reachable: result %v, input %v, filled tensor %v",
				tc.name, wy.Value() != nil, wi.Value() != nil, wz.Value() != nil)
		}
	}
	// The kept copy still checks: a bad index fails on the next run.
	bad := FromSlice([]float32{1, 2, 3, 4, 5}).IndexSelect(0, FromSlice([]int64{4, 7}))
	if err := Sync(bad); err == nil {
		t.Error("an index out of range passed the program's checks")
	}
}

// The pre-check of a program with checks and donated inputs runs on the
// kept copy, whose leaves of one buffer (a tensor and its Share) are one
// parameter, as in the graph that ran.
func TestPreCheckOfKeptCopyWithSharedBuffer(t *testing.T) {
	for _, shared := range []bool{false, true} {
		w := FromSlice([]float32{1, 2, 3, 4, 5})
		idx := FromSlice([]int64{4, 1})
		idx2 := idx
		if shared {
			idx2 = idx.Share()
		}
		a, b := w.IndexSelect(0, idx), w.IndexSelect(0, idx2)
		y := a.Add(b)
		w.Assign(FromSlice([]float32{0, 0, 0, 0, 0})) // w's buffer is donated: the pre-check runs
		if err := Sync(a, b, y); err != nil {
			t.Errorf("shared index buffer %v: %v", shared, err)
			continue
		}
		if got := fmt.Sprint(y.Float32s()); got != "[10 4]" {
			t.Errorf("shared index buffer %v: %s, want [10 4]", shared, got)
		}
	}
}
