// Package optim updates a model's parameters from their gradients: SGD
// (momentum, Nesterov, weight decay), Adam, AdamW, RMSProp and Adagrad,
// learning-rate schedules and gradient clipping.
//
// Every optimizer writes the parameters and its own state (momentum, moment
// estimates) in place with Assign, so inside jit.Compile a training step's
// updates are mutations that each replay repeats, and from the second step
// on the old buffers are donated. The learning rate and the step count are
// device tensors (f32 and i64 scalars) read by the compiled graph; a
// Schedule is a function of the step count evaluated inside the graph, so
// a changing learning rate never changes the program and never retraces.
//
//	opt := optim.NewAdam(nn.Params(m).Tensors(), 1e-3,
//		optim.WithSchedule(optim.Cosine{Base: 1e-3, Warmup: 100, Total: 3000}))
//	step := jit.Compile(func(m *Model, opt *optim.Adam, x, y *lazy.Tensor) *lazy.Tensor {
//		loss := nn.CrossEntropy(m.Forward(x), y)
//		opt.Step(lazy.Grad(loss, opt.Params...))
//		return loss
//	})
//
// Optimizer state is named as in PyTorch's optimizer state_dict
// ("state.0.exp_avg", ...) and saved with nn.SaveTensors.
//
// Place in the flow: beside nn and data, above jit and lazy; it imports
// lazy (and jit only for struct walking), never nn, bridge, fx, hlo or pjrt.
//
// One printed example, Adam's state dict for two parameters:
//
//	lr               f32[]
//	step             i64[]
//	state.0.exp_avg     f32[16,1,5,5]
//	state.0.exp_avg_sq  f32[16,1,5,5]
//	state.0.step        i64[]
//	state.1.exp_avg     f32[16]
//	state.1.exp_avg_sq  f32[16]
//	state.1.step        i64[]
//
// "step" counts Step calls (the Schedule reads it); "state.<i>.step"
// counts the updates that had a gradient for parameter i (PyTorch's
// state[p]["step"], which Adam's bias corrections, Adagrad's decay and
// SGD's undamped first momentum step read). Base.UpgradeCheckpoint
// completes a checkpoint saved before the per-parameter counts existed.
package optim
