// Package difftest is the differential tester of the project's one promise:
// a function compiled with jit.Compile behaves exactly as the plain Go
// function would (the same values, the same mutated inputs, the same
// returned tensors, identity included, the same errors), only faster.
//
// A seeded generator (Generate) writes random programs as data: a list of
// instructions over a register file of tensors (parameters, captured
// tensors, one register per instruction), the results, and a sequence of
// calls with their input data. The interpreter turns a program into an
// ordinary Go function over *lazy.Tensor values (reflect.MakeFunc gives it
// the program's own signature), so one program runs in eager mode, in
// lazy mode and under jit.Compile (first call a trace, later calls
// replays, new input data each call). Check runs every mode from identical
// state (fresh tensors from the same host data, the same RNG seed) and
// compares bit for bit with lazy mode: each result's values and identity,
// the final values of every argument and captured tensor, the RNG state,
// errors (a call that fails plainly must fail compiled, leaving the
// caller's tensors untouched), and the compiled function's statistics.
// Text prints a program as Go; Shrink reduces a failing one.
//
// A program's Go signature may pack tensor parameters into holders (a
// pointer to a generated struct; an interface holding a tensor, a struct,
// a pointer to one, a slice of tensors or a difftest.Ref or Box, its
// dynamic type changing between calls) and return values that are not
// tensors (ints and float64s of the statics, shapes and dynamic types,
// copies of dims, slices and structs of tensors and such values), which
// the caller writes into between calls (sig.go). Those are compared as
// text (numbers, lengths, nils, which pointers and slices are one) right
// after each call and once the calls are done; a call whose holders have
// dynamic types not seen together before must trace. They are drawn from
// a random stream of their own: switching them on repacks a program
// without changing its body or calls (but for one write into a held
// tensor that may end the body, and the bindings of calls that pass one
// struct twice).
//
// Three families reach beyond the op table's tensors. StateRestore draws
// State, Restore, Release, TakeData and SetData inside the function and
// roll-backs by the caller across calls; the analysis predicts which of
// them break a trace (ops_state.go). OptimSteps gives a program an
// optimizer of package optim over some captured tensors, stepped inside
// the function with some gradients nil, its state compared as captures
// are (ops_optim.go). Concurrent adds the jit-concurrent mode: the
// compiled function and a partner program's called from several
// goroutines at once, each call checked against the plain function on
// tensors of its own (concurrent.go; run it under -race too). Their
// program-level draws come from a stream of their own (gen_aux.go).
//
// Features switch families of generated behaviour on and off: the CI test
// runs the families that pass, the long run (-difftest.n) every family.
// With Sharding a program also runs in lazy mode on the SPMD device of four
// embedded devices (mode spmd, spmd.go), its inputs and some results laid
// out by a random ShardPlan; its values must agree with lazy mode's within
// the tolerances of a changed summation order.
//
// Place in the flow: a test-side package above jit. It imports jit, lazy,
// spmd, hlo and optim; nothing in the product imports it.
//
// A printed program (abridged):
//
//	lazy.ManualSeed(7)
//	c0 := lazy.FromSlice([]float32{0.5, -1, 2})
//	f := func(a0, a1 *lazy.Tensor) (*lazy.Tensor, *lazy.Tensor) {
//		t3 := a0.Mul(c0)
//		a1.Assign(t3.AddScalar(1))
//		return t3, a1
//	}
//	jf := jit.Compile(f)
//	// call 0 (input variant 0)
//	x0_0 := lazy.FromSlice([]float32{1, 2, 3})
//	r0_0, r0_1 := jf(x0_0, x0_0)
package difftest
