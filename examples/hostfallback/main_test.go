package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt/host"
)

// freshDevice makes a new embedded device the default for the test: its
// compile cache is empty, so uncached-compile counts do not depend on what
// ran before in this process (-count=N).
func freshDevice(t *testing.T) {
	old := lazy.DefaultDevice()
	lazy.SetDefaultDevice(lazy.DevicesOf(host.NewClient(1))[0])
	t.Cleanup(func() { lazy.SetDefaultDevice(old) })
}

// TestRun checks the partitioned behaviour: the first call traces (running
// the data-dependent host ops once to learn their shapes) and compiles the
// two device partitions; replays execute both partitions and each host node
// once without compiling; an input with another number of active entries
// compiles one variant of the partition after MaskedSelect; every result
// equals eager mode's.
func TestRun(t *testing.T) {
	freshDevice(t)
	var out bytes.Buffer
	const calls = 3
	res, err := run(config{Rows: 32, Dim: 8, Cols: 4, Calls: calls, Threshold: 0.5, Seed: 1, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	if len(res.Calls) != calls+1 {
		t.Fatalf("%d calls recorded", len(res.Calls))
	}
	for i, c := range res.Calls {
		if !c.MatchesEg {
			t.Errorf("call %d: result differs from eager mode", i+1)
		}
		if c.Active == 0 {
			t.Errorf("call %d: no active entries: the test data exercises nothing", i+1)
		}
	}
	if c := res.Calls[0]; c.JitComp != 2 || c.Compiles < 2 || c.HostFunc != 1 || c.NonZero < 1 {
		t.Errorf("first call: %+v, want 2 device programs and one HostFunc run", c)
	}
	for i, c := range res.Calls[1:calls] {
		want := callRecord{Input: "x1", Active: res.Calls[0].Active, Executes: 2, NonZero: 1, Masked: 1, HostFunc: 1, MatchesEg: true}
		if c != want {
			t.Errorf("replay %d: %+v, want %+v", i+2, c, want)
		}
	}
	last := res.Calls[calls]
	if last.Active == res.Calls[0].Active {
		t.Fatalf("x2 has as many active entries as x1 (%d): pick other data", last.Active)
	}
	if last.JitComp != 0 || !last.MatchesEg {
		t.Errorf("new data-dependent shape: %+v, want a lazy call (no new jit program) with the eager result", last)
	}
	s := res.Stats
	if s.Traces != 1 || s.Compiles != 2 || s.Replays != calls || s.GraphBreaks != 0 {
		t.Errorf("stats %s", s)
	}
	if !strings.Contains(res.Explain, "lazy call: host op") {
		t.Errorf("Explain does not name the lazy call:\n%s", res.Explain)
	}
}

func TestColumnMedian(t *testing.T) {
	for _, c := range []struct {
		rows int64
		in   []float32
		want string
	}{
		{3, []float32{1, 5, 3, 2, 2, 9}, "[2 5]"},
		{4, []float32{4, 0, 1, 8, 3, -1, 2, 6}, "[2.5 3]"},
	} {
		out, err := columnMedian([]*hlo.Literal{hlo.LiteralFromSlice(c.in, c.rows, 2)})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(out[0].F32()); got != c.want {
			t.Errorf("median of %v = %s, want %s", c.in, got, c.want)
		}
	}
	if _, err := columnMedian([]*hlo.Literal{hlo.LiteralFromSlice([]float32{1, 2}, 2)}); err == nil {
		t.Error("a vector was accepted")
	}
}

// TestEmptySizes: x of no rows (the median of an empty column indexed
// past its end) or any size below one is an error naming it.
func TestEmptySizes(t *testing.T) {
	freshDevice(t)
	for _, c := range []config{{Rows: 0, Dim: 8, Cols: 4, Calls: 1}, {Rows: 4, Dim: -1, Cols: 4, Calls: 1}, {Rows: 4, Dim: 8, Cols: 0, Calls: 1}} {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%+v: panic %v", c, p)
				}
			}()
			var out bytes.Buffer
			c.Out = &out
			if _, err := run(c); err == nil || !strings.Contains(err.Error(), "positive") {
				t.Errorf("rows %d dim %d cols %d: err = %v", c.Rows, c.Dim, c.Cols, err)
			}
		}()
	}
	if _, err := columnMedian([]*hlo.Literal{hlo.NewLiteral(hlo.F32, 0, 3)}); err == nil {
		t.Error("columnMedian of no rows: no error")
	}
}
