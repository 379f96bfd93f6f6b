package jit

import (
	"runtime"
	"testing"
	"time"

	"github.com/xlajit/xlajit/lazy"
)

func registrySize() int {
	n := 0
	registry.Range(func(any, any) bool { n++; return true })
	return n
}

// Compiled functions the program drops are dropped by the registry too.
func TestDroppedFunctionsLeaveTheRegistry(t *testing.T) {
	before := registrySize()
	x := lazy.FromSlice([]float32{1, 2})
	for i := 0; i < 200; i++ {
		f := Compile(func(a *lazy.Tensor) *lazy.Tensor { return a.AddScalar(1) })
		f(x)
	}
	var n int
	for try := 0; try < 50; try++ {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		if n = registrySize(); n < before+20 {
			break
		}
	}
	if n >= before+20 {
		t.Errorf("%d functions registered after dropping 200 (%d before)", n, before)
	}
}
