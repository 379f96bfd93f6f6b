package spmd

import (
	"os"
	"strconv"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host"
)

// weightBytes is the size of the weight of TestShardedWeightMemory: 64 MiB
// so that CI (-race, two cores) stays fast; XLAJIT_SPMD_WEIGHT_BYTES=1073741824
// runs the 1 GiB case.
func weightBytes() int64 {
	if s := os.Getenv("XLAJIT_SPMD_WEIGHT_BYTES"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 1<<20 {
			return n
		}
	}
	return 64 << 20
}

// TestShardedWeightMemory: a weight cut in two over two devices takes half
// its bytes on each device, whether uploaded as shards or marked after a
// replicated upload (the whole copies are freed), and a program over it
// works on the shards only.
func TestShardedWeightMemory(t *testing.T) {
	size := weightBytes()
	cols := int64(1024)
	rows := size / 4 / cols
	c := host.NewClient(2)
	dev := lazy.SPMDDevice(c)
	mesh := MustMesh([]int{0, 1}, []int{2}, "model")
	inUse := func(d int) int64 {
		m, err := c.MemoryInfo(d)
		if err != nil {
			t.Fatal(err)
		}
		return m.BytesInUse
	}
	l := hlo.NewLiteral(hlo.F32, rows, cols)
	for i := range l.F32() {
		l.F32()[i] = float32(i%7) - 3
	}
	half := float64(size) / 2
	near := func(what string, got int64, want float64) {
		t.Helper()
		if float64(got) < 0.99*want || float64(got) > 1.01*want+(1<<20) {
			t.Errorf("%s: %d bytes, want about %.0f", what, got, want)
		} else {
			t.Logf("%s: %d bytes (%.3f of the weight)", what, got, float64(got)/float64(size))
		}
	}
	base := [2]int64{inUse(0), inUse(1)}

	w, err := FromLiteral(dev, l, mesh, "model", nil)
	if err != nil {
		t.Fatal(err)
	}
	for d := 0; d < 2; d++ {
		near("uploaded as shards, device "+strconv.Itoa(d), inUse(d)-base[d], half)
	}

	// Replicated upload, then marked: the whole copies go.
	v := lazy.FromLiteralOn(dev, l)
	for d := 0; d < 2; d++ {
		near("replicated copy, device "+strconv.Itoa(d), inUse(d)-base[d], half+float64(size))
	}
	if err := MarkSharding(v, mesh, "model", nil); err != nil {
		t.Fatal(err)
	}
	for d := 0; d < 2; d++ {
		near("marked, device "+strconv.Itoa(d), inUse(d)-base[d], 2*half)
	}

	// A program over the shards: each device's peak grows by its work on
	// its shard, never by a whole copy.
	before := [2]int64{inUse(0), inUse(1)}
	for d := 0; d < 2; d++ {
		if err := pjrt.ResetPeakBytes(c, d); err != nil {
			t.Fatal(err)
		}
	}
	y := w.Mul(v).Sum(1)
	if err := lazy.Sync(y); err != nil {
		t.Fatal(err)
	}
	for d := 0; d < 2; d++ {
		m, _ := c.MemoryInfo(d)
		grew := m.PeakBytes - before[d]
		t.Logf("program peak on device %d: +%d bytes (%.3f of the weight)", d, grew, float64(grew)/float64(size))
		if float64(grew) > 0.6*float64(size) {
			t.Errorf("device %d: the program's peak grew by %d bytes, more than a shard (%.0f)", d, grew, half)
		}
	}
	if s := y.Sharding().String(); s != "{devices=[2]0,1}" {
		t.Errorf("row sums laid out as %s, want the rows' cut", s)
	}
	got := y.MustLiteral()
	want := int64(0)
	for k := int64(0); k < cols; k++ {
		x := float32(k%7) - 3
		want += int64(x * x)
	}
	if got.F32()[0] != float32(want) {
		t.Errorf("row 0 sum %v, want %v", got.F32()[0], want)
	}
}
