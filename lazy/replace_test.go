package lazy

import (
	"fmt"
	"strings"
	"testing"
)

// values reads x, or the error reading it panicked with.
func values(x *Tensor) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprintf("PANIC(%v)", r)
		}
	}()
	return fmt.Sprint(x.Float32s())
}

// Restoring a pending snapshot into a tensor makes it a user of the IR, as
// Assign does: a cut computing another user of that IR must not donate
// the buffers it reads (found by the differential tester: c.Restore of
// Rsqrt(c)'s state, then a read of each).
func TestRestoredIRKeepsItsBuffers(t *testing.T) {
	c := FromSlice([]float32{4, 1})
	r := c.Rsqrt()
	c.Restore(r.State())
	if got, want := values(r), "[0.5 1]"; got != want {
		t.Fatalf("r = %s, want %s", got, want)
	}
	if got, want := values(c), "[0.5 1]"; got != want {
		t.Errorf("c = %s after r was read, want %s", got, want)
	}
}

// SetData checks the buffer's shape, as TakeData checks its source's: a
// buffer of another shape made a tensor whose next computation failed far
// from the call (found by the differential tester).
func TestSetDataChecksShape(t *testing.T) {
	x := FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	other := FromSlice([]float32{5, 6}, 2, 1)
	err := Try(func() { x.SetData(other.Buffer()) })
	if e, ok := err.(*Error); !ok || e.Op != "SetData" {
		t.Fatalf("SetData of a f32[2,1] buffer into f32[2,2]: %v, want a SetData error", err)
	}
	if got, want := values(x), "[1 2 3 4]"; got != want {
		t.Errorf("x = %s after the failed SetData, want %s", got, want)
	}
	if err := Try(func() { x.SetData(nil) }); err == nil {
		t.Errorf("SetData(nil) succeeded")
	}
}

// Restore checks the snapshot's shape, as SetData, TakeData and Assign
// check theirs: a snapshot of another tensor's shape left a tensor whose
// shape said one thing and whose data another, and whose next computation
// (or a compiled function's replay reading it as a capture) failed far
// from the call.
func TestRestoreChecksShape(t *testing.T) {
	x := FromSlice([]float32{1, 2})
	for _, other := range []*Tensor{
		FromSlice([]float32{1, 2, 3, 4, 5}),
		FromSlice([]float64{1, 2}),
		FromSlice([]float32{1, 2}).Reshape(2, 1),
		FromSlice([]float32{1, 2, 3}).AddScalar(1), // pending
	} {
		err := Try(func() { x.Restore(other.State()) })
		if e, ok := err.(*Error); !ok || e.Op != "Restore" {
			t.Errorf("Restore of a %s snapshot into f32[2]: %v, want a Restore error", other.Shape(), err)
		}
		if got, want := values(x), "[1 2]"; got != want {
			t.Errorf("x = %s after the failed Restore, want %s", got, want)
		}
	}
	y := FromSlice([]float32{7, 8}).MulScalar(2)
	x.Restore(y.State())
	if got, want := values(x), "[14 16]"; got != want {
		t.Errorf("x = %s after Restore of a same-shaped snapshot, want %s", got, want)
	}
}

// A tensor Release emptied holds neither data nor IR: using it as an
// operand, reading it or syncing it is a typed error naming Release, not
// a nil pointer dereference deep in the graph walk.
func TestReleasedTensorUseIsAnError(t *testing.T) {
	x := FromSlice([]float32{1, 2})
	s := x.Release()
	isRelease := func(what string, err error) {
		t.Helper()
		if e, ok := err.(*Error); !ok || !strings.Contains(e.Error(), "Release") {
			t.Errorf("%s of a released tensor: %v, want an error naming Release", what, err)
		}
	}
	isRelease("an op", Try(func() { x.AddScalar(1) }))
	isRelease("a read", Try(func() { x.Float32s() }))
	isRelease("Sync", Sync(x))
	x.Restore(s)
	if got, want := values(x.AddScalar(1)), "[2 3]"; got != want {
		t.Errorf("after Restore: %s, want %s", got, want)
	}
}
