package lazy

import (
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// A compiled program with a run-time check (the path jit replays take):
// bad data fails the run with an error naming the op, good data gives the
// results without the check flags.
func TestCheckThroughExecutable(t *testing.T) {
	dev := DefaultDevice()
	x := NewPlaceholder(NewShape(F32, 5), dev)
	idx := NewPlaceholder(NewShape(I64, 3), dev)
	y := x.IndexSelect(0, idx)
	g := CollectGraph([]Value{y.Value()})
	exe, _, err := CompileGraph(dev, g, "check")
	if err != nil {
		t.Fatal(err)
	}
	if exe.NOut != 1 {
		t.Fatalf("NOut = %d, want 1 (the check flags are not a result)", exe.NOut)
	}
	xs := FromSlice([]float32{10, 11, 12, 13, 14})
	outs, err := exe.Run([]*Tensor{xs, FromSlice([]int64{4, 0, 2})})
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 {
		t.Fatalf("%d results, want 1", len(outs))
	}
	expectT(t, "good indices", outs[0], F32, ndOf([]float64{14, 10, 12}, 3), exact)
	_, err = exe.Run([]*Tensor{xs, FromSlice([]int64{4, 5, 2})})
	if err == nil || !strings.Contains(err.Error(), "IndexSelect(f32[5], i64[3])") || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("bad indices: err = %v, want IndexSelect's out-of-range error", err)
	}
}

// The check messages live in the module (a result attribute), so a module
// read back from text (the persistent cache) knows its checks.
func TestCheckMessagesSurviveText(t *testing.T) {
	dev := DefaultDevice()
	x := NewPlaceholder(NewShape(F32, 2, 3), dev)
	lab := NewPlaceholder(NewShape(I64, 2), dev)
	loss := CrossEntropy(x, lab)
	w := NewPlaceholder(NewShape(F32, 4), dev)
	sel := w.IndexSelect(0, lab)
	m, err := CollectGraph([]Value{loss.Value(), sel.Value()}).Lower("t")
	if err != nil {
		t.Fatal(err)
	}
	want := moduleChecks(m)
	if len(want) != 2 || !strings.HasPrefix(want[0], "CrossEntropy(") && !strings.HasPrefix(want[1], "CrossEntropy(") {
		t.Fatalf("checks %q, want CrossEntropy's and IndexSelect's", want)
	}
	back, err := hlo.ParseModule("t.mlir", []byte(m.String()))
	if err != nil {
		t.Fatal(err)
	}
	if got := moduleChecks(back); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("after text round trip checks %q, want %q", got, want)
	}
}

// A failed check leaves the tensors as they were: nothing is stored and no
// input buffer is donated (the checks run alone before a donating run).
func TestCheckFailureKeepsState(t *testing.T) {
	// A good index donates p's old buffer to the program that overwrites p.
	p := FromSlice([]float32{1, 2, 3})
	donated := Counter(MetricDonatedBuffers)
	y := p.IndexSelect(0, FromSlice([]int64{2, 1, 0}))
	p.Assign(y)
	if err := Sync(p, y); err != nil {
		t.Fatal(err)
	}
	if Counter(MetricDonatedBuffers) == donated {
		t.Fatal("a program with checks donated nothing")
	}
	expectT(t, "p after a good cut", p, F32, ndOf([]float64{3, 2, 1}, 3), exact)
	// A bad one fails before anything is consumed (q's buffer would be
	// donated if the program ran).
	q := FromSlice([]float32{1, 2, 3})
	before := q.State()
	y = q.IndexSelect(0, FromSlice([]int64{0, 3, 1}))
	q.Assign(y)
	donated = Counter(MetricDonatedBuffers)
	err := Sync(q, y)
	if err == nil || !strings.Contains(err.Error(), "IndexSelect") {
		t.Fatalf("err = %v, want IndexSelect's error", err)
	}
	if !strings.Contains(err.Error(), "checks_test.go:") {
		t.Errorf("error %q does not name the call site", err)
	}
	if !q.IsPending() || !y.IsPending() {
		t.Fatal("failed cut stored a result")
	}
	if Counter(MetricDonatedBuffers) != donated {
		t.Fatal("failed cut donated a buffer")
	}
	q.Restore(before)
	expectT(t, "q after failed cut", q, F32, ndOf([]float64{1, 2, 3}, 3), exact)
}
