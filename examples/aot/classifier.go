package main

import (
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/nn"
)

// classifier is a model struct. A function taking it is traced ahead of
// time with an example value from its constructor (m=newClassifier() in
// the directive): its tensors become the graph's inputs, and the generated
// ClassifyAOT replays for any classifier of the same structure and shapes.
type classifier struct {
	FC1, FC2 *nn.Linear
}

func newClassifier() *classifier {
	return &classifier{FC1: nn.NewLinear(784, 64), FC2: nn.NewLinear(64, 10)}
}

// Classify returns the predicted class of each image.
//
//xlajit:trace m=newClassifier() x=f32[32,784]
func Classify(m *classifier, x *lazy.Tensor) *lazy.Tensor {
	return m.FC2.Forward(m.FC1.Forward(x).ReLU()).ArgMax(1)
}
