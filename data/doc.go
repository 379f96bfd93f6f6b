// Package data feeds a training loop: datasets in memory and in files,
// seeded shuffling, batching (drop the last partial batch or pad it to full
// size with a mask, so a compiled step sees one shape), a loader that
// prepares the next batch on another goroutine while the device runs the
// current one, a character-level text dataset, sequence-length buckets and
// a progress bar with throughput.
//
// A Dataset is indexable examples whose fields have fixed per-example
// shapes (Specs); a batch of B examples is one tensor [B, dims...] per
// field. MNIST lives in the sub-package data/mnist.
//
//	ld, _ := data.NewLoader(ds, data.LoaderConfig{BatchSize: 128, Shuffle: true, Seed: 1, DropLast: true})
//	for b, err := range ld.Epoch(epoch) {
//		if err != nil { ... }
//		loss := step(model, opt, b.Tensors[0], b.Tensors[1])
//	}
//
// Place in the flow: beside nn and optim, above jit and lazy; it imports
// lazy only (and a progress-bar library), never bridge, fx, hlo or pjrt.
//
// One printed example, a dataset's specs and a batch:
//
//	[image f32[1,28,28] label i32[]]
//	batch 3 of epoch 0: 128 examples, tensors f32[128,1,28,28] i32[128]
package data
