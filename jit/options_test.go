package jit_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// TestInvalidOptions: a negative recompile limit (once accepted, and
// then taken as "always past the limit") and a nil option are errors of
// CompileE naming the option and the line that made it; Compile panics
// with the same *jit.Error.
func TestInvalidOptions(t *testing.T) {
	fn := func(x *lazy.Tensor) *lazy.Tensor { return x.AddScalar(1) }
	_, _, line, _ := runtime.Caller(0)
	opt := jit.WithRecompileLimit(-5) // the line named by the error: line+1
	_, err := jit.CompileE(fn, opt)
	var je *jit.Error
	if !errors.As(err, &je) || !strings.Contains(err.Error(), "WithRecompileLimit(-5)") ||
		!strings.Contains(err.Error(), fmt.Sprintf("jit/options_test.go:%d", line+1)) {
		t.Errorf("CompileE with WithRecompileLimit(-5): %v", err)
	}
	func() {
		defer func() {
			r := recover()
			if e, ok := r.(*jit.Error); !ok || !strings.Contains(e.Error(), "must not be negative") {
				t.Errorf("Compile with WithRecompileLimit(-5) panicked with %v, want the *jit.Error", r)
			}
		}()
		jit.Compile(fn, jit.WithName("f"), jit.WithRecompileLimit(-1))
	}()
	if _, err := jit.CompileE(fn, nil); err == nil || !strings.Contains(err.Error(), "option 0 is nil") {
		t.Errorf("CompileE with a nil option: %v", err)
	}
}

// TestRecompileLimitZero: a limit of 0 traces nothing; every call runs
// lazily (and is still correct).
func TestRecompileLimitZero(t *testing.T) {
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.AddScalar(1) }, jit.WithRecompileLimit(0))
	if got := f(lazy.FromSlice([]float32{1, 2})).Float32s(); fmt.Sprint(got) != "[2 3]" {
		t.Errorf("got %v", got)
	}
	if s := jit.StatsOf(f); s.Traces != 0 {
		t.Errorf("stats %s", s)
	}
}
