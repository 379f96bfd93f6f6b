package lazy

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host"
)

var updateSPMD = flag.Bool("update-spmd", false, "rewrite testdata/spmd golden files")

// annotateReplicated wraps x in a Sharding annotation (replicated), on any
// device: there it is the identity.
func annotateReplicated(x *Tensor) *Tensor {
	return newPending(shardingValue(x.value(), pjrt.Replicated()), x.dev)
}

func TestShardingAnnotationIsIdentity(t *testing.T) {
	x := FromSlice([]float32{1, -2, 3, 4}, 2, 2)
	y := annotateReplicated(x.Neg())
	if got := y.Float32s(); got[0] != -1 || got[1] != 2 || got[3] != -4 {
		t.Errorf("annotated value %v", got)
	}
	out, err := RunGoKernel(table[opSharding], Attrs{{Key: "sharding", Val: "{replicated}"}}, []*hlo.Literal{x.MustLiteral()})
	if err != nil || !out[0].Equal(x.MustLiteral()) {
		t.Errorf("host kernel %v, %v", out, err)
	}
	if _, err := Try1(func() *Tensor {
		return newPending(Value{newNodeOf(table[opSharding], Attrs{{Key: "sharding", Val: "{devices=[2"}}, []Value{x.value()}), 0}, x.dev)
	}); err == nil {
		t.Error("a malformed sharding text must be rejected")
	}
}

// Try1 runs f, returning its panic as an error.
func Try1(f func() *Tensor) (t *Tensor, err error) {
	err = Try(func() { t = f() })
	return
}

// test_shard_hashing: the same graph over sharded and replicated data
// hashes differently; over the same layouts alike.
func TestSPMDHashIncludesSharding(t *testing.T) {
	dev := SPMDDevice(host.NewClient(4))
	l := hlo.LiteralFromSlice(make([]float32, 32), 8, 4)
	rows, _ := pjrt.Tiled([]int64{4, 1}, []int64{0, 1, 2, 3})
	cols, _ := pjrt.Tiled([]int64{1, 4}, []int64{0, 1, 2, 3})
	hash := func(s *Sharding) Hash {
		x, err := FromLiteralSharded(dev, l, s)
		if err != nil {
			t.Fatal(err)
		}
		y := x.Exp().Sum()
		return CollectGraph([]Value{y.Value()}).Hash
	}
	r1, r2, c1, rep := hash(rows), hash(rows), hash(cols), hash(pjrt.Replicated())
	if r1 != r2 {
		t.Error("same program, same layout: hashes differ")
	}
	if r1 == c1 || r1 == rep || c1 == rep {
		t.Error("other layouts must hash differently")
	}
	plain := FromLiteral(l)
	if CollectGraph([]Value{plain.Exp().Sum().Value()}).Hash == rep {
		t.Error("an SPMD graph must not hash as a one-device graph")
	}
}

// TestSPMDLoweringGolden pins the StableHLO of an SPMD graph: parameters
// with mhlo.sharding, an intermediate @Sharding custom call, a result
// sharding, and the partition counts.
func TestSPMDLoweringGolden(t *testing.T) {
	dev := SPMDDevice(host.NewClient(4))
	tiled, _ := pjrt.PartialTiled([]int64{2, 1, 2}, []int64{0, 1, 2, 3})
	x, err := FromLiteralSharded(dev, hlo.LiteralFromSlice(make([]float32, 48), 8, 6), tiled)
	if err != nil {
		t.Fatal(err)
	}
	w := FromLiteralOn(dev, hlo.LiteralFromSlice(make([]float32, 18), 6, 3))
	h := x.MatMul(w)
	four, _ := pjrt.Tiled([]int64{2, 2}, []int64{0, 1, 2, 3})
	if err := h.MarkSharding(four); err != nil {
		t.Fatal(err)
	}
	y := h.ReLU()
	rows, _ := pjrt.Tiled([]int64{4, 1}, []int64{0, 1, 2, 3})
	if err := y.MarkSharding(rows); err != nil {
		t.Fatal(err)
	}
	g := CollectGraph([]Value{y.Value()})
	m, err := g.Lower("spmd")
	if err != nil {
		t.Fatal(err)
	}
	got := m.String()
	path := filepath.Join("testdata", "spmd", "lowering.mlir")
	if *updateSPMD {
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(got), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-spmd)", err)
	}
	if got != string(want) {
		t.Errorf("lowering differs from %s:\n%s", path, got)
	}
	for _, s := range []string{`mhlo.num_partitions = 4 : i32`, `{mhlo.sharding = "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}"}`, `@Sharding`, `{mhlo.sharding = "{devices=[4,1]0,1,2,3}"}`} {
		if !strings.Contains(got, s) {
			t.Errorf("lowering lacks %s", s)
		}
	}
	// The module parses back as it prints (what a PJRT plugin receives).
	if _, err := hlo.ParseModule("lowering.mlir", []byte(got)); err != nil {
		t.Errorf("printed module does not parse: %v", err)
	}
	// And the embedded device computes it.
	if _, err := y.Literal(); err != nil {
		t.Errorf("executing: %v", err)
	}
}

// On one device a manual region of a replicated sharding is the identity;
// other devices refuse manual sharding.
func TestManualRegionOneDevice(t *testing.T) {
	x := FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	r := pjrt.Replicated()
	y := shardToFull(fullToShard(x, r).MulScalar(2), r, x.Dims())
	if got := y.Float32s(); got[3] != 8 {
		t.Errorf("manual region %v", got)
	}
	if _, err := x.EnableManualSharding(r); err == nil {
		t.Error("EnableManualSharding on a plain device must fail")
	}
	if _, err := Try1(func() *Tensor { return shardToFull(x, r, []int64{4, 4}) }); err == nil {
		t.Error("a manual shape that is no shard of the full one must fail")
	}
}

// manualRegionTanh is tanh inside a one-device manual region (a gradient
// case: the region's VJPs are each other).
func manualRegionTanh(x []*Tensor) *Tensor {
	r := pjrt.Replicated()
	return shardToFull(fullToShard(x[0], r).Tanh(), r, x[0].Dims())
}
