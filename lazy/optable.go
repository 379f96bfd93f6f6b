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
	// op runs through GoKernel, on the CPU between device programs).
	Lower func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value
	// GoKernel computes the op in Go on host literals (nil: the op only
	// runs on a device). Ops with data-dependent output shapes have only
	// this. (Not to be confused with pjrt/host, the embedded device, which
	// runs lowered programs.)
	GoKernel func(in []*hlo.Literal, a Attrs) ([]*hlo.Literal, error)
	// VJP returns the gradient of each input given the inputs x, the
	// outputs y and the output gradients dy (nil entries mean zero). A nil
	// VJP means the op is not differentiable; NoGrad marks ops whose
	// gradient is zero by definition (comparisons, argmax, integer ops).
	VJP    func(x, y, dy []*Tensor, a Attrs) []*Tensor
	NoGrad bool
	// Random marks ops that read and advance the device RNG state.
	Random bool

	// arity is the number of operands {min, max} (max -1: any number),
	// set for the table's ops; Apply checks it before the shape rule,
	// which may index its operands.
	arity    [2]int
	hasArity bool
	// named is the node hasher after the op's name (set for table rows:
	// every node hashes its op's name first), valid while Name is
	// namedFor.
	named    hasher
	namedFor string
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
	opReLU
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
	opClampMin
	opClampMax
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
	// a Go number filling a shape (api_create.go, splatOn)
	opSplat
	// the identity with a zero gradient (Tensor.Detach)
	opStopGradient
	numOps
)

var (
	table  [numOps]*OpDef
	byName = map[string]*OpDef{} // LookupOp
)

func define(code opCode, d *OpDef) {
	if table[code] != nil || byName[d.Name] != nil {
		panic(bugf("op code or name defined twice: %s", d.Name))
	}
	if d.Infer == nil {
		panic(bugf("op %s has no shape rule", d.Name))
	}
	d.arity, d.hasArity = operandCount(code), true
	d.named, d.namedFor = newHasher(), d.Name
	d.named.str(d.Name)
	table[code] = d
	byName[d.Name] = d
}

// operandCount is op code's number of operands {min, max} (max -1: any).
func operandCount(code opCode) [2]int {
	switch {
	case code >= opNeg && code <= opIsFinite, code == opCast, code == opClamp, code == opStopGradient:
		return [2]int{1, 1}
	case code >= opAdd && code <= opCompare:
		return [2]int{2, 2}
	}
	switch code {
	case opDeviceData, opConstant, opIota, opSplat:
		return [2]int{0, 0}
	case opWhere, opScatterAddAlong:
		return [2]int{3, 3}
	case opReduceSum, opReduceMax, opReduceMin, opReduceProd, opArgMax, opArgMin, opReshape, opTranspose, opBroadcast,
		opSlice, opPad, opReverse, opReduceWindow, opCumsum, opSort, opRngBits, opNonZero, opUnique:
		return [2]int{1, 1}
	case opSharding, opFullToShard, opShardToFull:
		return [2]int{1, 1}
	case opDotGeneral, opConv, opTakeAlong, opSelectAndScatterMax, opMaskedSelect, opMaskedScatter, opCheck:
		return [2]int{2, 2}
	case opConcat, opDynamicSlice:
		return [2]int{1, -1}
	case opDynamicUpdateSlice:
		return [2]int{2, -1}
	case opHostFunc:
		return [2]int{0, -1}
	}
	panic(bugf("op code %d has no operand count", code))
}

// checkArity reports a wrong number of operands for op.
func (op *OpDef) checkArity(n int) error {
	if !op.hasArity {
		return nil
	}
	lo, hi := op.arity[0], op.arity[1]
	switch {
	case hi < 0 && n < lo:
		return fmt.Errorf("takes at least %d operands, got %d", lo, n)
	case hi >= 0 && (n < lo || n > hi) && lo == hi:
		return fmt.Errorf("takes %d operands, got %d", lo, n)
	case hi >= 0 && (n < lo || n > hi):
		return fmt.Errorf("takes %d to %d operands, got %d", lo, hi, n)
	}
	return nil
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

// LookupOp returns the op called name, or nil (parsers use it: a graph
// in memory holds its ops' definitions, never their names).
func LookupOp(name string) *OpDef { return byName[name] }

// checkTable reports ops without a row, or with neither a lowering nor a
// Go kernel.
func checkTable() error {
	for i, d := range table {
		if d == nil {
			return fmt.Errorf("lazy: op code %d has no table row", i)
		}
		if d.Lower == nil && d.GoKernel == nil && opCode(i) != opDeviceData {
			return fmt.Errorf("lazy: op %s has neither a lowering nor a Go kernel", d.Name)
		}
	}
	return nil
}

// nameHasher returns a node hasher that has hashed the op's name.
func (d *OpDef) nameHasher() hasher {
	if d.namedFor != "" && d.Name == d.namedFor {
		return d.named
	}
	h := newHasher()
	h.str(d.Name)
	return h
}
