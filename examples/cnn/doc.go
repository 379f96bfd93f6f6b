// Command cnn trains a LeNet-style convolutional network with BatchNorm on
// MNIST with nn, optim and data: Adam with a cosine learning-rate schedule
// (warm-up included) computed on the device, a prefetching loader, a
// progress bar, a checkpoint (model and optimizer state, safetensors)
// after every epoch, and -resume to continue from it.
//
//	go run ./examples/cnn [-epochs 3] [-batch 64] [-lr 2e-3] [-ckpt cnn.safetensors] [-resume]
package main
