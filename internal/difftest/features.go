package difftest

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Features switches families of generated behaviour on and off. A family
// that is known to fail is switched off in the CI preset until the product
// is fixed, then switched on; the long run can switch everything on.
type Features struct {
	// Ops.
	Elementwise bool // unary and binary elementwise ops, numpy broadcasting
	Scalar      bool // *Scalar ops and Clamp
	Compare     bool // comparisons, Where, logical ops on bools
	Reduce      bool // Sum, Mean, ReduceMax, ReduceMin, Prod, ArgMax, Cumsum, Softmax
	MatMul      bool // MatMul of compatible operands
	Shape       bool // Reshape, Permute, BroadcastTo, Unsqueeze, Squeeze, Narrow, Concat, Flip
	Cast        bool // casts between f32, f64, i32, bool (and f16, bf16 round trips)
	Consts      bool // tensors built from Go data inside the function (trace constants)

	// Mutation.
	AssignArg     bool // Assign to an argument
	AssignCapture bool // Assign to a captured tensor (a closure variable)
	AssignLocal   bool // Assign to a tensor made inside the function
	AssignInput   bool // Assign whose value is an argument or captured tensor itself
	AssignConst   bool // Assign to a tensor built from Go data inside the function
	// StateRestore: State, Restore, Release, TakeData and SetData inside
	// the function (a snapshot rolled back after a write in place, one
	// tensor's contents put into another, two tensors swapped) and the
	// caller rolling a captured tensor back across a call. Inside a trace
	// they are a graph break on a tensor the function did not make, and
	// when what they put into a tensor is not IR the function recorded.
	StateRestore bool
	// OptimSteps: an optimizer of package optim (SGD with momentum,
	// dampening, Nesterov and weight decay, Adam, AdamW, RMSProp,
	// Adagrad, some with a schedule) over captured tensors, stepped inside
	// the function with some gradients nil (always, or as a static
	// parameter says); the caller sets the learning rate between calls.
	OptimSteps bool

	// Arguments.
	AliasArgs    bool // the same tensor passed for two parameters
	CaptureAsArg bool // a captured tensor also passed as an argument
	PendingArgs  bool // arguments and captures holding pending IR when the call starts
	FeedOutputs  bool // an output of the previous call passed as an argument
	KeepArgs     bool // the same tensor passed again on the next call (mutations accumulate)
	UpdateCaps   bool // the caller assigns new data to a captured tensor between calls
	ShapeChange  bool // input shapes change between calls (retrace)
	Statics      bool // Go int and float64 parameters (part of the guard)

	// Results.
	PassThrough   bool // an unmutated argument or capture returned
	DupOutputs    bool // the same tensor returned twice
	ReturnMutated bool // a mutated argument or capture returned
	ReturnConst   bool // a tensor built from Go data inside the function returned
	// ReturnAssignedLocal: a tensor made inside the function, then
	// assigned to, returned.
	ReturnAssignedLocal bool
	MutateResults       bool // the caller assigns to returned tensors between calls
	SharedResults       bool // two returned tensors holding one value (one was assigned the other)
	// SharedMutations: two arguments or captures assigned one value, or a
	// result holding the value assigned to an argument or capture (after
	// the call they hold one buffer).
	SharedMutations bool

	// Random numbers (lazy.ManualSeed before each mode).
	Random     bool // RandUniform, RandN, Dropout inside the function
	ReseedInFn bool // lazy.ManualSeed inside the function

	// Host ops.
	HostOps   bool // NonZero, MaskedSelect, Unique (data-dependent shapes)
	HostFunc  bool // lazy.HostFunc with Go callbacks (declared shapes)
	HostChain bool // a HostFunc result feeding NonZero, MaskedSelect or Unique
	// HostChainMulti: a result of a HostFunc with several results feeding
	// NonZero, MaskedSelect or Unique.
	HostChainMulti bool
	HostError      bool // a HostFunc callback failing on some data
	// HostErrorUnused: a failing HostFunc whose result nothing reads.
	HostErrorUnused bool

	// Graph breaks: Item, Float32s inside the function with Go control flow
	// depending on the value.
	GraphBreak bool

	// RepeatedOperand: one tensor passed for two operands of an op (in
	// eager mode, a one-op graph reading one parameter twice).
	RepeatedOperand bool

	// ScalarToOne: ops with a 0-d operand whose result has rank >= 1 and
	// a single element.
	ScalarToOne bool

	// RuntimeChecks: ops whose errors depend on values and are found when
	// the value is computed (integer Rem by zero): eager mode fails at the
	// op, lazy mode at the read, a compiled call at the call.
	RuntimeChecks bool

	// Errors: ops invalid for some input shapes (a shape error in some
	// calls); the compiled function must fail where the plain one does.
	Errors bool

	// Signatures.
	SliceArgs bool // tensors passed as one []*lazy.Tensor parameter
	ErrResult bool // the function has a trailing error result
	// StructArgs: tensor parameters in fields of a pointer to a struct
	// (tensor fields, slice fields, a struct nested one level), read
	// through the pointer and written with Assign, never rebound (a
	// replay does not repeat Go assignments; jit warns about them); the
	// same struct passed again when its tensors are.
	StructArgs bool
	// InterfaceArgs: a parameter of type any or difftest.Tensorer holding
	// a tensor, a struct, a pointer to one, a slice of tensors, a
	// difftest.Ref or Box, its dynamic type changing between calls (a new
	// dynamic type must trace again).
	InterfaceArgs bool
	// SharedStructs: one struct pointer reaching the function through two
	// parameters (f(m, m), or m and an any holding m), as when a model's
	// parts are one object.
	SharedStructs bool
	// NonTensorResults: Go results that are not tensors (ints and float64s
	// of statics, shapes and dynamic types, a copy of a tensor's dims, a
	// slice of tensors, a struct or a pointer to one holding tensors and
	// such values); the caller writes into them between calls, which must
	// not change what later calls return.
	NonTensorResults bool
	// ArgResults: a struct argument (StructArgs) returned as it came, as
	// a result or a field of a result struct (NonTensorResults): the
	// call's own pointer, not a copy.
	ArgResults bool
	// UnexportedFields: some fields of generated structs (StructArgs,
	// InterfaceArgs) unexported, which the jit reaches as it does exported
	// ones.
	UnexportedFields bool

	// Modes beyond eager, lazy and jit.
	JitEager bool // the compiled function called with eager mode on
	// Concurrent: the compiled function and a second program's called from
	// several goroutines at once, shapes changing, each call compared with
	// the plain function on tensors of its own (programs that write no
	// tensor the goroutines share).
	Concurrent bool
	// Sharding: the program also runs in lazy mode on the SPMD device of
	// SPMDDevices embedded devices (mode spmd), its parameters, captures
	// and some instruction results laid out by random partition specs
	// (Program.Shardings); values are compared within the tolerances of
	// a changed summation order.
	Sharding bool
}

// AllFeatures has every family on.
func AllFeatures() Features {
	var f Features
	v := reflect.ValueOf(&f).Elem()
	for i := 0; i < v.NumField(); i++ {
		v.Field(i).SetBool(true)
	}
	return f
}

// CIFeatures is the preset the CI test runs: every family except those
// with known, still-open failures (KnownBroken) and those that differ
// between modes by design (ModeDependent).
func CIFeatures() Features {
	f := AllFeatures()
	for _, name := range append(append([]string{}, ModeDependent...), KnownBroken...) {
		if err := f.Set(name, false); err != nil {
			panic(err)
		}
	}
	return f
}

// KnownBrokenFamilies lists failure families (prefixes of Failure.Family)
// that no feature switch avoids and that are still open: "cache/" is a
// compile-cache hit on the long-lived device running another graph's
// executable (graphs that differ only in which parameter a repeated
// operand reads hash alike), which depends on what ran earlier in the
// process. TestPrograms logs them instead of failing.
var KnownBrokenFamilies = []string{}

// ModeDependent lists families whose behaviour legitimately differs
// between the modes, so bit-for-bit comparison does not apply: they are
// off in CIFeatures and the checker does not judge them.
var ModeDependent = []string{"RuntimeChecks"}

// KnownBroken lists the families switched off in CIFeatures because the
// product still fails them; a fix on main removes its name here.
var KnownBroken = []string{}

// Names returns the feature names (the struct's field names).
func FeatureNames() []string {
	t := reflect.TypeOf(Features{})
	out := make([]string, t.NumField())
	for i := range out {
		out[i] = t.Field(i).Name
	}
	return out
}

// Set switches one feature by name (case-insensitive).
func (f *Features) Set(name string, on bool) error {
	v := reflect.ValueOf(f).Elem()
	for i := 0; i < v.NumField(); i++ {
		if strings.EqualFold(v.Type().Field(i).Name, name) {
			v.Field(i).SetBool(on)
			return nil
		}
	}
	return fmt.Errorf("difftest: unknown feature %q (known: %s)", name, strings.Join(FeatureNames(), ", "))
}

// Get reports whether the named feature is on (false for unknown names).
func (f Features) Get(name string) bool {
	v := reflect.ValueOf(f)
	for i := 0; i < v.NumField(); i++ {
		if strings.EqualFold(v.Type().Field(i).Name, name) {
			return v.Field(i).Bool()
		}
	}
	return false
}

// Apply parses a comma-separated list of changes: "all", "none", "ci",
// "Name" or "+Name" (on), "-Name" (off), applied left to right.
func (f *Features) Apply(spec string) error {
	for _, w := range strings.Split(spec, ",") {
		w = strings.TrimSpace(w)
		switch strings.ToLower(w) {
		case "":
			continue
		case "all":
			*f = AllFeatures()
			continue
		case "none":
			*f = Features{}
			continue
		case "ci":
			*f = CIFeatures()
			continue
		}
		on := true
		if w[0] == '-' || w[0] == '+' {
			on = w[0] == '+'
			w = w[1:]
		}
		if err := f.Set(w, on); err != nil {
			return err
		}
	}
	return nil
}

// String lists the features that are on (or "none").
func (f Features) String() string {
	v := reflect.ValueOf(f)
	var on, off []string
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).Bool() {
			on = append(on, v.Type().Field(i).Name)
		} else {
			off = append(off, v.Type().Field(i).Name)
		}
	}
	sort.Strings(off)
	switch {
	case len(off) == 0:
		return "all"
	case len(on) == 0:
		return "none"
	case len(off) < len(on):
		return "all,-" + strings.Join(off, ",-")
	}
	return "none," + strings.Join(on, ",")
}
