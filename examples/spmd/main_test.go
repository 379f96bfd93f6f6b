package main

import (
	"bytes"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/pjrt/host"
)

// TestDataParallelMatchesOneDevice: 50 steps of MNIST training with the
// batch cut over 4 devices give the losses and weights of one device
// within 1e-5, traced once, with no reshard in the partitioned step.
func TestDataParallelMatchesOneDevice(t *testing.T) {
	var out bytes.Buffer
	res, err := dataParallel(host.NewClient(4), config{Steps: 50, Batch: 128, Hidden: 128, LR: 0.05, Mu: 0.9, Seed: 1, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	for i := range res.Losses {
		if d := math.Abs(res.Losses[i] - res.Reference[i]); d > 1e-5 {
			t.Errorf("step %d: loss %v, one device %v", i, res.Losses[i], res.Reference[i])
		}
	}
	if res.MaxParamDiff > 1e-5 {
		t.Errorf("weights differ from one device by %g", res.MaxParamDiff)
	}
	if res.Losses[len(res.Losses)-1] >= res.Losses[0] {
		t.Errorf("loss did not fall: %v", res.Losses)
	}
	if s := res.Stats; s.Traces != 1 || s.Replays != 50 {
		t.Errorf("stats %s: want one trace and 50 replays", s)
	}
	if len(res.Reshards) != 0 {
		t.Errorf("reshards in the data-parallel step: %v", res.Reshards)
	}
	if res.Collectives["all_reduce"] == 0 {
		t.Errorf("the gradients of replicated weights need all-reduces: %v", res.Collectives)
	}
}

// TestTensorParallelOneAllReducePerBlock: the partitioned program of n
// MLP blocks has exactly n all-reduces, no other collective and no
// reshard, and computes what one device computes.
func TestTensorParallelOneAllReducePerBlock(t *testing.T) {
	for _, blocks := range []int{1, 3} {
		var out bytes.Buffer
		res, err := tensorParallel(host.NewClient(4), &out, blocks)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Collectives) != 1 || res.Collectives["all_reduce"] != blocks {
			t.Errorf("%d blocks: collectives %v, want %d all_reduce\n%s", blocks, res.Collectives, blocks, res.Module)
		}
		if len(res.Reshards) != 0 {
			t.Errorf("%d blocks: reshards %v", blocks, res.Reshards)
		}
		if res.MaxDiff > 1e-5 {
			t.Errorf("%d blocks: output differs from one device by %g", blocks, res.MaxDiff)
		}
	}
}

// TestBadSizes: no devices, or a batch below one, is an error naming the
// value, not an index or makeslice panic.
func TestBadSizes(t *testing.T) {
	if _, err := client(0); err == nil || !strings.Contains(err.Error(), "-devices 0") {
		t.Errorf("client(0): err = %v", err)
	}
	// More virtual devices than XLAJIT_HOST_DEVICES allows (1 to 4096) is
	// an error too: -devices 1<<40 made device records until the process
	// died.
	if _, err := client(4097); err == nil || !strings.Contains(err.Error(), "-devices 4097") {
		t.Errorf("client(4097): err = %v, want one naming -devices 4097", err)
	}
	for _, c := range []struct {
		devices, batch int
		want           string
	}{{0, 8, "no devices"}, {4, -1, "-batch -1"}, {4, 0, "-batch 0"}} {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%d devices, batch %d: panic %v", c.devices, c.batch, p)
				}
			}()
			var out bytes.Buffer
			_, err := dataParallel(host.NewClient(c.devices), config{Steps: 1, Batch: c.batch, Hidden: 8, LR: 0.05, Mu: 0.9, Seed: 1, Out: &out})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%d devices, batch %d: err = %v", c.devices, c.batch, err)
			}
		}()
	}
	if _, err := tensorParallel(host.NewClient(0), io.Discard, 1); err == nil || !strings.Contains(err.Error(), "no devices") {
		t.Errorf("tensorParallel on no devices: err = %v", err)
	}
}
