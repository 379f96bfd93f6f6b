package lazy

import "testing"

func TestHistoryReaches(t *testing.T) {
	w := FromSlice([]float32{1, 2})
	x := FromSlice([]float32{3, 4})
	pending := w.MulScalar(2)
	synced := w.MulScalar(3)
	Sync(synced)
	detached := w.MulScalar(4).Detach()
	twoHops := w.AddScalar(1)
	Sync(twoHops)
	chained := twoHops.Mul(x)
	for _, c := range []struct {
		name    string
		ts      []*Tensor
		targets []*Tensor
		want    bool
	}{
		{"pending from target", []*Tensor{pending}, []*Tensor{w}, true},
		{"computed from target", []*Tensor{synced}, []*Tensor{w}, true},
		{"through a computed operand", []*Tensor{chained}, []*Tensor{w}, true},
		{"other data", []*Tensor{pending}, []*Tensor{x}, false},
		{"itself", []*Tensor{pending, w}, []*Tensor{pending}, false},
		{"detached", []*Tensor{detached}, []*Tensor{w}, false},
		{"no history", []*Tensor{x, w}, []*Tensor{x, w}, false},
		{"nil", []*Tensor{nil}, []*Tensor{nil, w}, false},
	} {
		if got := HistoryReaches(c.ts, c.targets); got != c.want {
			t.Errorf("%s: HistoryReaches = %v, want %v", c.name, got, c.want)
		}
	}
	// The target's pending IR, or the IR that computed it, counts as well
	// as its data: y was pending when z was built from it.
	y := w.MulScalar(5)
	z := y.AddScalar(1)
	if !HistoryReaches([]*Tensor{z}, []*Tensor{y}) {
		t.Error("z built from pending y: HistoryReaches = false")
	}
	Sync(y)
	if !HistoryReaches([]*Tensor{z}, []*Tensor{y}) {
		t.Error("z built from y, computed since: HistoryReaches = false")
	}
}
