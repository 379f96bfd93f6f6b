// Command mnist trains a 784-128-10 MLP (nn.Linear layers, optim.SGD with
// momentum, a data.Loader) on MNIST with jit.Compile on the
// default device (the embedded CPU device unless PJRT_DEVICE says
// otherwise), printing per-epoch loss and test accuracy, then the jit
// statistics and the mean step time.
//
//	go run ./examples/mnist [-epochs 5] [-batch 128] [-lr 0.05]
package main
