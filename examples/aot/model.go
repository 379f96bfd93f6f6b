package main

import "github.com/xlajit/xlajit/lazy"

//go:generate go run github.com/xlajit/xlajit/cmd/xlajit gen

// Predict is the forward pass of a 784-64-10 MLP: class probabilities of
// a batch of flattened 28×28 images. xlajit gen traces it for batches of
// 32 and writes PredictAOT into zz_xlajit_model.go.
//
//xlajit:trace x=f32[32,784] w1=f32[784,64] b1=f32[64] w2=f32[64,10] b2=f32[10]
func Predict(x, w1, b1, w2, b2 *lazy.Tensor) *lazy.Tensor {
	h := x.MatMul(w1).Add(b1).ReLU()
	return h.MatMul(w2).Add(b2).Softmax(1)
}

// Tiny is a one-element function whose call overhead dominates its
// runtime (the benchmarks compare dispatch with it).
//
//xlajit:trace x=f32[1]
func Tiny(x *lazy.Tensor) *lazy.Tensor { return x.MulScalar(0.5).AddScalar(1) }
