package host

import (
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// ExecuteReading hands out the leading results as buffers and the last
// ones as bytes, whose storage the next execution takes back: reading a
// check flag costs no allocation in steady state, and the buffers handed
// out keep their values across later executions.
func TestExecuteReadingRecyclesReadResults(t *testing.T) {
	e, x := readingProgram(t, `func.func public @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>) {
  %y = stablehlo.add %x, %x : tensor<4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<4xf32>
  %f = stablehlo.compare GT, %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %y, %f : tensor<4xf32>, tensor<4xi1>
}`)
	var out []pjrt.Buffer
	var flags []byte
	var err error
	run := func() {
		out, flags, err = e.ExecuteReading([]pjrt.Buffer{x}, pjrt.ExecuteOptions{}, out[:0], 1, flags[:0])
		if err != nil {
			t.Fatal(err)
		}
	}
	run()
	first := out[0]
	if string(flags) != "\x01\x00\x01\x00" || len(out) != 1 {
		t.Fatalf("flags %v, %d buffers; want [1 0 1 0] and one buffer", flags, len(out))
	}
	run()
	if out[0] == first {
		t.Fatal("a buffer handed out came back")
	}
	if n := testing.AllocsPerRun(20, run); n > 2 {
		t.Errorf("an execution reading its flag allocates %.0f objects, want at most 2 (the result's buffer and storage)", n)
	}
	l, _ := first.ToHost()
	if got := l.F32(); got[0] != 2 || got[1] != -4 || got[2] != 6 || got[3] != 0 {
		t.Errorf("a buffer handed out changed under later executions: %v", got)
	}
	if _, _, err := e.ExecuteReading([]pjrt.Buffer{x}, pjrt.ExecuteOptions{}, nil, 3, nil); err == nil || !strings.Contains(err.Error(), "reading 3") {
		t.Errorf("reading more results than the program has: err %v", err)
	}
}

// A read result whose storage another result shares (the same value
// returned twice) is not recycled: the buffer handed out
// keeps its value.
func TestExecuteReadingKeepsSharedStorage(t *testing.T) {
	c := NewClient(1)
	exe, err := c.Compile(parseText(t, `func.func public @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y = stablehlo.add %x, %x : tensor<4xf32>
  return %y, %y : tensor<4xf32>, tensor<4xf32>
}`), pjrt.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := exe.(*Executable)
	x, _ := c.BufferFromHost(hlo.LiteralFromSlice([]float32{1, 2, 3, 4}, 4), 0)
	out, _, err := e.ExecuteReading([]pjrt.Buffer{x}, pjrt.ExecuteOptions{}, nil, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	y, _ := c.BufferFromHost(hlo.LiteralFromSlice([]float32{5, 6, 7, 8}, 4), 0)
	for range 3 {
		if _, _, err := e.ExecuteReading([]pjrt.Buffer{y}, pjrt.ExecuteOptions{}, nil, 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	l, _ := out[0].ToHost()
	if got := l.F32(); got[0] != 2 || got[3] != 8 {
		t.Errorf("the buffer of a result sharing the read one's storage changed: %v", got)
	}
}

// What ExecuteReading reads is checked before the program runs: a call
// asking for more results than the program returns, or for a tuple as
// bytes, fails without running and without taking a donated argument.
func TestExecuteReadingChecksBeforeRunning(t *testing.T) {
	e, x := readingProgram(t, `func.func public @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tuple<tensor<4xf32>, tensor<4xf32>>) {
  %y = stablehlo.add %x, %x : tensor<4xf32>
  %t = stablehlo.tuple %y, %x : tuple<tensor<4xf32>, tensor<4xf32>>
  return %y, %t : tensor<4xf32>, tuple<tensor<4xf32>, tensor<4xf32>>
}`)
	for _, c := range []struct {
		nRead int
		want  string
	}{{3, "reading 3"}, {1, "not a tensor"}} {
		_, _, err := e.ExecuteReading([]pjrt.Buffer{x}, pjrt.ExecuteOptions{Donate: []int{0}}, nil, c.nRead, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("reading %d: err %v, want %q", c.nRead, err, c.want)
		}
		if l, err := x.ToHost(); err != nil || l.F32()[1] != -2 {
			t.Fatalf("reading %d: the donated argument after the failed call: %v, %v", c.nRead, l, err)
		}
	}
}

// readingProgram compiles text on a new client and returns its executable
// and an argument buffer holding [1, -2, 3, 0].
func readingProgram(t *testing.T, text string) (*Executable, pjrt.Buffer) {
	t.Helper()
	c := NewClient(1)
	exe, err := c.Compile(parseText(t, text), pjrt.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := c.BufferFromHost(hlo.LiteralFromSlice([]float32{1, -2, 3, 0}, 4), 0)
	if err != nil {
		t.Fatal(err)
	}
	return exe.(*Executable), x
}
