package bridge_test

import (
	"errors"
	"testing"

	"github.com/xlajit/xlajit/bridge"
	"github.com/xlajit/xlajit/lazy"
)

// TestTraceCountsOnlyWhenItSucceeds: what a trace counts (a host op run on
// real data, its transfers) reaches the counters when the trace succeeds
// and is dropped when it fails.
func TestTraceCountsOnlyWhenItSucceeds(t *testing.T) {
	freshDevice(t)
	x := lazy.FromSlice([]float32{1, 0, 2})
	lazy.Sync(x)
	const name = lazy.MetricHostFallbackPrefix + "NonZero"
	for _, fail := range []bool{true, false} {
		before := lazy.Counter(name)
		_, err := bridge.Trace([]*lazy.Tensor{x}, func() ([]*lazy.Tensor, error) {
			nz := x.NonZero()
			if fail {
				return nil, errors.New("fails")
			}
			return []*lazy.Tensor{nz}, nil
		}, bridge.TraceOptions{})
		if (err != nil) != fail {
			t.Fatalf("fail=%v: error %v", fail, err)
		}
		want := int64(1)
		if fail {
			want = 0
		}
		if d := lazy.Counter(name) - before; d != want {
			t.Errorf("fail=%v: %s moved by %d, want %d", fail, name, d, want)
		}
	}
}
