package kernel

import (
	"fmt"
	"sync"

	"github.com/xlajit/xlajit/hlo"
)

// Value is a runtime value of the embedded device: *hlo.Literal for a tensor,
// Tuple, or Token.
type Value = any

// Tuple is a runtime tuple.
type Tuple []Value

// Token is the runtime value of !stablehlo.token.
type Token struct{}

// RunFn executes one op: args are the operand values (never to be modified
// unless the op's entry says it may), results must be filled, one per op
// result.
type RunFn func(x *Ctx, args, results []Value) error

// CompileFn prepares one op at compile time (validate attributes, precompute
// strides, compile regions) and returns its runner. Errors name the op.
type CompileFn func(c *OpCtx) (RunFn, error)

// Entry declares one op of the embedded device.
type Entry struct {
	Name    string    // full op name, "stablehlo.add"
	Compile CompileFn // required
	// Fresh says every tensor result is a newly allocated literal that no
	// other value shares (so the planner may recycle it after its last use).
	Fresh bool
	// FreshOp, when set, decides Fresh for each op (an op whose results
	// are fresh for some attributes only).
	FreshOp func(op *hlo.Op) bool
	// NoAlloc says the kernel allocates no tensor storage itself: its
	// results are operands, views of them, or made by its regions or
	// callees (whose own steps account for them). Other kernels that are
	// not Fresh must fit their results in the memory limit before they
	// run.
	NoAlloc bool
	// Elementwise, when set, lets the planner fuse the op into a loop with
	// its elementwise neighbours (see Elementwise).
	Elementwise *Elementwise
	// Group, when set, may compile the op together with neighbouring ops
	// as one step (see Compound).
	Group Grouper
}

// Elementwise describes a fusible elementwise op: Tile computes results for
// elements [lo, hi) of flat, same-shaped operands. dst and srcs are views of
// whole literals of the op's types; the planner picks the ranges.
type Elementwise struct {
	// Prepare returns the tile function for the op's operand and result
	// element types, or an error when unsupported.
	Prepare func(c *OpCtx) (TileFn, error)
	// Cost is the rough cost of one element relative to an f32 add (0
	// means 1); the planner sizes parallel chunks with it.
	Cost int
	// ScalarOperands says rank-0 operands may stand for every element of a
	// larger result (select's predicate, clamp's bounds); the op's TileFn
	// then reads their element 0 for every index.
	ScalarOperands bool
}

// TileFn computes dst[lo:hi] from srcs[k][lo:hi]. It reads only DType and
// Data of its literals (the planner passes tile-sized views with no Dims),
// works for any sub-range, and tolerates dst sharing storage with a source
// of the same element type (in-place execution). For ops with
// ScalarOperands, a source with exactly one element is a scalar operand:
// its element 0 applies to every index.
type TileFn func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int)

// OpCtx is what an op's CompileFn sees.
type OpCtx struct {
	Op       *hlo.Op
	In       []hlo.Type // operand types
	Out      []hlo.Type // result types
	Module   *hlo.Module
	Compiler RegionCompiler
	// Mem is the memory account compile-time tables and constants are
	// checked against (CheckAlloc); nil: no limit.
	Mem *Mem
}

// InTensor returns operand i's tensor type (nil if it is not a tensor).
func (c *OpCtx) InTensor(i int) *hlo.TensorType {
	t, _ := c.In[i].(*hlo.TensorType)
	return t
}

// OutTensor returns result i's tensor type (nil if it is not a tensor).
func (c *OpCtx) OutTensor(i int) *hlo.TensorType {
	t, _ := c.Out[i].(*hlo.TensorType)
	return t
}

// Errorf returns an error naming the op and its source location.
func (c *OpCtx) Errorf(format string, args ...any) error {
	return &OpError{Op: c.Op.Name, Loc: c.Op.Loc, Msg: fmt.Sprintf(format, args...)}
}

// Ints returns an integer-list attribute (nil, false if absent or not ints).
func (c *OpCtx) Ints(name string) ([]int64, bool) {
	a := c.Op.Attr(name)
	if a == nil {
		return nil, false
	}
	return hlo.AttrInts(a)
}

// Int returns an integer attribute.
func (c *OpCtx) Int(name string) (int64, bool) {
	a := c.Op.Attr(name)
	if a == nil {
		return 0, false
	}
	return hlo.AttrInt(a)
}

// Enum returns an enum attribute's value ("GT").
func (c *OpCtx) Enum(name string) (string, bool) {
	a := c.Op.Attr(name)
	if a == nil {
		return "", false
	}
	return hlo.AttrEnum(a)
}

// OpError is an error of one op at compile or run time.
type OpError struct {
	Op  string
	Loc hlo.Loc
	Msg string
}

func (e *OpError) Error() string {
	if e.Loc.Line > 0 {
		return fmt.Sprintf("%s: %s: %s", e.Loc, e.Op, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Op, e.Msg)
}

// RegionCompiler compiles nested code for ops with regions or callees.
type RegionCompiler interface {
	// CompileRegion compiles a region; its block arguments are the
	// Subplan's arguments and its terminator's operands its results. The
	// region may read values of enclosing scopes.
	CompileRegion(r *hlo.Region) (Subplan, error)
	// CompileFunc compiles the module function called name.
	CompileFunc(name string) (Subplan, error)
}

// Subplan is compiled nested code.
type Subplan interface {
	// Run executes with the given arguments. A region plan reads and writes
	// the slots of x's current frame; to call it from several goroutines
	// at once, give each goroutine its own x.Fork().
	Run(x *Ctx, args []Value) ([]Value, error)
	NumResults() int
}

// Ctx is the execution context of one program run on one (virtual) device.
type Ctx struct {
	Replica, Partition         int
	NumReplicas, NumPartitions int
	// Comm exchanges data with the other devices of a replicated run (nil
	// when running on one device).
	Comm Comm
	// Checks collects the results of check.* ops (nil: checks still run and
	// a failed one is an error).
	Checks *CheckLog
	// Frame is the slot array of the function being run (used by region
	// plans).
	Frame []Value
	// Program gives access to program-level services (used by
	// interpreter.run_parallel).
	Program any
	// Cancel, when closed, asks ops that can run unboundedly (loops) to stop
	// with ErrCanceled; nil never cancels. See Canceled.
	Cancel <-chan struct{}
	// Pool recycles tensor storage within one execution on this goroutine
	// (nil: plain allocation). See NewLiteral.
	Pool *Pool
	// Mem is the memory account of the device the program runs on: the
	// planner reserves each step's results in it before the step runs, and
	// kernels whose result shapes come from operand values check it
	// (CheckAlloc) before allocating. nil: no accounting, no limit.
	Mem *Mem
	// Donated are the entry arguments the caller gave up: their storage
	// may hold results once they are dead.
	Donated []*hlo.Literal
	// StableArgs are the entry arguments that cannot change while they
	// live (device buffers the execution does not donate): kernels may keep
	// data derived from them across executions (see Derived).
	StableArgs []*hlo.Literal
	// InDonated are the results written into donated storage so far (they
	// take no bytes of their own: the donated buffer is counted until the
	// execution ends).
	InDonated []*hlo.Literal
}

// inDonated reports whether l is a result written into donated storage.
func (x *Ctx) inDonated(l *hlo.Literal) bool {
	for _, d := range x.InDonated {
		if d == l {
			return true
		}
	}
	return false
}

// InDonatedValue reports whether v is a result written into donated
// storage.
func (x *Ctx) InDonatedValue(v Value) bool {
	l, ok := v.(*hlo.Literal)
	return ok && len(x.InDonated) > 0 && x.inDonated(l)
}

// IsDonated reports whether l is a donated entry argument.
func (x *Ctx) IsDonated(l *hlo.Literal) bool {
	for _, d := range x.Donated {
		if d == l {
			return true
		}
	}
	return false
}

// Fork returns a copy of x with its own copy of the frame, for running a
// region plan concurrently.
func (x *Ctx) Fork() *Ctx {
	y := *x
	y.Frame = append([]Value(nil), x.Frame...)
	y.Pool = nil // a Pool belongs to one goroutine
	return &y
}

// Comm is the collective communication hub of a replicated run.
type Comm interface {
	// Exchange contributes v to the collective identified by key among the
	// devices of group (device = replica*NumPartitions+partition, or as
	// the op defines); it blocks until all have contributed and returns
	// every member's contribution in group order.
	Exchange(key string, self int, group []int, v Value) ([]Value, error)
}

// CheckLog collects check results, the probe values checks read back
// (probe.go) and where printed output goes (output.go).
type CheckLog struct {
	mu     sync.Mutex
	Passed int
	Failed []string
	probes probeStore // values interpreter.probe recorded (probe.go)
	out    outputSink // interpreter.print's destination (output.go)
}

// Record notes a check result; msg describes a failure.
func (l *CheckLog) Record(ok bool, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ok {
		l.Passed++
	} else {
		l.Failed = append(l.Failed, msg)
	}
}

// Alloc returns a new zero literal of the tensor type t (static dims).
func Alloc(t *hlo.TensorType) *hlo.Literal { return hlo.NewLiteral(t.DType, t.Dims...) }

var (
	regMu sync.Mutex
	table = map[string]*Entry{}
)

// Register adds op entries to the table. A second entry for one name is a
// programming error.
func Register(entries ...Entry) {
	regMu.Lock()
	defer regMu.Unlock()
	for i := range entries {
		e := entries[i]
		if _, dup := table[e.Name]; dup {
			panic("kernel: duplicate entry for " + e.Name)
		}
		table[e.Name] = &e
	}
}

// Alias returns the entry registered as name under a second name: an op
// of another dialect that means the same (chlo.tan is stablehlo.tan). name
// must be registered already: the family declaring the alias imports the
// one declaring name, whose init runs first.
func Alias(alias, name string) Entry {
	e := Lookup(name)
	if e == nil {
		panic("kernel: alias " + alias + " of unregistered op " + name)
	}
	a := *e
	a.Name = alias
	return a
}

// IsFresh reports whether op's tensor results are fresh (see Fresh and
// FreshOp).
func (e *Entry) IsFresh(op *hlo.Op) bool {
	if e.FreshOp != nil {
		return e.FreshOp(op)
	}
	return e.Fresh
}

// Lookup returns the entry for an op name.
func Lookup(name string) *Entry {
	regMu.Lock()
	defer regMu.Unlock()
	return table[name]
}

// Names lists every registered op, sorted.
func Names() []string { return sortedKeys(&regMu, table) }
