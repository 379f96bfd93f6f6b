package difftest

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/xlajit/xlajit/lazy"
)

// Program is one generated test case: a function (its parameters, captured
// tensors, body and results) and the sequence of calls made to it. It is
// plain data: the interpreter turns it into a Go function over lazy tensors
// and the checker runs that function in every mode.
type Program struct {
	Seed     uint64
	Features Features

	// Variants are the input shape sets the calls choose from (one unless
	// shapes change between calls): Variants[v][i] is parameter i's shape.
	Variants [][]lazy.Shape
	// Statics are the Go parameters after the tensors: true for int,
	// false for float64.
	Statics []bool
	// Captures are the tensors the function closes over (fixed shapes,
	// fresh from CapData in every mode).
	Captures []lazy.Shape
	CapData  []Floats

	Body    []Instr
	Results []int // registers returned, in order

	SliceArgs bool // tensors come as one []*lazy.Tensor parameter
	SliceRes  bool // results go back as one []*lazy.Tensor
	ErrResult bool // a trailing error result

	// Holders are Go parameters holding tensor parameters (a pointer to a
	// struct, an interface): the other tensor parameters are parameters
	// of their own (sig.go; not with SliceArgs).
	Holders []Holder `json:",omitempty"`
	// Outs, when set, are the function's Go results (before the error):
	// tensors of Results (each once, in order) and values that are not
	// tensors (sig.go; not with SliceRes).
	Outs []Value `json:",omitempty"`

	Calls []Call
	// ReadEachCall reads every result right after its call (otherwise all
	// are read once the calls are done).
	ReadEachCall bool

	// Shardings is where the SPMD mode lays tensors out (Features.Sharding).
	Shardings *ShardPlan `json:",omitempty"`
	// Optim is the optimizer OptStep instructions step (Features.OptimSteps).
	Optim *OptimSpec `json:",omitempty"`
	// Conc, when set, has the jit-concurrent mode call the function from
	// several goroutines (Features.Concurrent).
	Conc *ConcPlan `json:",omitempty"`
}

// Registers: 0..len(params)-1 are the tensor parameters, then one per
// capture, then one per instruction (Assign's register is unused).
func (p *Program) NumParams() int { return len(p.Variants[0]) }

// CapReg returns the register of capture c.
func (p *Program) CapReg(c int) int { return p.NumParams() + c }

// InstrReg returns the register instruction i defines.
func (p *Program) InstrReg(i int) int { return p.NumParams() + len(p.Captures) + i }

// NumRegs is the size of the register file.
func (p *Program) NumRegs() int { return p.InstrReg(len(p.Body)) }

// Instr is one statement of the body: op applied to registers In with
// integer parameters I and float parameters F. It defines register
// InstrReg(its index).
type Instr struct {
	Op string
	In []int
	I  []int64
	F  Floats
}

// Call is one call of the function.
type Call struct {
	Variant int       // index into Program.Variants
	Statics Floats    // one per static parameter (ints hold whole numbers)
	Args    []Binding // one per tensor parameter
	// UpdateCaps assigns new data to captures before the call (caller
	// side, outside the function).
	UpdateCaps []CapUpdate
	// MutateResults assigns new data to results after the call (caller
	// side).
	MutateResults []ResultUpdate
	// Forms are the dynamic types of the holders in this call (one per
	// holder; FormPtr for a struct holder).
	Forms []Form `json:",omitempty"`
	// MutateOuts write into the call's non-tensor results after it
	// (caller side).
	MutateOuts []OutUpdate `json:",omitempty"`
	// Twins[h], unless -1, is the earlier holder whose Go value (a pointer
	// to a struct of the same layout, holding the same tensors) the call
	// passes for holder h too: one struct reaching the function twice.
	Twins []int `json:",omitempty"`
	// SetLR, unless 0, is a learning rate the caller sets before the call
	// (Program.Optim).
	SetLR float64 `json:",omitempty"`
	// RollBack are captures the caller snapshots with State before the
	// call and restores after it (Features.StateRestore).
	RollBack []int `json:",omitempty"`
}

// ResultUpdate is a caller-side assignment to a result of a call.
type ResultUpdate struct {
	Result int
	Data   Floats
}

// BindKind says where an argument tensor comes from.
type BindKind int

const (
	BindFresh   BindKind = iota // a new tensor from Data
	BindPending                 // a new tensor from Data, negated twice (pending IR)
	BindSame                    // the tensor passed for parameter Index of this call
	BindKeep                    // the tensor this parameter got in the previous call
	BindCapture                 // captured tensor Index
	BindPrevOut                 // result Index of the previous call
)

// Binding is one argument of a call.
type Binding struct {
	Kind  BindKind
	Index int
	Data  Floats // BindFresh, BindPending
}

// CapUpdate is a caller-side assignment to a captured tensor.
type CapUpdate struct {
	Cap     int
	Data    Floats
	Pending bool // leave the new value pending (negated twice)
}

// Floats is a list of float64 that survives JSON (NaN and infinities are
// written as strings).
type Floats []float64

// MarshalJSON writes finite values as numbers, others as "NaN", "+Inf", "-Inf".
func (f Floats) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for i, v := range f {
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case math.IsNaN(v):
			b = append(b, `"NaN"`...)
		case math.IsInf(v, 1):
			b = append(b, `"+Inf"`...)
		case math.IsInf(v, -1):
			b = append(b, `"-Inf"`...)
		default:
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		}
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *Floats) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(Floats, len(raw))
	for i, r := range raw {
		s := strings.Trim(string(r), `"`)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("difftest: bad float %s", r)
		}
		out[i] = v
	}
	*f = out
	return nil
}
