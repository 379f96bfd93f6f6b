package main

import (
	"errors"

	"github.com/xlajit/xlajit/lazy"
)

// Affine is marked; main calls its wrapper.
//
//xlajit:trace x=f32[2,3] w=f32[3, 4]
func Affine(x, w *lazy.Tensor) *lazy.Tensor {
	return x.MatMul(w).AddScalar(0.5).ReLU()
}

// Noisy draws random numbers (the RNG state is its only capture) and has
// two results and an error.
//
//xlajit:trace x=f32[4]
func Noisy(x *lazy.Tensor) (*lazy.Tensor, *lazy.Tensor, error) {
	if x.Rank() != 1 {
		return nil, nil, errors.New("want a vector")
	}
	n := lazy.RandN(lazy.F32, 4)
	return x.Add(n), n, nil
}

func unmarked(x *lazy.Tensor) *lazy.Tensor { return x.Neg() }
