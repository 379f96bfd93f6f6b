package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestShortRun trains on 6000 images for one epoch: the loss must fall
// below chance level and the test accuracy clear 85 %, with exactly one
// trace and one compile of the train step.
func TestShortRun(t *testing.T) {
	var out bytes.Buffer
	res, err := run(config{Epochs: 2, Batch: 100, LR: 0.05, Momentum: 0.9, Hidden: 64, Limit: 6000, Seed: 1, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	if res.Losses[1] >= res.Losses[0] {
		t.Errorf("loss did not fall: %v", res.Losses)
	}
	if res.Accuracy < 0.85 {
		t.Errorf("test accuracy %.3f < 0.85", res.Accuracy)
	}
	if res.Stats.Traces != 1 || res.Stats.Compiles != 1 || res.Stats.Replays != 120 {
		t.Errorf("stats %s: want 1 trace, 1 compile, 120 replays", res.Stats)
	}
}

// TestLimitBelowBatch: fewer training images than one batch is an error,
// not epochs of no step and a NaN loss.
func TestLimitBelowBatch(t *testing.T) {
	var out bytes.Buffer
	_, err := run(config{Epochs: 1, Batch: 100, LR: 0.05, Hidden: 8, Limit: 10, Seed: 1, Out: &out})
	if err == nil || !strings.Contains(err.Error(), "10 training images") {
		t.Errorf("-limit 10 -batch 100: err = %v\n%s", err, out.String())
	}
}
