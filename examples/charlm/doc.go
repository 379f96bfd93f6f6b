// Command charlm trains a character-level GRU language model on Go source
// code (by default the standard library's strings and bytes packages under
// GOROOT) with nn, optim and data, then samples text from it.
//
// The whole training step (embedding, a GRU unrolled over the window, the
// output layer, cross-entropy, gradients, global-norm clipping, AdamW with
// a cosine schedule) is one compiled program; sampling runs one compiled
// GRU step per character.
//
//	go run ./examples/charlm [-steps 600] [-seq 48] [-batch 32] [-hidden 192] [-sample 300]
package main
