package fmapeak

import (
	"testing"
	"time"
)

// TestPeak checks that every supported loop runs and reports a positive
// rate, best first.
func TestPeak(t *testing.T) {
	res := Peak(1, 20*time.Millisecond)
	if len(kernels()) > 0 && len(res) == 0 {
		t.Fatal("no result for a supported ISA")
	}
	for i, r := range res {
		if !(r.GFLOPs > 0) {
			t.Errorf("%+v: rate not positive", r)
		}
		if i > 0 && r.GFLOPs > res[i-1].GFLOPs {
			t.Errorf("results not sorted: %+v after %+v", r, res[i-1])
		}
	}
	t.Log(res)
}
