package hlo

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/xlajit/xlajit/internal/slab"
)

// Builder builds one module op by op, inferring every result type.
//
//	b := hlo.NewBuilder("jit_fn")
//	f := b.Func("main")
//	x := f.Arg(hlo.NewTensorType(hlo.F32, 2, 3))
//	f.Return(f.Add(x, x))
//	m, err := b.Build()
//
// Errors are sticky: the first failing call records an error naming the op,
// its operand types and the Go caller's file:line; every later call returns
// placeholder values (never nil) and Build returns that first error.
type Builder struct {
	m     *Module
	err   error
	funcs []*FuncBuilder
	locs  bool
	// ic and args are reused by emit for each op's inference.
	ic   inferCtx
	args []Type
	// given holds an op's declared result types during emit1.
	given []Type
	// ops, bcasts, consts and splats hold the cells of single-result ops
	// and of the attributes and types of broadcasts and constants
	// (internal/slab).
	ops    slab.Slab[opCell]
	bcasts slab.Slab[bcastCell]
	consts slab.Slab[constCell]
	splats slab.Slab[splatCell]
}

// NewBuilder starts a module named name (without '@'; empty for an
// anonymous module).
func NewBuilder(name string) *Builder {
	return &Builder{m: &Module{Name: name}, locs: true, args: make([]Type, 0, 4)}
}

// SetLocations chooses whether ops record the Go caller's file:line as
// their Loc (default true). Locations make Verify messages point at the
// lowering code.
func (b *Builder) SetLocations(on bool) { b.locs = on }

// SetAttr sets a module attribute (mhlo.num_replicas, mhlo.num_partitions,
// ...).
func (b *Builder) SetAttr(name string, a Attr) { b.m.Attrs = SetAttr(b.m.Attrs, name, a) }

// Err returns the first error recorded so far.
func (b *Builder) Err() error { return b.err }

// Module returns the module being built (not yet verified).
func (b *Builder) Module() *Module { return b.m }

// Build finishes the module: it returns the first builder error, or an
// error if a function has no Return, or the result of Verify.
func (b *Builder) Build() (*Module, error) {
	if b.err != nil {
		return nil, b.err
	}
	for _, f := range b.funcs {
		if !f.returned {
			return nil, fmt.Errorf("hlo.Builder: function @%s has no Return", f.f.Name)
		}
	}
	if err := Verify(b.m); err != nil {
		return nil, err
	}
	b.seal()
	return b.m, nil
}

// seal fingerprints the finished module (Module.Built). The sizes of the
// functions' argument and result types, which no op's inference checked,
// are checked here; a module with one too large is left to Verify.
func (b *Builder) seal() {
	for _, f := range b.m.Funcs {
		for _, a := range f.Args {
			if CheckTypeSize(a.Type) != nil {
				return
			}
		}
		for _, t := range f.ResultTypes {
			if CheckTypeSize(t) != nil {
				return
			}
		}
	}
	s := sealOf(b.m)
	b.m.sealed = &s
}

// Finish is Build without the final Verify, for callers that hand the
// module to something that verifies it anyway (the embedded device checks
// every module it compiles, except one still as Finish left it:
// Module.Built): the builder inferred every op's types as it went, and
// verifying costs as much again.
func (b *Builder) Finish() (*Module, error) {
	if b.err != nil {
		return nil, b.err
	}
	for _, f := range b.funcs {
		if !f.returned {
			return nil, fmt.Errorf("hlo.Builder: function @%s has no Return", f.f.Name)
		}
	}
	b.seal()
	return b.m, nil
}

// BuildError is a builder error: where the Go code called the builder, the
// op, and what was wrong.
type BuildError struct {
	Loc Loc // the Go caller
	Op  string
	Err error
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("%s:%d: %v", e.Loc.File, e.Loc.Line, e.Err)
}

func (e *BuildError) Unwrap() error { return e.Err }

// fail records the first error, wrapped with the caller's location.
func (b *Builder) fail(op string, err error) {
	if b.err != nil {
		return
	}
	b.err = &BuildError{Loc: callerLoc(), Op: op, Err: err}
}

// failf records an error whose message starts with the op name.
func (b *Builder) failf(op string, format string, args ...any) {
	b.fail(op, fmt.Errorf("%s: %s", op, fmt.Sprintf(format, args...)))
}

var builderDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}()

// callerLoc returns the first stack frame outside the builder's own files.
// What each program counter resolves to is cached: turning one into
// file:line costs about a microsecond, and a lowering emits many ops from
// few lines.
func callerLoc() Loc {
	var buf [32]uintptr
	pcs := buf[:runtime.Callers(2, buf[:])]
	for _, pc := range pcs {
		var info pcLoc
		if v, ok := pcLocs.Load(pc); ok {
			info = v.(pcLoc)
		} else {
			info = resolvePC(pc)
			pcLocs.Store(pc, info)
		}
		if info.outside {
			return info.loc
		}
	}
	return Loc{}
}

// pcLoc is what one program counter resolves to: the first frame (of those
// inlined at it) outside the builder's files, if any.
type pcLoc struct {
	loc     Loc
	outside bool
}

var pcLocs sync.Map // uintptr -> pcLoc

func resolvePC(pc uintptr) pcLoc {
	frames := runtime.CallersFrames([]uintptr{pc})
	for {
		fr, more := frames.Next()
		base := filepath.Base(fr.File)
		inBuilder := filepath.Dir(fr.File) == builderDir && strings.HasPrefix(base, "builder") && !strings.HasSuffix(base, "_test.go")
		if !inBuilder && fr.File != "" {
			return pcLoc{Loc{File: filepath.Join(filepath.Base(filepath.Dir(fr.File)), base), Line: fr.Line}, true}
		}
		if !more {
			return pcLoc{}
		}
	}
}

// FuncBuilder builds one function; its embedded Scope adds ops to the
// function body.
type FuncBuilder struct {
	*Scope
	f        *Func
	returned bool
}

// Func starts a public function called name (without '@').
func (b *Builder) Func(name string) *FuncBuilder {
	f := &Func{Name: name, Visibility: "public", Body: &Region{Blocks: []*Block{{}}}}
	fb := &FuncBuilder{f: f}
	fb.Scope = &Scope{b: b, block: f.Body.Blocks[0], fn: fb}
	for _, o := range b.funcs {
		if o.f.Name == name {
			b.failf("func.func", "function @%s is defined twice", name)
		}
	}
	b.funcs = append(b.funcs, fb)
	b.m.Funcs = append(b.m.Funcs, f)
	return fb
}

// Func returns the function being built.
func (f *FuncBuilder) Func() *Func { return f.f }

// Reserve makes room in the function's body for n more ops (a caller that
// knows how many ops it adds spares the body's list its growth).
func (f *FuncBuilder) Reserve(n int) {
	if blk := f.f.Body.Blocks[0]; n > 0 && cap(blk.Ops)-len(blk.Ops) < n {
		blk.Ops = append(make([]*Op, 0, len(blk.Ops)+n), blk.Ops...)
	}
}

// Name returns the function name.
func (f *FuncBuilder) Name() string { return f.f.Name }

// Private makes the function private (JAX's helpers are); it returns f.
func (f *FuncBuilder) Private() *FuncBuilder {
	f.f.Visibility = "private"
	return f
}

// SetAttr sets a function attribute.
func (f *FuncBuilder) SetAttr(name string, a Attr) { f.f.Attrs = SetAttr(f.f.Attrs, name, a) }

// Arg appends an argument of type t.
func (f *FuncBuilder) Arg(t Type) *Value { return f.ArgWithAttrs(t) }

// ArgWithAttrs appends an argument with argument attributes
// (jax.result_info, mhlo.sharding, tf.aliasing_output...).
func (f *FuncBuilder) ArgWithAttrs(t Type, attrs ...NamedAttr) *Value {
	b := f.b
	if b.err != nil {
		return placeholder()
	}
	if t == nil {
		b.failf("func.func", "argument #%d of @%s has no type", len(f.f.Args), f.f.Name)
		return placeholder()
	}
	if f.returned {
		b.failf("func.func", "argument added to @%s after Return", f.f.Name)
		return placeholder()
	}
	v := &Value{Type: t, Index: len(f.f.Args)}
	f.f.Args = append(f.f.Args, v)
	f.f.Body.Blocks[0].Args = f.f.Args
	if len(attrs) > 0 || f.f.ArgAttrs != nil {
		for len(f.f.ArgAttrs) < len(f.f.Args)-1 {
			f.f.ArgAttrs = append(f.f.ArgAttrs, nil)
		}
		var d *DictAttr
		if len(attrs) > 0 {
			da := DictAttr(attrs)
			d = &da
		}
		f.f.ArgAttrs = append(f.f.ArgAttrs, d)
	}
	v.scope = f.Scope
	return v
}

// Return ends the function with func.return of vs; the function's result
// types are theirs.
func (f *FuncBuilder) Return(vs ...*Value) {
	f.ReturnWithAttrs(vs, nil)
}

// ReturnWithAttrs is Return with per-result attributes (nil entries
// allowed; a nil slice for none).
func (f *FuncBuilder) ReturnWithAttrs(vs []*Value, attrs []*DictAttr) {
	b := f.b
	if b.err != nil {
		return
	}
	if f.returned {
		b.failf("func.return", "@%s already returned", f.f.Name)
		return
	}
	if !f.checkOperands("func.return", vs) {
		return
	}
	if attrs != nil && len(attrs) != len(vs) {
		b.failf("func.return", "%d result attributes for %d results", len(attrs), len(vs))
		return
	}
	op := NewOp("func.return", append([]*Value{}, vs...), nil)
	f.setLoc(op)
	f.block.Ops = append(f.block.Ops, op)
	f.f.ResultTypes = valueTypes(vs)
	f.f.ResultAttrs = attrs
	f.returned = true
}

// Scope adds ops to one block: a function body or the region of an op
// (reduce bodies, while conditions, branches...).
type Scope struct {
	b      *Builder
	parent *Scope
	block  *Block
	fn     *FuncBuilder
	closed bool // its region's callback has returned
}

// Builder returns the builder the scope belongs to.
func (s *Scope) Builder() *Builder { return s.b }

// Err returns the builder's first error.
func (s *Scope) Err() error { return s.b.err }

// placeholder is what calls return after an error: a value of a 0-d
// tensor of invalid element type, attached to no op.
func placeholder() *Value {
	return &Value{Type: &TensorType{DType: InvalidDType, Dims: []int64{}}}
}

func placeholders(n int) []*Value {
	out := make([]*Value, n)
	for i := range out {
		out[i] = placeholder()
	}
	return out
}

func (s *Scope) setLoc(op *Op) {
	if s.b.locs {
		op.Loc = callerLoc()
	}
}

// encloses reports whether t is s or one of its ancestors.
func (s *Scope) encloses(t *Scope) bool {
	for x := s; x != nil; x = x.parent {
		if x == t {
			return true
		}
	}
	return false
}

// checkOperands records an error for a nil operand, a value of another
// builder or function, or a value of a scope that does not enclose s.
func (s *Scope) checkOperands(op string, vs []*Value) bool {
	for i, v := range vs {
		if v == nil {
			s.b.failf(op, "operand #%d is nil", i)
			return false
		}
		def := v.scope
		switch {
		case def == nil || def.b != s.b:
			s.b.failf(op, "operand #%d of type %s was not made by this builder", i, v.Type)
			return false
		case def.fn != s.fn:
			s.b.failf(op, "operand #%d of type %s belongs to function @%s, not @%s", i, v.Type, def.fn.f.Name, s.fn.f.Name)
			return false
		case !s.encloses(def):
			s.b.failf(op, "operand #%d of type %s is defined in a region that does not enclose this op", i, v.Type)
			return false
		}
	}
	if s.closed {
		s.b.failf(op, "scope used after its region was built")
		return false
	}
	if s.fn.returned && s.parent == nil {
		s.b.failf(op, "op added to @%s after Return", s.fn.f.Name)
		return false
	}
	return true
}

// emit infers the result types of an op, appends it and returns its
// results. given are the declared result types for ops that need them (nil
// otherwise); nres is the result count to fake after an error.
func (s *Scope) emit(name string, operands []*Value, attrs []NamedAttr, regions []*Region, given []Type, nres int) []*Value {
	b := s.b
	if b.err != nil {
		return placeholders(nres)
	}
	if !s.checkOperands(name, operands) {
		return placeholders(nres)
	}
	for i, g := range given {
		if isNilType(g) {
			b.failf(name, "result type #%d is nil", i)
			return placeholders(nres)
		}
	}
	b.args = typesInto(b.args[:0], operands)
	types, err := inferWith(&b.ic, name, b.args, attrs, regions, given)
	if err != nil {
		b.fail(name, err)
		return placeholders(nres)
	}
	return s.appendOp(name, operands, attrs, regions, types)
}

// appendOp appends an op of checked operands and result types to the
// scope's block and returns its results.
func (s *Scope) appendOp(name string, operands []*Value, attrs []NamedAttr, regions []*Region, types []Type) []*Value {
	var op *Op
	if len(types) == 1 && len(operands) <= maxInline {
		op = s.b.ops.Get().init(name, len(operands), types[0], attrs)
		copy(op.Operands, operands)
	} else {
		op = newOpCopy(name, operands, types, attrs)
	}
	op.Regions = regions
	s.setLoc(op)
	s.block.Ops = append(s.block.Ops, op)
	for _, r := range op.Results {
		r.scope = s
	}
	return op.Results
}

// emit1 is emit for single-result ops. A given type is passed on in a
// list the builder holds (the op keeps the type, not the list), so the
// caller's list stays on its stack.
func (s *Scope) emit1(name string, operands []*Value, attrs []NamedAttr, given ...Type) *Value {
	var g []Type
	if len(given) > 0 {
		s.b.given = append(s.b.given[:0], given...)
		g = s.b.given
	}
	return s.emit(name, operands, attrs, nil, g, 1)[0]
}

// region builds a one-block region whose arguments have the given types;
// fill adds its ops and returns the values of its stablehlo.return. It
// returns nil after an error.
func (s *Scope) region(op string, argTypes []Type, fill func(sub *Scope, args []*Value) []*Value) *Region {
	b := s.b
	if fill == nil {
		b.failf(op, "region callback is nil")
		return nil
	}
	// After an error the callback still runs (on placeholders) so callers
	// learn how many results to fake.
	blk := &Block{}
	sub := &Scope{b: b, parent: s, block: blk, fn: s.fn}
	for i, t := range argTypes {
		a := &Value{Type: t, Index: i}
		blk.Args = append(blk.Args, a)
		a.scope = sub
	}
	res := fill(sub, append([]*Value{}, blk.Args...))
	if b.err != nil {
		return nil
	}
	if !sub.checkOperands("stablehlo.return", res) {
		return nil
	}
	ret := NewOp("stablehlo.return", append([]*Value{}, res...), nil)
	sub.setLoc(ret)
	blk.Ops = append(blk.Ops, ret)
	sub.closed = true
	return &Region{Blocks: []*Block{blk}}
}

// Op is the escape hatch: it appends any op. With resultTypes empty the
// result types are inferred (the op must have a rule); otherwise they are
// checked against inference when the op has a rule, and taken as given.
// Ops of other dialects need their result types.
func (s *Scope) Op(name string, operands []*Value, attrs []NamedAttr, resultTypes ...Type) []*Value {
	return s.OpWithRegions(name, operands, attrs, nil, resultTypes...)
}

// OpWithRegions is Op for ops with regions built by NewRegion.
func (s *Scope) OpWithRegions(name string, operands []*Value, attrs []NamedAttr, regions []*Region, resultTypes ...Type) []*Value {
	b := s.b
	if b.err != nil {
		return placeholders(len(resultTypes))
	}
	if !s.checkOperands(name, operands) {
		return placeholders(len(resultTypes))
	}
	types := resultTypes
	if HasInferenceRule(name) {
		var given []Type
		if len(resultTypes) > 0 {
			given = resultTypes
		}
		got, err := InferResultTypesFrom(name, valueTypes(operands), attrs, regions, given)
		if err != nil {
			b.fail(name, err)
			return placeholders(len(resultTypes))
		}
		if given != nil {
			if !typesCompatibleList(got, given) {
				b.failf(name, "result types (%s) differ from inferred (%s) for operands (%s)", typeList(given), typeList(got), typeList(valueTypes(operands)))
				return placeholders(len(resultTypes))
			}
		} else {
			types = got
		}
	}
	for i, t := range types {
		if isNilType(t) {
			b.failf(name, "result type #%d is nil", i)
			return placeholders(len(resultTypes))
		}
	}
	return s.appendOp(name, operands, attrs, regions, types)
}

// NewRegion builds a region for OpWithRegions: a block taking argTypes
// whose ops fill adds; its results end it with stablehlo.return.
func (s *Scope) NewRegion(argTypes []Type, fill func(sub *Scope, args []*Value) []*Value) *Region {
	return s.region("region", argTypes, fill)
}

// isNilType reports a nil Type, including a typed nil pointer.
func isNilType(t Type) bool {
	switch t := t.(type) {
	case nil:
		return true
	case *TensorType:
		return t == nil
	case *TupleType:
		return t == nil
	case *TokenType:
		return t == nil
	}
	return false
}
