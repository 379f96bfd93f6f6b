package optable

import (
	"slices"
	"strings"
)

// Op is one row of the table: everything the hlo package knows about one
// op, keyed by its full name.
type Op struct {
	// Name is the full op name, "stablehlo.add".
	Name string
	// Class is the elementwise class (NotElementwise for the others).
	Class Class
	// Form is the op's pretty syntax in the format language of
	// hlo/parse_forms.go (FORMS.md lists them all). Empty: the op prints in
	// MLIR's generic form, or HandSyntax names the code that reads and
	// writes it.
	Form string
	// HandSyntax names the hand-written code (hlo files) that parses and
	// prints the op where no format describes its syntax; the op is then
	// registered in customOps and customOpPrinters under its name.
	HandSyntax string
	// Spelled is the name the op is written with when it differs from Name
	// (IREE's check ops, which share StableHLO's check op names).
	Spelled string
	// Defaults are attributes the pretty form leaves out of its attribute
	// dictionary when their text equals the value given.
	Defaults map[string]string
	// Inherent lists the op's own attributes (MLIR properties, printed in
	// <{...}> by the generic form), space separated.
	Inherent string
	// ResultNames are the names MLIR's op definition gives a multi-result
	// op's results, space separated (the printer names values after them:
	// %output_state, %output).
	ResultNames string
	// Infer is the op's type rule: a Go expression of type inferFn in
	// package hlo ("inferCompare", "unaryRule(kFpCx)"). Empty: the op has
	// no rule (InferResultTypes reports it unknown).
	Infer string
	// Builder is the name of the *hlo.Scope method that adds the op, or
	// empty when there is none.
	Builder string
	// Params, when set, has the generator write the Builder method: the
	// names of its *Value parameters, one per operand ("x, y"). The op then
	// has no attributes the builder must set. Empty: the method is
	// hand-written (builder_*.go).
	Params string
	// Doc completes a generated builder's comment ("Name " + Doc); the
	// default says which op it adds.
	Doc string
	// NoKernel says why the embedded device (pjrt/host) has no kernel for
	// the op; empty when it has one.
	NoKernel string
}

// Class is an op's elementwise class: how its result elements follow from
// its operand elements.
type Class uint8

const (
	// NotElementwise ops look at more than one element per result element
	// (or have no tensor operands).
	NotElementwise Class = iota
	// Unary ops map each element of one operand.
	Unary
	// Binary ops combine the elements of two operands at one index.
	Binary
	// Ternary ops combine three operands' elements at one index (some take
	// 0-d operands for every index: select's predicate, clamp's bounds).
	Ternary
)

var classNames = [...]string{"", "unary", "binary", "ternary"}

// String names the class ("" for NotElementwise).
func (c Class) String() string { return classNames[c] }

// Formats shared by many ops.
const (
	// FormUnary: `%x {attrs} : T` (or a function type when they differ).
	FormUnary = "$ attrs : T:same"
	// FormBinary: `%x, %y {attrs} : T`.
	FormBinary = "$ , $ attrs : T:same"
	// FormFn: `%x, ... {attrs} : (T, ...) -> R`.
	FormFn = "$$ attrs : T:fn"
)

// Attribute defaults MLIR elides from the pretty forms' dictionaries.
var (
	AccuracyDefaults   = map[string]string{"result_accuracy": "#stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<DEFAULT>>"}
	CustomCallDefaults = map[string]string{"has_side_effect": "false", "api_version": "1 : i32", "called_computations": "[]", "output_operand_aliases": "[]"}
	CompositeDefaults  = map[string]string{"composite_attributes": "{}", "version": "0 : i32"}
)

// Ops returns every row, sorted by name (a fresh slice).
func Ops() []Op {
	var all []Op
	for _, g := range [][]Op{elementwiseOps, shapeOps, linalgOps, controlOps, chloOps, checkOps, ireeOps} {
		all = append(all, g...)
	}
	slices.SortFunc(all, func(a, b Op) int { return strings.Compare(a.Name, b.Name) })
	return all
}

// Lookup returns the row of op name.
func Lookup(name string) (Op, bool) {
	o, ok := byName[name]
	return o, ok
}

var byName = func() map[string]Op {
	m := map[string]Op{}
	for _, o := range Ops() {
		m[o.Name] = o
	}
	return m
}()
