package main

import (
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/nn"
)

// cnn is a LeNet-style network with BatchNorm; its state dict names are
// PyTorch's for the same module (see scripts/torch_reference.py), so a
// checkpoint written by PyTorch loads as is.
type cnn struct {
	Conv1 *nn.Conv2d    `nn:"conv1"` // 1 -> 16 channels, 5x5, padding 2
	BN1   *nn.BatchNorm `nn:"bn1"`
	Conv2 *nn.Conv2d    `nn:"conv2"` // 16 -> 32 channels
	BN2   *nn.BatchNorm `nn:"bn2"`
	FC1   *nn.Linear    `nn:"fc1"` // 32*7*7 -> 128
	FC2   *nn.Linear    `nn:"fc2"` // 128 -> 10
}

func newCNN() *cnn {
	return &cnn{
		Conv1: nn.NewConv2d(1, 16, 5, nn.Padding(2)), BN1: nn.NewBatchNorm2d(16),
		Conv2: nn.NewConv2d(16, 32, 5, nn.Padding(2)), BN2: nn.NewBatchNorm2d(32),
		FC1: nn.NewLinear(32*7*7, 128), FC2: nn.NewLinear(128, 10),
	}
}

var pool2 = [2]int64{2, 2}

// Forward maps images [N, 1, 28, 28] to logits [N, 10].
func (m *cnn) Forward(x *lazy.Tensor) *lazy.Tensor {
	h := m.BN1.Forward(m.Conv1.Forward(x)).ReLU().MaxPool2d(pool2, pool2, [2]int64{})
	h = m.BN2.Forward(m.Conv2.Forward(h)).ReLU().MaxPool2d(pool2, pool2, [2]int64{})
	return m.FC2.Forward(m.FC1.Forward(nn.Flatten(h)).ReLU())
}
