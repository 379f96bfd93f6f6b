package main

import (
	"bytes"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/nn"
	"github.com/xlajit/xlajit/optim"
)

// TestPyTorchCheckpoint loads the state dict PyTorch 1.13 wrote for the
// same architecture (scripts/torch_reference.py; BatchNorm running
// statistics included) and reproduces PyTorch's logits in evaluation mode.
func TestPyTorchCheckpoint(t *testing.T) {
	m := newCNN()
	if err := nn.Load("testdata/torch_cnn.safetensors", m); err != nil {
		t.Fatal(err)
	}
	nn.SetTraining(m, false)
	io, _, err := nn.ReadFile("testdata/torch_cnn_io.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	got := m.Forward(lazy.FromLiteral(io["x"])).Float32s()
	want := io["logits"].F32()
	if len(got) != len(want) {
		t.Fatalf("%d logits, want %d", len(got), len(want))
	}
	worst := 0.0
	for i := range got {
		worst = max(worst, math.Abs(float64(got[i]-want[i])))
	}
	if worst > 2e-5 {
		t.Errorf("logits differ from PyTorch's by up to %.3g", worst)
	}
	t.Logf("max |logit - PyTorch| = %.3g", worst)
}

// TestCheckpointMismatchIsExplained loads the PyTorch checkpoint into a
// model with a wider first convolution: the error names the layer and both
// shapes, and nothing is written.
func TestCheckpointMismatchIsExplained(t *testing.T) {
	m := newCNN()
	m.Conv1 = nn.NewConv2d(1, 8, 5, nn.Padding(2))
	before := m.FC2.Bias.Float32s()
	err := nn.Load("testdata/torch_cnn.safetensors", m)
	if err == nil || !strings.Contains(err.Error(), "conv1.weight: model f32[8,1,5,5], file f32[16,1,5,5]") {
		t.Fatalf("error %v does not name conv1.weight and both shapes", err)
	}
	if !slices.Equal(before, m.FC2.Bias.Float32s()) {
		t.Error("a failed load changed the model")
	}
}

// TestTrainSaveReloadResume trains 10 steps, saves model and optimizer,
// reloads them into a fresh model (identical predictions), and resumes for
// a second epoch from the checkpoint (step count continues, one trace).
func TestTrainSaveReloadResume(t *testing.T) {
	ckpt := filepath.Join(t.TempDir(), "cnn.safetensors")
	var out bytes.Buffer
	cfg := config{Epochs: 1, Batch: 32, LR: 2e-3, Limit: 320, TestN: 100, Seed: 1, Ckpt: ckpt, Out: &out}
	res, err := run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	if s := res.Stats; s.Traces != 1 || s.Replays != 10 || s.Recompiles != 0 {
		t.Errorf("train step stats %s: want 1 trace and 10 replays", s)
	}
	if math.IsNaN(res.Losses[0]) || res.Losses[0] > math.Log(10) {
		t.Errorf("mean loss %.3f of the first epoch is not below chance", res.Losses[0])
	}

	x := lazy.RandUniform(lazy.F32, 0, 1, 32, 1, 28, 28)
	nn.SetTraining(res.Model, false)
	want := predict(res.Model, x).Int64s()
	wantLogits := res.Model.Forward(x).Float32s()

	fresh := newCNN()
	opt := optim.NewAdam(nn.Params(fresh).Tensors(), 1)
	if err := nn.LoadTensors(ckpt, state(fresh, opt)); err != nil {
		t.Fatal(err)
	}
	nn.SetTraining(fresh, false)
	if got := predict(fresh, x).Int64s(); !slices.Equal(got, want) {
		t.Errorf("predictions after reload %v, want %v", got, want)
	}
	if got := fresh.Forward(x).Float32s(); !slices.Equal(got, wantLogits) {
		t.Error("logits after reload are not identical")
	}
	if n := opt.StepCount(); n != 10 {
		t.Errorf("reloaded optimizer step count %d, want 10", n)
	}

	out.Reset()
	cfg.Epochs, cfg.Resume = 2, true
	res2, err := run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	if !strings.Contains(out.String(), "resumed from") || res2.Epochs != 2 || len(res2.Losses) != 1 {
		t.Errorf("resume ran epochs %d with %d losses", res2.Epochs, len(res2.Losses))
	}
}

// TestLimitBelowBatch: fewer training images than one batch is an error,
// as in the MLP example, not epochs of no step reported as a loss of 0.
func TestLimitBelowBatch(t *testing.T) {
	var out bytes.Buffer
	_, err := run(config{Epochs: 1, Batch: 64, LR: 2e-3, Limit: 10, TestN: 100, Seed: 1, Out: &out})
	if err == nil || !strings.Contains(err.Error(), "10 training images") {
		t.Errorf("-limit 10 -batch 64: err = %v\n%s", err, out.String())
	}
}
