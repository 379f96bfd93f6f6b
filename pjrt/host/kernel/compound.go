package kernel

import "github.com/xlajit/xlajit/hlo"

// Compound steps: an op family may compile an op (the anchor) together
// with neighbouring ops of its block as one step, when it has a kernel
// that does their work in one pass (a GEMM that reads a transposed operand
// through strides and applies bias, activation and residual to its output
// tiles while they are in cache). The planner asks each op's Entry.Group,
// in program order, before it forms elementwise fusions (and not at all
// when it compiles without fusion); the ops a compound claims are
// computed by it alone.
//
// The planner places the step where the last of its ops is, so every
// value it reads is defined before it runs; it checks that no op outside
// the compound reads a value of the compound other than its Outputs, and
// that those are read only after that place. Outputs must be newly
// allocated by Run (as a Fresh kernel's results).

// Compound is a group of ops compiled into one step.
type Compound struct {
	Ops     []*hlo.Op    // the ops the step computes, the anchor among them
	Inputs  []*hlo.Value // the values the step reads, defined outside Ops
	Outputs []*hlo.Value // the values of Ops read after the step or returned
	Run     RunFn        // args: the Inputs' values; results: the Outputs'
}

// GroupCtx is what a Grouper sees: the anchor and the block around it.
type GroupCtx struct {
	Op *hlo.Op // the anchor
	// Users lists the ops of the block that read v (directly or inside
	// their regions), in program order.
	Users func(v *hlo.Value) []*hlo.Op
	// Returned reports whether the block's terminator returns v.
	Returned func(v *hlo.Value) bool
	// InBlock reports whether op is an op of this block that no other
	// compound has claimed.
	InBlock func(op *hlo.Op) bool
	// OpCtx is the compile context of an op (for compiling members).
	OpCtx func(op *hlo.Op) *OpCtx
}

// Grouper returns the compound anchored at g.Op, or nil to compile the op
// alone.
type Grouper func(g *GroupCtx) (*Compound, error)
