package spmd

import (
	"math"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
)

func randLit(seed int, dims ...int64) *hlo.Literal {
	l := hlo.NewLiteral(hlo.F32, dims...)
	x := uint32(seed*7919 + 17)
	for i := range l.F32() {
		x = x*1664525 + 1013904223
		l.F32()[i] = float32(int(x>>24)%17-8) / 8
	}
	return l
}

func closeSlices(a, b []float32, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > tol*(1+math.Abs(float64(b[i]))) {
			return false
		}
	}
	return true
}

func TestMLPOnSPMDDevice(t *testing.T) {
	dev := spmdDevice(4)
	mesh := MustMesh(ids(4), []int{4}, "model")
	xl, w1l, w2l := randLit(1, 6, 8), randLit(2, 8, 12), randLit(3, 12, 5)
	forward := func(x, w1, w2 *lazy.Tensor) *lazy.Tensor {
		return x.MatMul(w1).ReLU().MatMul(w2)
	}
	want := forward(lazy.FromLiteral(xl), lazy.FromLiteral(w1l), lazy.FromLiteral(w2l)).MustLiteral().F32()

	x := lazy.FromLiteralOn(dev, xl)
	w1 := lazy.FromLiteralOn(dev, w1l)
	w2 := lazy.FromLiteralOn(dev, w2l)
	MustMark(w1, mesh, nil, "model")
	MustMark(w2, mesh, "model", nil)
	y := forward(x, w1, w2)
	got := y.MustLiteral().F32()
	if !closeSlices(got, want, 1e-5) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if s := y.Sharding(); !s.IsReplicated() {
		t.Errorf("output sharding %s", s)
	}
}

// runBoth builds f on a plain device and on the SPMD device (where mark
// lays out its inputs) and returns both results and the reshards the
// SPMD compile counted.
func runBoth(t *testing.T, n int, f func(dev *lazy.Device, mark func(x *lazy.Tensor, spec ...any) *lazy.Tensor) *lazy.Tensor) (got, want *hlo.Literal, reshards int64) {
	t.Helper()
	dev := spmdDevice(n)
	plain := lazy.DevicesOf(dev.Client())[0]
	mesh := MustMesh(ids(n), []int{n}, "data")
	want = f(plain, func(x *lazy.Tensor, spec ...any) *lazy.Tensor { return x }).MustLiteral()
	before := reshardCounters()
	y := f(dev, func(x *lazy.Tensor, spec ...any) *lazy.Tensor { return MustMark(x, mesh, spec...) })
	got = y.MustLiteral()
	for _, v := range diffCounters(before, reshardCounters()) {
		reshards += v
	}
	return got, want, reshards
}

// A batch-sharded convolution, pooling and bias: local on each device.
func TestBatchShardedConvolution(t *testing.T) {
	got, want, reshards := runBoth(t, 4, func(dev *lazy.Device, mark func(*lazy.Tensor, ...any) *lazy.Tensor) *lazy.Tensor {
		x := mark(lazy.FromLiteralOn(dev, randLit(1, 8, 3, 10, 10)), "data", nil, nil, nil)
		w := lazy.FromLiteralOn(dev, randLit(2, 4, 3, 3, 3))
		b := lazy.FromLiteralOn(dev, randLit(3, 4))
		y := lazy.Conv2d(x, w, b, lazy.Conv2dOpts{Padding: [2]int64{1, 1}}).ReLU()
		return y.MaxPool2d([2]int64{2, 2}, [2]int64{2, 2}, [2]int64{0, 0}).Sum(1, 2, 3)
	})
	if !closeSlices(got.F32(), want.F32(), 1e-5) {
		t.Errorf("got %v\nwant %v", got.F32(), want.F32())
	}
	if reshards != 0 {
		t.Errorf("%d reshards in a batch-sharded convolution", reshards)
	}
}

// Random numbers on the SPMD device are the ones one device draws from
// the same seed, whatever the layout of the tensors they meet.
func TestRandomOpsOnSPMDDevice(t *testing.T) {
	got, want, _ := runBoth(t, 4, func(dev *lazy.Device, mark func(*lazy.Tensor, ...any) *lazy.Tensor) *lazy.Tensor {
		dev.ManualSeed(42)
		x := mark(lazy.FromLiteralOn(dev, randLit(4, 8, 6)), "data", nil)
		return x.Add(lazy.RandNOn(dev, lazy.F32, 8, 6)).Dropout(0.5, true)
	})
	if !closeSlices(got.F32(), want.F32(), 1e-6) {
		t.Errorf("got %v\nwant %v", got.F32(), want.F32())
	}
}

// A run-time check (a label out of range) fails on the SPMD device as on
// one device.
func TestRunTimeChecksOnSPMDDevice(t *testing.T) {
	dev := spmdDevice(4)
	mesh := MustMesh(ids(4), []int{4}, "data")
	logits := MustMark(lazy.FromLiteralOn(dev, randLit(5, 6, 3)), mesh, "data", nil)
	labels := MustMark(lazy.FromLiteralOn(dev, hlo.LiteralFromSlice([]int32{0, 1, 2, 7, 1, 0})), mesh, "data")
	_, err := lazy.CrossEntropy(logits, labels).Literal()
	if err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("err = %v, want the label range check", err)
	}
	ok := MustMark(lazy.FromLiteralOn(dev, hlo.LiteralFromSlice([]int32{0, 1, 2, 2, 1, 0})), mesh, "data")
	if _, err := lazy.CrossEntropy(logits, ok).Literal(); err != nil {
		t.Errorf("valid labels: %v", err)
	}
}

// UseSPMD makes the SPMD device of the default client the default device.
func TestUseSPMD(t *testing.T) {
	prev := lazy.DefaultDevice()
	defer lazy.SetDefaultDevice(prev)
	dev, err := UseSPMD()
	if err != nil {
		t.Fatal(err)
	}
	if lazy.DefaultDevice() != dev || !dev.IsSPMD() || dev.String() != "SPMD:0" {
		t.Fatalf("default device %s", lazy.DefaultDevice())
	}
	x := lazy.FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	if x.Device() != dev || !x.Sharding().IsReplicated() {
		t.Errorf("new tensor on %s with sharding %s", x.Device(), x.Sharding())
	}
	mesh, _ := Mesh1D(dev.NumShards(), "data")
	MustMark(x, mesh, "data", nil)
	if got := x.MatMul(x).Sum().Item(); got != 54 {
		t.Errorf("sum of x@x = %v, want 54", got)
	}
}

// test_manual_sharding_e2e: 8x8 cut over (1, n) by (0, 1): the manual
// tensor is each device's (8, 8/n) piece; +1 inside; back to full it is
// x+1. A manual value cannot leave a program as it is.
func TestManualShardingE2E(t *testing.T) {
	const n = 4
	dev := spmdDevice(n)
	mesh := MustMesh(ids(n), []int{1, n})
	x := arange(dev, 64, 8, 8)
	m, err := EnableManualSharding(x, mesh, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := m.Dims(); d[0] != 8 || d[1] != 8/n {
		t.Fatalf("manual tensor dims %v", d)
	}
	y, err := DisableManualSharding(m.AddScalar(1), mesh, []int64{8, 8}, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := y.MustLiteral().F32()
	for i, v := range got {
		if v != float32(i+1) {
			t.Fatalf("element %d = %v, want %d", i, v, i+1)
		}
	}
	if s := y.Sharding().String(); s != "{devices=[1,4]0,1,2,3}" {
		t.Errorf("result sharding %s", s)
	}
	// Each device's piece: a per-device sum inside the region sees only
	// its columns.
	m2, _ := EnableManualSharding(x, mesh, 0, 1)
	colSums := m2.Sum(0).Reshape(1, 8/n)
	z, err := DisableManualSharding(colSums, mesh, []int64{1, 8}, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := arange(plainOf(dev), 64, 8, 8).Sum(0).MustLiteral().F32()
	if got := z.MustLiteral().F32(); !closeSlices(got, want, 0) {
		t.Errorf("per-device column sums %v, want %v", got, want)
	}
	// A manual value as a result is an error, not garbage.
	m3, _ := EnableManualSharding(x, mesh, 0, 1)
	if _, err := m3.AddScalar(1).Literal(); err == nil || !strings.Contains(err.Error(), "manual") {
		t.Errorf("reading a manual value: %v", err)
	}
	if _, err := EnableManualSharding(lazy.FromSlice([]float32{1}), MustMesh(ids(1), []int{1}), 0); err == nil {
		t.Error("manual sharding of a plain device's tensor must fail")
	}
}

func plainOf(dev *lazy.Device) *lazy.Device { return lazy.DevicesOf(dev.Client())[0] }
