package jit_test

import (
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// A call whose argument became a written capture of its function after
// its signature was traced (another signature's trace writes that tensor
// through the closure) replays the entry traced before, whatever the
// number of captures known then and now, instead of tracing again.
func TestCallFindsEntryTracedWithFewerWrittenCaptures(t *testing.T) {
	caps := make([]*lazy.Tensor, 10)
	for i := range caps {
		caps[i] = lazy.FromSlice([]float32{float32(i)})
	}
	// mode 0 doubles its argument; mode 1 adds it to caps[:3]; mode 2
	// adds it to caps[3:].
	f := jit.Compile(func(x *lazy.Tensor, mode int) {
		switch mode {
		case 0:
			x.Assign(x.Add(x))
		case 1:
			for _, c := range caps[:3] {
				c.Assign(c.Add(x))
			}
		case 2:
			for _, c := range caps[3:] {
				c.Assign(c.Add(x))
			}
		}
	})
	one := lazy.FromSlice([]float32{1})
	f(one, 1)     // trace 1: caps[0..2] are written captures
	f(caps[5], 0) // trace 2, keyed with 3 written captures, none of them its argument
	f(one, 2)     // trace 3: caps[3..9] are written captures too; caps[5] is one
	f(caps[5], 0) // its key now marks its argument as capture 5: the entry of trace 2 serves it
	f(caps[5], 0)
	f(caps[1], 0) // trace 4? no: caps[1] was already a written capture at trace 2's key
	if s := jit.StatsOf(f); s.Traces != 4 {
		t.Errorf("stats %s, want 4 traces (modes 1, 2, mode 0 with caps[5] and with caps[1])", s)
	}
	// caps[5]: 5, doubled, +1, doubled twice; caps[1]: 1+1, doubled.
	if got := readValues(caps[5]); got != "[44]" {
		t.Errorf("caps[5] = %s, want [44]", got)
	}
	if got := readValues(caps[1]); got != "[4]" {
		t.Errorf("caps[1] = %s, want [4]", got)
	}
}
