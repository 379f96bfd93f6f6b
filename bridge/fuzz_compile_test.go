package bridge_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/bridge"
	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/partitioner"
	"github.com/xlajit/xlajit/pjrt/host"
)

// compileSeeds are small graphs for FuzzCompileParsed besides the golden
// files: both kinds of placeholder, mutations, pass-throughs, tuples, a
// host-only op, and inputs that once crashed Compile, Discover or Run.
var compileSeeds = []string{
	"%a : f32[2] = placeholder[arg 0]\n%b : f32[2] = Neg(%a)\noutput(%b)",
	"%a : f32[2] = placeholder[arg 0]\n%w : f32[2] = placeholder[capture 0]\n%s : f32[2] = Add(%a, %w)\noutput(%s; %w <- %s)",
	"%a : f32[2] = placeholder[arg 0]\n%w : f32[2] = placeholder[capture 0]\noutput(%w, %a; %a <- %w, %w <- %a)",
	"%a : f32[6] = placeholder[arg 0]\n%c : f32[] = Constant(value=lit(f32[], [0.5]))\n%b : f32[6] = Broadcast(%c, dims=[6], bdims=[])\n%g : i1[6] = Compare(%a, %b, dir=\"GT\")\n%nz : i64[3,1] = NonZero(%g)\n%f : f32[3,1] = Cast(%nz, dtype=dtype(f32))\noutput(%f)",
	"%a : f32[2,3] = placeholder[capture 0]\n%s : (f32[3], i64[3]) = Sort(%a, axis=0, descending=false)\noutput(%s#1; %a <- %a)",
	"%a : f32[2] = placeholder[arg 0]\n%b : f32[2] = Add(%a)\noutput(%b)",
	"%a : f32[2] = placeholder[arg 0]\n%b : f32[3] = Neg(%a)\noutput(%b)",
	"%x : f32[2,3] = placeholder[arg 0]\n%w : f32[3,4] = placeholder[capture 0]\n%d : f32[2,4] = DotGeneral(%x, %w, lhs_batch=[], rhs_batch=[], lhs_contract=[1], rhs_contract=[0])\noutput(%d)",
	"%a : f32[1,2,4,4] = placeholder[arg 0]\n%t : f32[1,4,2,4] = Transpose(%a, perm=[0, 0, 1, 3])\noutput(%t)",
	"%a : f32[1,2,4,4] = placeholder[arg 0]\n%t : f32[1,4,2,4] = Transpose(%a, perm=[9])\noutput(%t)",
	"%a : f32[1,2,4,4] = placeholder[arg 0]\n%s : f32[1,4,2,2] = Slice(%a, start=[0, 0, 0, 3], limit=[1, 4, 2, 1], strides=[1, 0, 1, 1])\noutput(%s)",
	"%a : f32[1,2,4,4] = placeholder[arg 0]\n%r : f32[1,2,4,4] = Reverse(%a, axes=[7])\noutput(%r)",
	"%a : f32[1,2,4,4] = placeholder[arg 0]\n%p : f32[1,2,4,4] = Pad(%a, lo=[0, 0, 0, -9], hi=[0, 0, 0, 1], interior=[0, 0, 0, -1], value=0.0)\noutput(%p)",
	"%a : f32[1,2,4,4] = placeholder[arg 0]\n%c : f32[1,4,4,4] = Concat(%a, %a, axis=9)\noutput(%c)",
	"%a : f32[1,2,4,4] = placeholder[arg 0]\n%c : f32[1,2,4,4] = Cumsum(%a, axis=-1, reverse=false)\noutput(%c)",
	"%a : f32[1,2,4,4] = placeholder[arg 0]\n%m : i64[1,4,4] = ArgMax(%a, axis=5)\noutput(%m)",
	"%a : f32[1,2,4,4] = placeholder[arg 0]\n%w : f32[1,2,2,2] = ReduceWindow(%a, kind=\"max\", window=[1, 1, 0, 2], strides=[1, 1, 0, 2], pad_lo=[0, 0, 0, 0], pad_hi=[0, 0, 0, 0])\noutput(%w)",
	"%a : f32[1,2,4,4] = placeholder[arg 0]\n%w : f32[1,2,2,2] = ReduceWindow(%a, kind=\"bogus\", window=[1, 1, 2, 2], strides=[1, 1, 2, 2], pad_lo=[0, 0, 0, 0], pad_hi=[0, 0, 0, 0])\noutput(%w)",
	"%i : i32[2,3] = Iota(dtype=dtype(i32), dims=[2, 3], axis=7)\noutput(%i)",
	"%i : i32[2,3] = Iota(dtype=dtype(i32), dims=[-2, 3], axis=0)\noutput(%i)",
	"%a : f32[1,2,4,4] = placeholder[arg 0]\n%z : i64[] = Constant(value=lit(i64[], [0]))\n%d : f32[1,1,2,2] = DynamicSlice(%a, %z, %z, sizes=[1, 1, 9, 2])\noutput(%d)",
	"%a : f32[1,2,4,4] = placeholder[arg 0]\n%z : i64[] = Constant(value=lit(i64[], [0]))\n%d : f32[1,1,2,2] = DynamicSlice(%a, %z, %z, %z, %z, sizes=[1, 1, 9, 2])\noutput(%d)",
	"%a : i64[4] = placeholder[arg 0]\n%b : i1[] = Constant(value=lit(i1[], [false]))\n%c : i64[4] = Check(%a, %b, op=\"TakeAlong\", shapes=\"i64[4]\", msg=\"index out of range\")\noutput(%c)",
	"%s : f32[2,2] = Splat(value=lit(f32[], [1.5]), dims=[-2, 2])\noutput(%s)",
	"%s : f32[2,2] = Splat(value=lit(f32[3], [1.5, 2, 3]), dims=[2, 2])\noutput(%s)",
	"%c : f32[] = Constant(value=lit(f32[2], [1.5, 2]))\noutput(%c)",
	"%a : ui64[2] = placeholder[capture 0]\n%r : (ui64[2], ui32[2,2]) = RngBits(%a, dtype=dtype(ui32), dims=[-2, 2])\noutput(%r#1; %a <- %r#0)",
	"%a : f32[2] = placeholder[capture 0]\n%r : (ui64[2], ui32[2,2]) = RngBits(%a, dtype=dtype(ui32), dims=[2, 2])\noutput(%r#1)",
	"%a : f32[2,1] = placeholder[arg 0]\n%b : f32[2,2] = Broadcast(%a, dims=[2, 2], bdims=[5, 1])\noutput(%b)",
	"%a : f32[2,1] = placeholder[arg 0]\n%b : f32[2,2] = Broadcast(%a, dims=[2, 2], bdims=[0])\noutput(%b)",
	"%a : f32[2,3] = placeholder[arg 0]\n%b : f32[7] = Reshape(%a, dims=[7])\noutput(%b)",
	"%a : f32[2,3] = placeholder[arg 0]\n%b : f32[6] = Reshape(%a, dims=[-1, -6])\noutput(%b)",
	"%x : f32[2,3] = placeholder[arg 0]\n%w : f32[3,4] = placeholder[capture 0]\n%d : f32[2,4] = DotGeneral(%x, %w, lhs_batch=[], rhs_batch=[], lhs_contract=[4], rhs_contract=[0])\noutput(%d)",
	"%x : f32[2,3] = placeholder[arg 0]\n%w : f32[3,4] = placeholder[capture 0]\n%d : f32[2,4] = DotGeneral(%x, %w, lhs_batch=[0], rhs_batch=[], lhs_contract=[1], rhs_contract=[0])\noutput(%d)",
	"%x : f32[2,3] = placeholder[arg 0]\n%c : f32[2,3] = Cast(%x, dtype=dtype(bogus))\noutput(%c)",
	"%x : f32[2,3] = placeholder[arg 0]\n%c : f32[2,3] = Compare(%x, %x, dir=\"XX\")\noutput(%c)",
	"%x : f32[2,3] = placeholder[arg 0]\n%c : f32[2,3] = Sort(%x, axis=4, descending=false)\noutput(%c)",
	"%x : f32[2,3] = placeholder[arg 0]\n%c : f32[2,3] = ReduceSum(%x, axes=[0, 0])\noutput(%c)",
	"%x : f32[2,3] = placeholder[arg 0]\n%c : f32[2,3] = ReduceSum(%x, axes=[8])\noutput(%c)",
	"%x : f32[2,3] = placeholder[arg 0]\n%i : i64[2,3] = placeholder[arg 1]\n%c : f32[2,3] = TakeAlong(%x, %i, axis=-3)\noutput(%c)",
	"%x : f32[2,3] = placeholder[arg 0]\n%c : f32[2,3] = HostFunc(%x)\noutput(%c)",
	"%x : f32[2,3] = placeholder[arg 0]\n%c : f32[2,3] = DeviceData(%x)\noutput(%c)",
	"%x : f32[2,3] = placeholder[arg 0]\n%c : f32[2,3] = Unique(%x)\noutput(%c)",
	"%x : f32[2,3] = placeholder[arg 0]\n%m : i1[2,3] = placeholder[arg 1]\n%c : f32[6] = MaskedSelect(%x, %m)\noutput(%c)",
	"%x : f32[1,1,4,4] = placeholder[arg 0]\n%w : f32[1,1,3,3] = placeholder[arg 1]\n%c : f32[1,1,2,2] = Conv(%x, %w)\noutput(%c)",
	"%x : f32[2] = placeholder[arg 0]\n%c : f32[2] = StopGradient(%x, %x)\noutput(%c)",
	"%x : f32[0] = placeholder[arg 0]\n%c : f32[0] = Neg(%x)\noutput(%c)",
	"%x : f32[] = placeholder[arg 0]\n%c : f32[] = ReduceSum(%x, axes=[])\noutput(%c, %x; %x <- %x)",
	"%a : f32[8,6] = placeholder[arg 0] sharding={devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}\n%w : f32[6] = placeholder[capture 0] sharding={devices=[4]0,1,2,3}\n%b : f32[8,6] = Sharding(%a, sharding=\"{replicated}\")\noutput(%b, %w)",
	"%a : f32[8,6] = placeholder[arg 0]\n%b : f32[8,6] = Sharding(%a, sharding=\"{devices=[9,9]0}\")\noutput(%b)",
	// A failed Check without op and msg attributes read "(): ".
	"%a : i64[4] = placeholder[arg 0]\n%b : i1[] = Constant(value=lit(i1[], [false]))\n%c : i64[4] = Check(%a, %b)\noutput(%c)",
}

// FuzzCompileParsed compiles whatever fx.Parse accepts: Compile, Discover
// (on the device and on nil), Partition and Compile of each device
// partition must answer an error or a result, never panic; a compiled
// program runs on zeros of its placeholders' shapes, again with an error
// or results.
func FuzzCompileParsed(f *testing.F) {
	for _, s := range compileSeeds {
		f.Add(s)
	}
	for _, name := range []string{"../fx/testdata/mlp.fx", "../partitioner/testdata/mixed.fx"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		// A golden partition file holds the graph, then a blank line and
		// the stages.
		text, _, _ := strings.Cut(string(b), "\n\n")
		f.Add(text)
	}
	files, _ := filepath.Glob("../fx/testdata/fuzz/FuzzParse/*")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if _, s, ok := strings.Cut(string(b), "string("); ok {
			if q, err := strconv.Unquote(strings.TrimSuffix(strings.TrimSpace(s), ")")); err == nil {
				f.Add(q)
			}
		}
	}
	dev := lazy.DevicesOf(host.NewClient(1))[0]
	old := lazy.DefaultDevice()
	lazy.SetDefaultDevice(dev) // the zeros, and Discover's nil device
	f.Cleanup(func() { lazy.SetDefaultDevice(old) })
	f.Fuzz(func(t *testing.T, text string) {
		g, err := fx.Parse(text)
		if err != nil {
			return
		}
		// Zeros for the placeholders, when they are small enough to build.
		var args, caps []*lazy.Tensor
		small := true
		for _, n := range g.Nodes {
			for _, s := range n.Shapes {
				if s.Size() < 0 || s.Size() > 1<<12 || len(s.Dims) > 6 {
					small = false
				}
			}
		}
		p, err := bridge.Compile(g, dev)
		checkErr(t, "Compile", err)
		if err == nil && small {
			for _, n := range g.Placeholders() {
				z := lazy.Zeros(n.Shapes[0].DType, n.Shapes[0].Dims...)
				if n.Input == fx.Capture {
					caps = append(caps, z)
				} else {
					args = append(args, z)
				}
			}
			// Placeholders are numbered 0..n-1 (Compile checked); put each
			// zero at its index.
			args, caps = byIndex(g, fx.Arg, args), byIndex(g, fx.Capture, caps)
			outs, err := p.Run(args, caps)
			checkErr(t, "Run", err)
			if err == nil {
				checkErr(t, "Sync", lazy.Sync(outs...))
			}
		}
		for _, d := range []*lazy.Device{dev, nil} {
			g2, err := fx.Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			host := partitioner.Discover(g2, d)
			plan, err := partitioner.Partition(g2, host)
			checkErr(t, "Partition", err)
			if err != nil || d == nil {
				continue
			}
			// The jit compiles each device partition.
			for _, st := range plan.Stages {
				if st.Device != nil {
					_, err := bridge.Compile(st.Device, dev)
					checkErr(t, "Compile of a partition", err)
				}
			}
		}
	})
}

// byIndex orders zs (one per placeholder of kind k, in node order) by the
// placeholders' indices.
func byIndex(g *fx.Graph, k fx.InputKind, zs []*lazy.Tensor) []*lazy.Tensor {
	out := make([]*lazy.Tensor, len(zs))
	i := 0
	for _, n := range g.Placeholders() {
		if n.Input == k {
			out[n.Index] = zs[i]
			i++
		}
	}
	return out
}

// checkErr fails on an error whose message says nothing.
func checkErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil && len(strings.TrimSpace(err.Error())) < 10 {
		t.Fatalf("%s: uninformative error %q", what, err)
	}
}
