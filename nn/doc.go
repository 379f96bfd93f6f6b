// Package nn is what a model is made of around the compiled step: layers,
// weight initialisers, losses, named parameters and state dicts, and
// checkpoints in the safetensors format.
//
// A model is any Go value (struct, pointer, slice, array or map of them)
// whose leaves are *lazy.Tensor fields. Params lists its trainable tensors
// with stable names, the dotted field paths PyTorch uses in state dicts:
//
//	type Model struct {
//		Conv1 *nn.Conv2d `nn:"conv1"`
//		Blocks []*Block
//	}
//	nn.Params(m).Names() // [conv1.weight conv1.bias Blocks.0.Wqkv ...]
//
// A field's name is its Go name unless a `nn:"name"` tag says otherwise;
// `nn:"-"` hides a field, `nn:",buffer"` marks a tensor that is state but not
// trained (BatchNorm's running statistics). The names are the paths jit
// prints for the same tensors in Explain and its warnings, without the
// "arg N." prefix ("arg 0.Blocks.0.Wqkv"): both are built by
// jit.FieldPath, jit.IndexPath and jit.KeyPath. The layers of this package tag
// their fields with PyTorch's names (weight, bias, running_mean, ...), so a
// state dict written by PyTorch for the same architecture loads as is.
//
// Layers are small structs with a constructor (PyTorch's default
// initialisation) and a Forward method; they only call lazy ops, so they
// work eagerly, lazily and inside jit.Compile. State that changes in a
// forward pass (BatchNorm's running statistics in training mode) is written
// with Assign, which a compiled step replays (and donates).
//
// Place in the flow: above jit and lazy, beside optim and data; it imports
// lazy (and jit only for the path elements of names), never bridge, fx, hlo or pjrt.
//
// One printed example, a state dict listing (SaveFile writes it as
// safetensors):
//
//	conv1.weight       f32[16,1,5,5]
//	conv1.bias         f32[16]
//	bn1.running_mean   f32[16]   (buffer)
package nn
