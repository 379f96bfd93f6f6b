package jit_test

import (
	"sync"
	"testing"
	"time"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

type weights struct{ W *lazy.Tensor }

// While a trace runs, the tensors its pointer arguments reach are stand-ins
// in the caller's memory. A call of the same function on another goroutine
// meanwhile (a replay that writes) must not read them: it waits, and the
// calls stay linearizable (no write lost, the result is the argument's own
// tensor).
func TestReplayDuringTraceOfSameFunction(t *testing.T) {
	m := &weights{W: lazy.FromSlice([]float32{0})}
	inTrace, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	step := jit.Compile(func(m *weights, x *lazy.Tensor) *lazy.Tensor {
		if x.Dim(0) == 2 {
			once.Do(func() { close(inTrace); <-release })
		}
		m.W.Assign(m.W.Add(x.Sum().Reshape(1)))
		return m.W
	})
	step(m, lazy.Ones(lazy.F32, 1))
	step(m, lazy.Ones(lazy.F32, 1)) // W = 2, replayed
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); step(m, lazy.Ones(lazy.F32, 2)) }() // a new signature: traces
	<-inTrace
	var r *lazy.Tensor
	go func() { defer wg.Done(); r = step(m, lazy.Ones(lazy.F32, 1)) }()
	time.Sleep(20 * time.Millisecond) // let the replay reach the arguments during the trace
	close(release)
	wg.Wait()
	if got := m.W.Float32s()[0]; got != 5 {
		t.Errorf("W = %v after +2 and +1 on two goroutines, want 5", got)
	}
	if r != m.W {
		t.Error("the replay returned a tensor other than the argument's")
	}
}

// A function that captures a tensor through a closure variable, first
// called while another function's trace has a stand-in in that variable's
// struct, captures the tensor itself, not the stand-in.
func TestTraceDuringAnotherTraceCapturesTheTensor(t *testing.T) {
	m := &weights{W: lazy.FromSlice([]float32{1})}
	inTrace, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	eval := jit.Compile(func(m *weights, x *lazy.Tensor) *lazy.Tensor {
		once.Do(func() { close(inTrace); <-release })
		return x.Mul(m.W)
	})
	g := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.Mul(m.W) })
	x := lazy.FromSlice([]float32{3})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); eval(m, x) }()
	<-inTrace
	done := make(chan struct{})
	go func() { g(x); close(done) }() // reads m.W, as eval does: no race in the plain program
	<-done
	close(release)
	wg.Wait()
	m.W.Assign(lazy.FromSlice([]float32{10}))
	if got := g(x).Float32s()[0]; got != 30 {
		t.Errorf("g(x) = %v after m.W = 10, want 30", got)
	}
}
