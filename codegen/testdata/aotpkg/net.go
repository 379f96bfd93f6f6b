package main

import (
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/nn"
)

// net is a small model: its tensors are the trace's inputs, its plain
// values (BatchNorm's mode and epsilon) part of the guard.
type net struct {
	FC1 *nn.Linear
	BN  *nn.BatchNorm
	FC2 *nn.Linear
}

func newNet() *net {
	lazy.ManualSeed(11)
	return &net{FC1: nn.NewLinear(3, 8), BN: nn.NewBatchNorm1d(8), FC2: nn.NewLinear(8, 2)}
}

// Classify is the model's forward pass (training mode: BatchNorm writes its
// running statistics).
//
//xlajit:trace m=newNet() x=f32[4,3]
func Classify(m *net, x *lazy.Tensor) *lazy.Tensor {
	return m.FC2.Forward(m.BN.Forward(m.FC1.Forward(x)).ReLU())
}
