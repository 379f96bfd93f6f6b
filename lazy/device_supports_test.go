package lazy

import (
	"runtime"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// TestDeviceSupportsKeepsLoweringBugs: capability discovery asks
// DeviceSupports whether the device runs an op. A lowering that fails with
// a builder error is an op the device cannot run (false); a lowering that
// panics with a Go runtime error is a bug of the op and must surface as
// that panic, not send the op to the host.
func TestDeviceSupportsKeepsLoweringBugs(t *testing.T) {
	dev := DefaultDevice()
	in := []Shape{NewShape(F32, 3)}
	if DeviceSupports(dev, badLowering, nil, in) {
		t.Errorf("DeviceSupports(BadLowering) = true, want false (its lowering fails)")
	}
	if !DeviceSupports(dev, table[opExp], nil, in) {
		t.Errorf("DeviceSupports(Exp) = false, want true")
	}
	for _, op := range []*OpDef{panicLowering, panicRule} {
		// Twice: a bug is not cached as an answer.
		for range 2 {
			var bug any
			func() {
				defer func() { bug = recover() }()
				DeviceSupports(dev, op, nil, in)
			}()
			if _, ok := bug.(runtime.Error); !ok {
				t.Fatalf("DeviceSupports(%s) panicked with %T %v, want its runtime.Error", op.Name, bug, bug)
			}
		}
	}
}

// panicRule is an op whose shape rule has a plain bug (an index out of
// range).
var panicRule = &OpDef{
	Name:  "PanicRule",
	Infer: func(in []Shape, a Attrs) ([]Shape, error) { return []Shape{in[len(in)]}, nil },
	Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value { return in },
}
