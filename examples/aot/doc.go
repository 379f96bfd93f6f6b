// Command aot runs a model function traced ahead of time by xlajit gen:
// PredictAOT, generated from Predict (model.go) into zz_xlajit_model.go,
// replays the embedded graph from its first call, without tracing; so does
// ClassifyAOT, whose function takes a model struct (classifier.go). It
// classifies a batch of random images with random weights and prints the
// first predictions and the jit statistics.
//
//	go generate ./examples/aot   # after changing Predict
//	go run ./examples/aot
package main
