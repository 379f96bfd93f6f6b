package lazy

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
)

// OpDef is one row of the op table (DESIGN.md §3): everything the runtime
// knows about an op. Printing, hashing, lowering, host fallback and autodiff
// all read it.
type OpDef struct {
	Name string
	// Infer is the dtype/shape rule: output shapes from operand shapes and
	// attributes, or an error saying what is wrong (the caller adds the op,
	// the operand shapes and the call site).
	Infer func(in []Shape, a Attrs) ([]Shape, error)
	// Lower emits the op into a StableHLO function (nil: no lowering; the
	// op runs on the host through Host).
	Lower func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value
	// Host computes the op on host literals (nil: the op only runs on a
	// device). Ops with data-dependent output shapes have only this.
	Host func(in []*hlo.Literal, a Attrs) ([]*hlo.Literal, error)
	// VJP returns the gradient of each input given the inputs x, the
	// outputs y and the output gradients dy (nil entries mean zero). A nil
	// VJP means the op is not differentiable; NoGrad marks ops whose
	// gradient is zero by definition (comparisons, argmax, integer ops).
	VJP    func(x, y, dy []*Tensor, a Attrs) []*Tensor
	NoGrad bool
	// Random marks ops that read and advance the device RNG state.
	Random bool
}

// opCode indexes the op table.
type opCode int

// The op codes; each has exactly one row in table, set by the family files.
const (
	opDeviceData opCode = iota
	opConstant
	opIota
	// elementwise unary
	opNeg
	opAbs
	opExp
	opExpm1
	opLog
	opLog1p
	opSqrt
	opRsqrt
	opTanh
	opSigmoid
	opSin
	opCos
	opFloor
	opCeil
	opRound
	opSign
	opNot
	opRelu
	opErf
	opIsFinite
	// elementwise binary
	opAdd
	opSub
	opMul
	opDiv
	opPow
	opMax
	opMin
	opRem
	opAtan2
	opAnd
	opOr
	opXor
	opCompare
	opWhere
	opCast
	opClamp
	// reductions
	opReduceSum
	opReduceMax
	opReduceMin
	opReduceProd
	opArgMax
	opArgMin
	// linear algebra
	opDotGeneral
	opConv
	// shapes
	opReshape
	opTranspose
	opBroadcast
	opSlice
	opConcat
	opPad
	opReverse
	// indexing
	opTakeAlong
	opScatterAddAlong
	opDynamicSlice
	opDynamicUpdateSlice
	// windows and scans
	opReduceWindow
	opSelectAndScatterMax
	opCumsum
	opSort
	// random
	opRngBits
	// host-only
	opNonZero
	opUnique
	opMaskedSelect
	opMaskedScatter
	opHostFunc
	// run-time checks
	opCheck
	// SPMD sharding annotations and manual regions (spmd.go, spmd_manual.go)
	opSharding
	opFullToShard
	opShardToFull
	numOps
)

var table [numOps]*OpDef

func define(code opCode, d *OpDef) {
	if table[code] != nil {
		panic("lazy: op code defined twice: " + d.Name)
	}
	if d.Infer == nil {
		panic("lazy: op " + d.Name + " has no shape rule")
	}
	table[code] = d
}

// Ops returns every op definition (for tests and tools).
func Ops() []*OpDef {
	out := make([]*OpDef, 0, numOps)
	for _, d := range table {
		if d != nil {
			out = append(out, d)
		}
	}
	return out
}

// LookupOp returns the op called name, or nil.
func LookupOp(name string) *OpDef {
	for _, d := range table {
		if d != nil && d.Name == name {
			return d
		}
	}
	return nil
}

// checkTable reports ops without a row, or with neither a lowering nor a
// host kernel.
func checkTable() error {
	for i, d := range table {
		if d == nil {
			return fmt.Errorf("lazy: op code %d has no table row", i)
		}
		if d.Lower == nil && d.Host == nil && opCode(i) != opDeviceData {
			return fmt.Errorf("lazy: op %s has neither a lowering nor a host kernel", d.Name)
		}
	}
	return nil
}
