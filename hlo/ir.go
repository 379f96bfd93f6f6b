package hlo

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Loc is a source position (parsed file, 1-based line and column). The zero
// Loc means "unknown".
type Loc struct {
	File      string
	Line, Col int
}

func (l Loc) String() string {
	if l.Line == 0 {
		if l.File == "" {
			return "<unknown>"
		}
		return l.File
	}
	return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Col)
}

// Module is a builtin.module: a list of functions plus attributes.
type Module struct {
	Name  string // symbol name without '@'; empty for an anonymous module
	Attrs []NamedAttr
	Funcs []*Func
	// Other holds top-level operations that are not functions (for example
	// sdy.mesh), kept so that printing does not lose them.
	Other []*Op
	Loc   Loc

	// index is a *funcIndex that Func keeps (read and replaced atomically;
	// a stale one is detected and rebuilt).
	index unsafe.Pointer
	// sealed is the fingerprint of the module as a Builder finished it
	// (seal.go); nil for other modules.
	sealed *seal
}

// funcIndex maps a function name to its first position in Module.Funcs,
// as it was when Funcs had n entries.
type funcIndex struct {
	pos map[string]int
	n   int
}

// Func is a func.func. Its arguments are the arguments of the entry block
// of Body. Body is nil for an external declaration.
type Func struct {
	Name        string // without '@'
	Visibility  string // "", "public" or "private"
	Args        []*Value
	ArgAttrs    []*DictAttr // per argument; nil entries allowed; nil slice if none
	ResultTypes []Type
	ResultAttrs []*DictAttr // per result; nil entries allowed; nil slice if none
	Attrs       []NamedAttr // attributes {...} of the function
	Body        *Region
	Loc         Loc
}

// Region is an op region: a list of blocks (StableHLO uses exactly one).
type Region struct {
	Blocks []*Block
}

// Block is a basic block: arguments and a list of ops, the last of which is a
// terminator (stablehlo.return, func.return).
type Block struct {
	Label string // "bb0" or empty
	Args  []*Value
	Ops   []*Op
}

// Op is one operation. Name is fully qualified ("stablehlo.add",
// "func.return", "check.expect_eq_const", "interpreter.run_parallel").
type Op struct {
	Name     string
	Operands []*Value
	Results  []*Value
	Attrs    []NamedAttr
	Regions  []*Region
	Loc      Loc
}

// Value is an SSA value: an op result or a block argument.
type Value struct {
	Name  string // name hint from the source without '%' (may be empty)
	Type  Type
	Def   *Op // defining op; nil for a block argument
	Index int // result index in Def, or argument index in its block
	// ID is a dense number assigned by Func.Number; executors and printers
	// use it to index side tables.
	ID int
	// scope is the builder scope that made the value (nil for values the
	// builder did not make), for the builder's operand checks.
	scope *Scope
}

// NamedAttr is one name = value attribute.
type NamedAttr struct {
	Name  string
	Value Attr
}

// TensorType returns the value's type as a tensor type, or nil.
func (v *Value) TensorType() *TensorType {
	t, _ := v.Type.(*TensorType)
	return t
}

// Attr returns the attribute called name, or nil.
func (op *Op) Attr(name string) Attr { return LookupAttr(op.Attrs, name) }

// SetAttr replaces or appends the attribute called name.
func (op *Op) SetAttr(name string, a Attr) { op.Attrs = SetAttr(op.Attrs, name, a) }

// Result returns result i.
func (op *Op) Result(i int) *Value { return op.Results[i] }

// Dialect returns the part of Name before the first '.'.
func (op *Op) Dialect() string {
	for i := 0; i < len(op.Name); i++ {
		if op.Name[i] == '.' {
			return op.Name[:i]
		}
	}
	return ""
}

// ShortName returns the part of Name after the first '.' ("add" for
// "stablehlo.add").
func (op *Op) ShortName() string {
	for i := 0; i < len(op.Name); i++ {
		if op.Name[i] == '.' {
			return op.Name[i+1:]
		}
	}
	return op.Name
}

// LookupAttr finds name in attrs.
func LookupAttr(attrs []NamedAttr, name string) Attr {
	for i := range attrs {
		if attrs[i].Name == name {
			return attrs[i].Value
		}
	}
	return nil
}

// SetAttr returns attrs with name set to a (replaced in place or appended).
func SetAttr(attrs []NamedAttr, name string, a Attr) []NamedAttr {
	for i := range attrs {
		if attrs[i].Name == name {
			attrs[i].Value = a
			return attrs
		}
	}
	return append(attrs, NamedAttr{name, a})
}

// Func returns the function called name (the first one, if several), or
// nil. Lookups go through an index of the names, rebuilt when Funcs has
// changed since, so that resolving every call of a module takes linear
// time.
func (m *Module) Func(name string) *Func {
	if len(m.Funcs) <= 8 {
		return m.scanFunc(name)
	}
	if ix := (*funcIndex)(atomic.LoadPointer(&m.index)); ix != nil && ix.n == len(m.Funcs) {
		i, ok := ix.pos[name]
		if ok && m.Funcs[i] != nil && m.Funcs[i].Name == name {
			return m.Funcs[i]
		}
		if !ok {
			// Absent when the index was made: a scan finds a function
			// renamed since, at the cost a lookup had before the index.
			if f := m.scanFunc(name); f == nil {
				return nil
			}
		}
	}
	// No index, or a stale one: rebuild it.
	ix := &funcIndex{pos: make(map[string]int, len(m.Funcs)), n: len(m.Funcs)}
	for i := len(m.Funcs) - 1; i >= 0; i-- {
		if f := m.Funcs[i]; f != nil {
			ix.pos[f.Name] = i
		}
	}
	atomic.StorePointer(&m.index, unsafe.Pointer(ix))
	if i, ok := ix.pos[name]; ok {
		return m.Funcs[i]
	}
	return nil
}

func (m *Module) scanFunc(name string) *Func {
	for _, f := range m.Funcs {
		if f != nil && f.Name == name {
			return f
		}
	}
	return nil
}

// Entry returns the entry function: "main" if present, otherwise the only
// function, otherwise nil.
func (m *Module) Entry() *Func {
	if f := m.Func("main"); f != nil {
		return f
	}
	if len(m.Funcs) == 1 {
		return m.Funcs[0]
	}
	return nil
}

// ArgTypes returns the types of the function arguments.
func (f *Func) ArgTypes() []Type {
	ts := make([]Type, len(f.Args))
	for i, a := range f.Args {
		ts[i] = a.Type
	}
	return ts
}

// CapturedValues lists the values op's regions read that are defined
// outside them (an enclosing block's values), each once, in the order
// they are first read.
func (op *Op) CapturedValues() []*Value {
	if len(op.Regions) == 0 {
		return nil
	}
	inside := map[*Value]bool{}
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for _, a := range b.Args {
				inside[a] = true
			}
		}
		r.Walk(func(o *Op) bool {
			for _, res := range o.Results {
				inside[res] = true
			}
			for _, sub := range o.Regions {
				for _, b := range sub.Blocks {
					for _, a := range b.Args {
						inside[a] = true
					}
				}
			}
			return true
		})
	}
	var out []*Value
	for _, r := range op.Regions {
		r.Walk(func(o *Op) bool {
			for _, v := range o.Operands {
				if !inside[v] {
					inside[v] = true // listed once
					out = append(out, v)
				}
			}
			return true
		})
	}
	return out
}

// Walk calls fn for every op in r, in order, depth first (an op before the
// ops of its regions). It stops early when fn returns false.
func (r *Region) Walk(fn func(*Op) bool) bool {
	if r == nil {
		return true
	}
	for _, b := range r.Blocks {
		for _, op := range b.Ops {
			if !fn(op) {
				return false
			}
			for _, sub := range op.Regions {
				if !sub.Walk(fn) {
					return false
				}
			}
		}
	}
	return true
}

// Number assigns dense IDs to every value of f (arguments first, then op
// results and nested block arguments in program order) and returns their
// count.
func (f *Func) Number() int {
	n := 0
	for _, a := range f.Args {
		a.ID = n
		n++
	}
	var visit func(r *Region)
	visit = func(r *Region) {
		for bi, b := range r.Blocks {
			if bi > 0 || r != f.Body {
				for _, a := range b.Args {
					a.ID = n
					n++
				}
			}
			for _, op := range b.Ops {
				for _, res := range op.Results {
					res.ID = n
					n++
				}
				for _, sub := range op.Regions {
					visit(sub)
				}
			}
		}
	}
	if f.Body != nil {
		visit(f.Body)
	}
	return n
}

// NewOp creates an op with fresh result values of the given types.
func NewOp(name string, operands []*Value, resultTypes []Type, attrs ...NamedAttr) *Op {
	op := newOp(name, len(operands), resultTypes, attrs)
	op.Operands = operands
	return op
}

// newOpCopy is NewOp with the op's own copy of operands (kept beside the
// op when there are few).
func newOpCopy(name string, operands []*Value, resultTypes []Type, attrs []NamedAttr) *Op {
	op := newOp(name, len(operands), resultTypes, attrs)
	copy(op.Operands, operands)
	return op
}

// opCell is an op with one result and up to maxInline operands in one
// allocation: most ops have one result and few operands, and a graph of
// many ops otherwise pays several allocations for each.
type opCell struct {
	op   Op
	res  [1]*Value
	val  Value
	args [maxInline]*Value
}

const maxInline = 3

// init makes the zero cell c's op name with nargs nil operands and one
// fresh result of type t, and returns it (setting only what is not zero).
func (c *opCell) init(name string, nargs int, t Type, attrs []NamedAttr) *Op {
	op := &c.op
	op.Name, op.Attrs = name, attrs
	if nargs <= maxInline {
		op.Operands = c.args[:nargs:nargs]
	} else {
		op.Operands = make([]*Value, nargs)
	}
	c.val.Type, c.val.Def = t, op
	c.res[0] = &c.val
	op.Results = c.res[:]
	return op
}

// newOp makes an op with nargs nil operands and fresh results.
func newOp(name string, nargs int, resultTypes []Type, attrs []NamedAttr) *Op {
	if len(resultTypes) == 1 {
		return new(opCell).init(name, nargs, resultTypes[0], attrs)
	}
	op := &Op{Name: name, Operands: make([]*Value, nargs), Attrs: attrs}
	vals := make([]Value, len(resultTypes))
	op.Results = make([]*Value, len(resultTypes))
	for i, t := range resultTypes {
		vals[i] = Value{Type: t, Def: op, Index: i}
		op.Results[i] = &vals[i]
	}
	return op
}
