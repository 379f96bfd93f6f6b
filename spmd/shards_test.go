package spmd

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host"
)

// spmdDevice returns the SPMD device of a new embedded client with n
// devices.
func spmdDevice(n int) *lazy.Device { return lazy.SPMDDevice(host.NewClient(n)) }

func arange(dev *lazy.Device, n int, dims ...int64) *lazy.Tensor {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i)
	}
	if len(dims) == 0 {
		dims = []int64{int64(n)}
	}
	return lazy.FromLiteralOn(dev, hlo.LiteralFromSlice(xs, dims...))
}

// The shard expectations of test_xla_sharding.py (test_xla_shards,
// test_padded_xla_shards, test_replicated_xla_shards,
// test_partially_replicated_xla_shards, test_mark_sharding_partial).
func TestShardsOfTensors(t *testing.T) {
	const n = 4
	dev := spmdDevice(n)
	mesh := MustMesh(ids(n), []int{n})

	x := arange(dev, n)
	MustMark(x, mesh, 0)
	shards, err := Shards(x)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range shards {
		if got := s.Data.F32(); !slices.Equal(got, []float32{float32(i)}) || s.ReplicaID != 0 || s.Indices[0] != [2]int64{int64(i), int64(i + 1)} {
			t.Errorf("xla shards: shard %d = %v %v replica %d", i, got, s.Indices, s.ReplicaID)
		}
	}

	x = arange(dev, n+1)
	MustMark(x, mesh, 0)
	shards, _ = Shards(x)
	want := [][]float32{{0, 1}, {2, 3}, {4, 0}, {0, 0}}
	for i, s := range shards {
		if got := s.Data.F32(); !slices.Equal(got, want[i]) {
			t.Errorf("padded shards: shard %d = %v, want %v", i, got, want[i])
		}
	}
	if got := shards[2].Unpadded().F32(); !slices.Equal(got, []float32{4}) {
		t.Errorf("unpadded shard 2 = %v", got)
	}

	x = arange(dev, n)
	MustMark(x, mesh, nil)
	shards, _ = Shards(x)
	for i, s := range shards {
		if got := s.Data.F32(); !slices.Equal(got, []float32{0, 1, 2, 3}) || s.ReplicaID != i || s.Indices[0] != [2]int64{0, 4} {
			t.Errorf("replicated shards: shard %d = %v %v replica %d", i, got, s.Indices, s.ReplicaID)
		}
	}

	m2 := MustMesh(ids(n), []int{n / 2, 2})
	x = arange(dev, 256, 16, 16)
	MustMark(x, m2, nil, 1)
	shards, _ = Shards(x)
	for i, s := range shards {
		col := int64(i%2) * 8
		if !slices.Equal(s.Data.Dims, []int64{16, 8}) || s.Indices[1] != [2]int64{col, col + 8} || s.ReplicaID != i/2 {
			t.Errorf("partially replicated: shard %d dims %v indices %v replica %d", i, s.Data.Dims, s.Indices, s.ReplicaID)
		}
		if s.Data.F32()[0] != float32(col) {
			t.Errorf("partially replicated: shard %d starts with %v, want %d", i, s.Data.F32()[0], col)
		}
	}

	x = arange(dev, 16, 4, 4)
	MustMark(x, m2, 0, nil)
	shards, _ = Shards(x)
	if !slices.Equal(shards[0].Data.F32(), shards[1].Data.F32()) || slices.Equal(shards[0].Data.F32(), shards[2].Data.F32()) {
		t.Errorf("partial (0, None): shards 0 and 1 must be equal, 2 differ: %v %v %v", shards[0].Data, shards[1].Data, shards[2].Data)
	}
	got, err := x.Literal()
	if err != nil || !slices.Equal(got.F32(), arange(dev, 16, 4, 4).MustLiteral().F32()) {
		t.Errorf("assembled tensor %v, %v", got, err)
	}
}

func TestMarkShardingMovesData(t *testing.T) {
	dev := spmdDevice(4)
	mesh := MustMesh(ids(4), []int{2, 2}, "data", "model")
	x := arange(dev, 48, 8, 6)
	if err := MarkSharding(x, mesh, "data", "model"); err != nil {
		t.Fatal(err)
	}
	if got := ShardingText(x); got != "{devices=[2,2]0,1,2,3}" {
		t.Errorf("sharding %s", got)
	}
	// Same sharding: a no-op; another tiled one: an error until cleared.
	if err := MarkSharding(x, mesh, "data", "model"); err != nil {
		t.Errorf("re-marking with the same sharding: %v", err)
	}
	if err := MarkSharding(x, mesh, "model", "data"); err == nil {
		t.Error("re-marking with another sharding must ask to clear first")
	}
	ClearSharding(x)
	if err := MarkSharding(x, mesh, "model", "data"); err != nil {
		t.Errorf("after clearing: %v", err)
	}
	if got := ShardingText(x); got != "{devices=[2,2]0,2,1,3}" {
		t.Errorf("sharding after re-marking %s", got)
	}
	l := x.MustLiteral()
	for i, v := range l.F32() {
		if v != float32(i) {
			t.Fatalf("element %d = %v after resharding", i, v)
		}
	}
	// Errors name the op; a tensor of another device is refused.
	y := lazy.FromSlice([]float32{1, 2})
	if err := MarkSharding(y, MustMesh(ids(1), []int{1}), 0); err == nil {
		t.Error("marking a tensor of a plain device must fail")
	}
	if err := MarkSharding(x, MustMesh(ids(2), []int{2}), 0, nil); err == nil {
		t.Error("a mesh not covering the SPMD device must fail")
	}
}

// test_from_cpu_shards_global_shape.
func TestFromShardsGlobalShape(t *testing.T) {
	const n = 4
	dev := spmdDevice(n)
	s, _ := MustMesh(ids(n), []int{n}).Sharding(1, 0)
	shards := make([]*lazy.Literal, n)
	for i := range shards {
		xs := make([]float32, n)
		for k := range xs {
			xs[k] = float32(i*n + k)
		}
		shards[i] = hlo.LiteralFromSlice(xs)
	}
	x, err := FromShards(dev, shards, s)
	if err != nil {
		t.Fatal(err)
	}
	got := x.MustLiteral().F32()
	for k, v := range got {
		if v != float32(k) {
			t.Fatalf("element %d = %v", k, v)
		}
	}
	for delta := int64(1); delta < n; delta++ {
		y, err := FromShards(dev, shards, s, n*n-delta)
		if err != nil {
			t.Fatalf("global %d: %v", n*n-delta, err)
		}
		if l := y.MustLiteral(); len(l.F32()) != int(n*n-delta) || l.F32()[n*n-delta-1] != float32(n*n-delta-1) {
			t.Errorf("global %d: %v", n*n-delta, l)
		}
	}
	if _, err := FromShards(dev, shards, s, n*n-n); err == nil {
		t.Error("a global shape the padding cannot explain must fail")
	}
}

func TestNilArguments(t *testing.T) {
	dev := spmdDevice(2)
	mesh := MustMesh(ids(2), []int{2})
	x := arange(dev, 4)
	if err := MarkSharding(nil, mesh, 0); err == nil {
		t.Error("nil tensor")
	}
	if err := MarkSharding(x, nil, 0); err == nil {
		t.Error("nil mesh")
	}
	if _, err := Shards(nil); err == nil {
		t.Error("Shards(nil)")
	}
	if _, err := EnableManualSharding(nil, mesh, 0); err == nil || !strings.Contains(err.Error(), "EnableManualSharding") {
		t.Errorf("EnableManualSharding(nil): err = %v, want one naming EnableManualSharding", err)
	}
	if _, err := FromLiteral(dev, nil, mesh, 0); err == nil {
		t.Error("FromLiteral of nil")
	}
	if _, err := FromShards(dev, []*lazy.Literal{nil, nil}, x.Sharding()); err == nil {
		t.Error("FromShards of nil shards")
	}
	if err := (*lazy.Tensor)(nil).MarkSharding(x.Sharding()); err == nil {
		t.Error("lazy MarkSharding on nil")
	}
	if got := VisualizeTensor(nil); got == "" {
		t.Error("VisualizeTensor(nil)")
	}
	// A failed mark leaves the tensor as it was.
	before := x.Sharding().String()
	if err := MarkSharding(x, mesh, 0, 1); err == nil {
		t.Error("spec longer than the rank")
	}
	if x.Sharding().String() != before || x.ShardingSpec() != nil {
		t.Errorf("failed mark changed the tensor: %s", x.Sharding())
	}
}

// A failed FromShards leaves every device's memory as it was: a shard of
// another element type or shape found after the first ones is an error
// before anything is uploaded.
func TestFromShardsFailureUploadsNothing(t *testing.T) {
	const n = 4
	dev := spmdDevice(n)
	s, _ := MustMesh(ids(n), []int{n}).Sharding(1, 0)
	inUse := func() []int64 {
		var out []int64
		for d := 0; d < n; d++ {
			m, err := dev.Client().MemoryInfo(d)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, m.BytesInUse)
		}
		return out
	}
	before := fmt.Sprint(inUse())
	lit := func(dt hlo.DType, k int64) *lazy.Literal { return hlo.NewLiteral(dt, k) }
	const k = 1 << 18 // 1 MiB of f32: buffers this large are accounted
	for _, shards := range [][]*lazy.Literal{
		{lit(hlo.F32, k), lit(hlo.F32, k), lit(hlo.I32, k), lit(hlo.F32, k)},
		{lit(hlo.F32, k), lit(hlo.F32, k), lit(hlo.F32, k), lit(hlo.F32, k-1)},
	} {
		if _, err := FromShards(dev, shards, s); err == nil || !strings.Contains(err.Error(), "shard") {
			t.Errorf("FromShards of mismatched shards: err = %v", err)
		}
		if got := fmt.Sprint(inUse()); got != before {
			t.Errorf("bytes in use per device %s after the failed FromShards, %s before", got, before)
		}
	}
}

// A global shape with a negative dimension is refused, even where the
// shards' padding would fit it.
func TestFromShardsNegativeGlobalShape(t *testing.T) {
	const n = 4
	dev := spmdDevice(n)
	s, _ := MustMesh(ids(n), []int{n}).Sharding(1, 0)
	shards := make([]*lazy.Literal, n)
	for i := range shards {
		shards[i] = hlo.NewLiteral(hlo.F32, 0)
	}
	if x, err := FromShards(dev, shards, s, -3); err == nil || !strings.Contains(err.Error(), "-3") {
		t.Errorf("FromShards with global shape [-3] = %v, %v", x.Dims(), err)
	}
}

// Visualize draws a maximal sharding as the whole tensor on its one
// device and a manual one as manual, not as replicated.
func TestVisualizeMaximalAndManual(t *testing.T) {
	if got := Visualize(pjrt.Maximal(2), []int64{4, 6}); !strings.Contains(got, "dev 2 [0:4][0:6]") || strings.Contains(got, "replicated") {
		t.Errorf("Visualize(maximal device=2):\n%s", got)
	}
	if got := Visualize(pjrt.Manual(), []int64{4, 6}); !strings.Contains(got, "manual") || strings.Contains(got, "replicated") {
		t.Errorf("Visualize(manual):\n%s", got)
	}
	if got := Visualize(pjrt.Replicated(), []int64{4, 6}); !strings.Contains(got, "replicated") {
		t.Errorf("Visualize(replicated):\n%s", got)
	}
}
