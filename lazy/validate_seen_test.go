package lazy

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/xlajit/xlajit/hlo"
)

// Bad inputs that used to be accepted, crash or return garbage, each
// checked on its own (the table in validate_test.go has them too).

// TestRejectedRandomOpKeepsRNG: RandN(F32, -3) used to be recorded and
// write a state of the wrong shape back into the device RNG, breaking
// every later random op. Now it fails before touching the state, and the
// next draw is the one a fresh seed gives.
func TestRejectedRandomOpKeepsRNG(t *testing.T) {
	ManualSeed(7)
	want := RandN(F32, 3).Float32s()
	for _, bad := range []func(){
		func() { RandN(F32, -3) },
		func() { RandN(I32, 2) },
		func() { RandUniform(F32, 1, 0, 2) },
		func() { Zeros(F32, 2).Dropout(math.NaN(), true) },
		func() { Zeros(I32, 2).Dropout(0.5, true) },
	} {
		ManualSeed(7)
		err := Try(bad)
		var le *Error
		if !errors.As(err, &le) || le.Site == "" || !strings.HasPrefix(le.Site, "lazy/validate_seen_test.go:") {
			t.Fatalf("got %v, want a *lazy.Error at this file", err)
		}
		if got := RandN(F32, 3).Float32s(); !equalF32(got, want) {
			t.Errorf("after %v the next draw is %v, want %v", err, got, want)
		}
	}
}

func equalF32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCrossEntropyEmptyBatch: an empty batch used to make the gather
// lowering fail and the next lowering panic with a string. Like PyTorch,
// the mean over no samples is NaN, and its gradient is empty.
func TestCrossEntropyEmptyBatch(t *testing.T) {
	for _, c := range []int64{3, 0} {
		logits := Zeros(F32, 0, c)
		var loss float64
		var g []float32
		err, bug := tryOrBug(func() {
			y := CrossEntropy(logits, Zeros(I64, 0))
			g = Grad(y, logits)[0].Float32s()
			loss = y.Item()
		})
		if bug != nil || err != nil {
			t.Fatalf("C=%d: error %v, panic %v", c, err, bug)
		}
		if !math.IsNaN(loss) || len(g) != 0 {
			t.Errorf("C=%d: loss %v, grad %v; want NaN and []", c, loss, g)
		}
	}
}

// badLowering is an op whose lowering makes the builder fail (it adds an
// i32 to its f32 operand) and then goes on using the builder's placeholder
// result, as a lowering with a bug does.
var badLowering = &OpDef{
	Name:  "BadLowering",
	Infer: func(in []Shape, a Attrs) ([]Shape, error) { return []Shape{in[0]}, nil },
	Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
		bad := lc.S.Add(in[0], lc.scalar(I32, 1))
		return []*hlo.Value{lc.S.Add(bad, lc.scalar(tensorType(bad).DType, 1))}
	},
}

// TestBuilderErrorIsError: an hlo builder error during lowering is an
// *Error naming the lazy op and its operand shapes (with the builder's
// error in its chain), never a string panic.
func TestBuilderErrorIsError(t *testing.T) {
	x := FromSlice([]float32{1, 2})
	err, bug := tryOrBug(func() { Apply(badLowering, nil, x)[0].Float32s() })
	if bug != nil {
		t.Fatalf("panicked with %T %v", bug, bug)
	}
	var le *Error
	if !errors.As(err, &le) {
		t.Fatalf("got %v (%T), want a *lazy.Error", err, err)
	}
	var be *hlo.BuildError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "BadLowering(f32[2])") || !strings.Contains(err.Error(), "stablehlo.add") {
		t.Errorf("error %v does not name the op, its shapes and the builder's error", err)
	}
	// AsError turns a panicking builder error into an *Error as well.
	if e := AsError(be); e == nil || !strings.Contains(e.Error(), "stablehlo.add") {
		t.Errorf("AsError(%v) = %v", be, e)
	}
}

// panicLowering is an op whose lowering has a plain bug (an index out of
// range, no builder error).
var panicLowering = &OpDef{
	Name:  "PanicLowering",
	Infer: func(in []Shape, a Attrs) ([]Shape, error) { return []Shape{in[0]}, nil },
	Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value { return []*hlo.Value{in[len(in)]} },
}

// reported is a failure another package reports by panicking.
type reported struct{}

func (reported) Error() string  { return "reported" }
func (reported) ReportedError() {}

// TestTryKeepsBugs: Try converts lazy and builder errors (and reported
// failures of packages built on lazy) only. A Go
// runtime error, a user's own panic, a literal misused and a bug in a
// lowering go on as panics with their original values.
func TestTryKeepsBugs(t *testing.T) {
	var nilMap map[string]int
	cases := map[string]func(){
		"runtime":  func() { nilMap["x"] = 1 },
		"error":    func() { panic(errors.New("mine")) },
		"string":   func() { panic("mine") },
		"literal":  func() { hlo.NewLiteral(hlo.InvalidDType).SetFloat(0, 1) },
		"lowering": func() { Apply(panicLowering, nil, FromSlice([]float32{1}))[0].Float32s() },
		"internal": func() { reduceInit(F32, "median") },
	}
	for name, fn := range cases {
		err, bug := tryOrBug(fn)
		if err != nil || bug == nil {
			t.Errorf("%s: Try returned %v, want the panic to go on", name, err)
		}
		if _, ok := bug.(string); ok && name != "string" {
			t.Errorf("%s: panic value is a string (%v), want a typed value", name, bug)
		}
		if name == "runtime" || name == "lowering" {
			if _, ok := bug.(runtime.Error); !ok {
				t.Errorf("%s: panic value %T, want the runtime.Error", name, bug)
			}
		}
	}
	if err := Try(func() { panic(reported{}) }); err == nil || err.Error() != "reported" {
		t.Errorf("Try(panic(ReportedError)) = %v", err)
	}
	// The compile cache forgets a compile that panicked: compiling the same
	// graph again panics again instead of waiting for it forever.
	done := make(chan any)
	go func() {
		_, bug := tryOrBug(cases["lowering"])
		done <- bug
	}()
	select {
	case bug := <-done:
		if bug == nil {
			t.Errorf("second compile of a panicking lowering did not panic")
		}
	case <-time.After(time.Minute):
		t.Fatal("second compile of a graph whose lowering panicked hangs")
	}
}

// TestShapeOverflow: element counts that overflow int64 used to wrap
// (Zeros(F32, 2^32, 2^32, 16).Sum() was 0, FromSlice of no values filled
// 2^32 x 2^32). Every place lazy makes a shape checks it.
func TestShapeOverflow(t *testing.T) {
	for name, fn := range map[string]func(){
		"Zeros":       func() { Zeros(F32, 1<<32, 1<<32, 16).Sum() },
		"FromSlice":   func() { FromSlice([]float32{}, 1<<32, 1<<32) },
		"NewShape":    func() { NewShape(F32, 1<<32, 1<<32) },
		"BroadcastTo": func() { Zeros(F32, 1).BroadcastTo(1<<32, 1<<32) },
		"Reshape":     func() { Zeros(F32, 0).Reshape(1<<32, 1<<32, 0, 1<<32) },
		"Full":        func() { Full(F32, 1, 1<<40, 1<<40) },
	} {
		err := Try(fn)
		var le *Error
		if !errors.As(err, &le) || le.Op != name || !strings.Contains(le.Msg, "2^63-1") && !strings.Contains(le.Msg, "cannot reshape") {
			t.Errorf("%s: got %v, want an *Error of %s about the size", name, err, name)
		}
	}
	if _, err := NewShapeE(F32, 1<<31, 1<<31); err == nil {
		t.Errorf("NewShapeE(f32[2^31,2^31]) (2^64 bytes) gave no error")
	}
	if s, err := NewShapeE(F32, 0, 1<<40); err != nil || s.Size() != 0 {
		t.Errorf("NewShapeE(f32[0,2^40]) = %v, %v", s, err)
	}
}
