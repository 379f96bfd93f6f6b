package bridge

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt/host"
)

// A trace's graph compiled by copying its IR (CompileTraced) is the graph
// the fx Interpreter records (Compile): the same hash, the same lowered
// module and the same program, over generated functions with captures,
// mutations, random numbers, an argument passed twice, multi-output ops
// and outputs returned unchanged.
func TestCompileTracedIsCompile(t *testing.T) {
	dev := lazy.DevicesOf(host.NewClient(1))[0]
	other := lazy.DevicesOf(host.NewClient(1))[0]
	old := lazy.DefaultDevice()
	lazy.SetDefaultDevice(dev)
	t.Cleanup(func() { lazy.SetDefaultDevice(old) })
	for seed := range uint64(150) {
		r := rand.New(rand.NewPCG(seed, 7))
		a := lazy.FromSlice([]float32{1, -2, 3, 4, -5, 6}, 2, 3)
		b := a
		if r.IntN(4) > 0 {
			b = lazy.FromSlice([]float32{0.5, 1, 1.5, 2, 2.5, 3}, 2, 3)
		}
		w := lazy.FromSlice([]float32{1, 0, 2, 0, 1, 0, 3, 0, 1}, 3, 3)
		n := 1 + r.IntN(30)
		fn := func() ([]*lazy.Tensor, error) {
			pool := []*lazy.Tensor{a, b, w.Narrow(0, 0, 2)}
			pick := func() *lazy.Tensor { return pool[r.IntN(len(pool))] }
			for range n {
				x := pick()
				var y *lazy.Tensor
				switch r.IntN(11) {
				case 0:
					y = x.Exp()
				case 1:
					y = x.Tanh()
				case 2:
					y = x.Add(pick())
				case 3:
					y = x.Mul(pick())
				case 4:
					y = x.AddScalar(float64(r.IntN(3)))
				case 5:
					y = x.MulScalar(0.5)
				case 6:
					y = x.MatMul(w)
				case 7:
					y = x.Transpose(0, 1).Transpose(0, 1)
				case 8:
					y = lazy.RandN(lazy.F32, 2, 3).Add(x)
				case 9:
					ps := x.Chunk(0, 2)
					y = x.Add(ps[0].Sub(ps[1]))
				case 10:
					a.Assign(x.Sub(pick()))
					y = a
				}
				pool = append(pool, y)
			}
			outs := []*lazy.Tensor{pool[len(pool)-1]}
			for range r.IntN(3) {
				outs = append(outs, pick())
			}
			return outs, nil
		}
		args := []*lazy.Tensor{a, b}
		tr, err := Trace(args, fn, TraceOptions{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		copied, err := CompileTraced(tr, dev)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !copied.copied || !copied.inPlace {
			t.Fatalf("seed %d: the traced IR was not lowered in place (copied %v):\n%s", seed, copied.copied, tr.Graph)
		}
		// On a device of its own, so that the module is lowered again
		// rather than found in the compile cache.
		recorded, err := Compile(tr.Graph, other)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if recorded.copied {
			t.Fatalf("seed %d: Compile copied IR", seed)
		}
		if copied.Hash != recorded.Hash {
			t.Fatalf("seed %d: hash %s copied, %s recorded:\n%s", seed, copied.Hash, recorded.Hash, tr.Graph)
		}
		if x, y := copied.Executable(), recorded.Executable(); (x == nil) != (y == nil) || x != nil && x.Module.String() != y.Module.String() {
			t.Fatalf("seed %d: modules differ:\n%v\n%v", seed, x, y)
		}
		same := func(p *Program) []any {
			return []any{p.params, p.overwritten, p.identity, p.paramsAreArgs, p.outs, p.muts, p.written, p.repeat, p.move, p.argShapes, p.capShapes}
		}
		if !reflect.DeepEqual(same(copied), same(recorded)) {
			t.Fatalf("seed %d: programs differ:\n%v\n%v", seed, same(copied), same(recorded))
		}
	}
}

// A program with run-time checks keeps the IR it was compiled from (for
// the checks' pre-check), so its traced IR is copied over placeholders
// rather than lowered in place (which would keep the traced inputs'
// buffers): the same hash, module and program as Compile's.
func TestCompileTracedWithChecksCopies(t *testing.T) {
	dev := lazy.DevicesOf(host.NewClient(1))[0]
	other := lazy.DevicesOf(host.NewClient(1))[0]
	old := lazy.DefaultDevice()
	lazy.SetDefaultDevice(dev)
	t.Cleanup(func() { lazy.SetDefaultDevice(old) })
	x := lazy.FromSlice([]int32{7, 8, 9})
	y := lazy.FromSlice([]int32{2, 3, 4})
	tr, err := Trace([]*lazy.Tensor{x, y}, func() ([]*lazy.Tensor, error) {
		return []*lazy.Tensor{x.Rem(y).AddScalar(1)}, nil
	}, TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := CompileTraced(tr, dev)
	if err != nil {
		t.Fatal(err)
	}
	if !p.copied || p.inPlace {
		t.Fatalf("copied %v, in place %v; want a copy", p.copied, p.inPlace)
	}
	q, err := Compile(tr.Graph, other)
	if err != nil {
		t.Fatal(err)
	}
	if p.Hash != q.Hash || p.Executable().Module.String() != q.Executable().Module.String() {
		t.Fatalf("hash %s, %s; modules\n%s\n%s", p.Hash, q.Hash, p.Executable().Module, q.Executable().Module)
	}
	outs, err := p.Run([]*lazy.Tensor{x, y}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := outs[0].Int32s(); !reflect.DeepEqual(got, []int32{2, 3, 2}) {
		t.Fatalf("got %v", got)
	}
}
