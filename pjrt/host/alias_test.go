package host

import (
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// countingUp returns a buffer of n f32 values 1, 2, 3, ... on device 0.
func countingUp(c *Client, n int64) pjrt.Buffer {
	l := hlo.NewLiteral(hlo.F32, n)
	for k := range l.F32() {
		l.F32()[k] = float32(k + 1)
	}
	return c.WrapLiteral(l, 0)
}

// A fresh value returned twice gives two buffers with storage of their
// own: donating one must leave the other as it was, and the device counts
// both.
func TestDuplicateResultsDoNotShareStorage(t *testing.T) {
	const n = 1 << 14
	ft := hlo.NewTensorType(hlo.F32, n)
	b := newFunc("main", ft)
	neg := b.op("stablehlo.negate", ft, []*hlo.Value{b.arg(0)})
	m := module(b.ret(neg, neg))
	c, upd := sgdUpdate(t, n)
	x, err := c.Compile(m, pjrt.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := countingUp(c, n)
	out, err := x.Execute([]pjrt.Buffer{in}, pjrt.ExecuteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l0, l1 := out[0].(*Buffer).Literal(), out[1].(*Buffer).Literal()
	if &l0.Data[0] == &l1.Data[0] {
		t.Fatal("the two results share storage")
	}
	if !l0.Equal(l1) {
		t.Fatal("the two results differ")
	}
	if mi, _ := c.MemoryInfo(0); mi.BytesInUse != 3*4*n {
		t.Errorf("%d bytes in use, want %d (the input and two results)", mi.BytesInUse, 3*4*n)
	}
	g := countingUp(c, n)
	if _, err := upd.Execute([]pjrt.Buffer{out[0], g}, pjrt.ExecuteOptions{Donate: []int{0}}); err != nil {
		t.Fatal(err)
	}
	if v := l1.F32()[:2]; v[0] != -1 || v[1] != -2 {
		t.Errorf("the result kept changed when the other was donated: %v, want [-1 -2]", v)
	}
}

// A donated buffer must be passed once: the program writes results over a
// donated argument once that argument is dead, which another position
// reading the same storage would see. The execution is refused, and the
// buffer stays valid and unchanged.
func TestDonatedBufferPassedTwiceIsRejected(t *testing.T) {
	const n = 1024
	ft := hlo.NewTensorType(hlo.F32, n)
	b := newFunc("main", ft, ft)
	neg := b.op("stablehlo.negate", ft, []*hlo.Value{b.arg(0)})
	m := module(b.ret(neg, b.arg(1)))
	c := NewClient(1)
	x, err := c.Compile(m, pjrt.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, v := countingUp(c, n), countingUp(c, n)
	for _, tc := range []struct {
		args   []pjrt.Buffer
		donate []int
		want   string
	}{
		{[]pjrt.Buffer{w, w}, []int{0}, "argument 0 is donated, but its buffer is also argument 1"},
		{[]pjrt.Buffer{w, w}, []int{1}, "argument 1 is donated, but its buffer is also argument 0"},
		{[]pjrt.Buffer{w, w}, []int{0, 1}, "argument 0 is donated, but its buffer is also argument 1"},
		{[]pjrt.Buffer{w, v}, []int{0, 0}, "argument 0 is donated twice"},
	} {
		_, err := x.Execute(tc.args, pjrt.ExecuteOptions{Donate: tc.donate})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("donating %v of the same buffer twice: error %v, want one containing %q", tc.donate, err, tc.want)
		}
		got, err := w.ToHost()
		if err != nil {
			t.Fatalf("after a refused execution: %v", err)
		}
		if f := got.F32(); f[0] != 1 || f[n-1] != n {
			t.Fatalf("a refused execution changed the buffer: %v ... %v", f[0], f[n-1])
		}
	}
	// Passed twice and donated nowhere is fine.
	out, err := x.Execute([]pjrt.Buffer{w, w}, pjrt.ExecuteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f := out[1].(*Buffer).Literal().F32(); f[0] != 1 {
		t.Errorf("argument 1 read back as %v, want 1", f[0])
	}
}
