package hlo

import (
	"io"
	"strconv"
	"strings"
)

// The printer emits the form stablehlo-opt prints: custom assembly for ops
// that have one (print_forms.go), the generic form with properties <{...}>
// for the others, values numbered per function the way MLIR's AsmPrinter
// numbers them (%0, %1, ...; %arg0 for entry block arguments; %cst / %c for
// float / integer constants; %iterArg for while arguments; multi-result
// ops as %2:2 with uses %2#1).

// String prints the module in MLIR's pretty form.
func (m *Module) String() string {
	var b strings.Builder
	pr := newPrinter(&b)
	pr.module(m)
	return b.String()
}

// Print writes the module in MLIR's pretty form.
func Print(w io.Writer, m *Module) error {
	_, err := io.WriteString(w, m.String())
	return err
}

// String prints the function as it appears inside a module (values
// numbered from %0 / %arg0), for messages.
func (f *Func) String() string {
	var b strings.Builder
	pr := newPrinter(&b)
	pr.names.numberFunc(f, 0, 0, 0, nil)
	pr.function(f)
	return strings.TrimSuffix(b.String(), "\n")
}

// OpString prints one op (and its regions) on its own, for messages.
// Values it uses that are defined outside it are shown by their source
// names (%name) or as %<unknown>.
func OpString(op *Op) string {
	var b strings.Builder
	pr := newPrinter(&b)
	pr.names.numberLoose(op)
	pr.op(op, "")
	return strings.TrimSuffix(b.String(), "\n")
}

// String prints the op as OpString does.
func (op *Op) String() string { return OpString(op) }

type printer struct {
	b      *strings.Builder
	indent int
	names  *namer
}

func newPrinter(b *strings.Builder) *printer {
	return &printer{b: b, names: newNamer()}
}

func (pr *printer) ws(s string) { pr.b.WriteString(s) }

func (pr *printer) nl() {
	pr.b.WriteByte('\n')
}

func (pr *printer) pad() {
	for i := 0; i < pr.indent; i++ {
		pr.b.WriteByte(' ')
	}
}

func (pr *printer) module(m *Module) {
	pr.ws("module")
	if m.Name != "" {
		pr.ws(" " + symbolRef(m.Name))
	}
	if len(m.Attrs) > 0 {
		pr.ws(" attributes ")
		writeAttrDictBody(pr.b, m.Attrs)
	}
	pr.ws(" {")
	pr.nl()
	pr.indent += 2
	// Top-level ops other than functions are numbered in the module's
	// region first, as MLIR does; functions continue from there.
	vid := 0
	for _, op := range m.Other {
		vid = pr.names.numberOpResults(op, vid)
	}
	scope := pr.names.used
	conf := pr.names.nextConflict
	for _, op := range m.Other {
		pr.names.numberRegionsOf(op, vid, 0, conf, scope)
		pr.pad()
		pr.op(op, "builtin.module")
	}
	for _, f := range m.Funcs {
		pr.names.numberFunc(f, vid, 0, conf, scope)
		pr.pad()
		pr.function(f)
		pr.nl()
	}
	pr.indent -= 2
	pr.ws("}")
	pr.nl()
}

func (pr *printer) function(f *Func) {
	pr.ws("func.func ")
	if f.Visibility != "" {
		pr.ws(f.Visibility + " ")
	}
	pr.ws(symbolRef(f.Name))
	pr.ws("(")
	for i, a := range f.Args {
		if i > 0 {
			pr.ws(", ")
		}
		if f.Body != nil {
			pr.ws(pr.names.ref(a))
			pr.ws(": ")
		}
		pr.ws(typeString(a.Type))
		if i < len(f.ArgAttrs) && f.ArgAttrs[i] != nil && len(*f.ArgAttrs[i]) > 0 {
			pr.ws(" ")
			writeAttrDictBody(pr.b, *f.ArgAttrs[i])
		}
	}
	pr.ws(")")
	if len(f.ResultTypes) > 0 {
		pr.ws(" -> ")
		hasAttrs := false
		for i := range f.ResultTypes {
			if i < len(f.ResultAttrs) && f.ResultAttrs[i] != nil && len(*f.ResultAttrs[i]) > 0 {
				hasAttrs = true
			}
		}
		_, fnRes := f.ResultTypes[0].(*FunctionType)
		if len(f.ResultTypes) == 1 && !hasAttrs && !fnRes {
			pr.ws(typeString(f.ResultTypes[0]))
		} else {
			pr.ws("(")
			for i, t := range f.ResultTypes {
				if i > 0 {
					pr.ws(", ")
				}
				pr.ws(typeString(t))
				if i < len(f.ResultAttrs) && f.ResultAttrs[i] != nil && len(*f.ResultAttrs[i]) > 0 {
					pr.ws(" ")
					writeAttrDictBody(pr.b, *f.ResultAttrs[i])
				}
			}
			pr.ws(")")
		}
	}
	if len(f.Attrs) > 0 {
		pr.ws(" attributes ")
		writeAttrDictBody(pr.b, f.Attrs)
	}
	if f.Body != nil {
		pr.ws(" ")
		pr.region(f.Body, false, false, "func.func")
	}
}

func typeString(t Type) string {
	if t == nil {
		return "<<NULL TYPE>>"
	}
	return t.String()
}

// region prints `{ ... }` at the current indentation; the entry block
// header is printed when printEntryArgs and the block has arguments, or
// when printEmpty and the block is empty.
func (pr *printer) region(r *Region, printEntryArgs, printEmpty bool, parent string) {
	pr.ws("{")
	pr.nl()
	for i, blk := range r.Blocks {
		header := i > 0 || printEntryArgs && len(blk.Args) > 0 || printEmpty && len(blk.Ops) == 0
		if header {
			pr.pad()
			pr.ws("^bb" + strconv.Itoa(i))
			if len(blk.Args) > 0 {
				pr.ws("(")
				for k, a := range blk.Args {
					if k > 0 {
						pr.ws(", ")
					}
					pr.ws(pr.names.ref(a) + ": " + typeString(a.Type))
				}
				pr.ws(")")
			}
			pr.ws(":")
			pr.nl()
		}
		pr.indent += 2
		for _, op := range blk.Ops {
			pr.pad()
			pr.op(op, parent)
		}
		pr.indent -= 2
	}
	pr.pad()
	pr.ws("}")
}

// op prints one op line (with its regions) and a newline. parent is the
// name of the op whose region holds it: directly inside a func.func the
// func dialect prefix is dropped ("return", "call").
func (pr *printer) op(op *Op, parent string) {
	if len(op.Results) > 0 {
		pr.ws(pr.names.resultList(op))
		pr.ws(" = ")
	}
	name := op.Name
	if parent == "func.func" && strings.HasPrefix(name, "func.") && !strings.Contains(name[5:], ".") {
		name = name[5:]
	}
	if s, ok := spelledAs[name]; ok {
		name = s
	}
	if f := lookupForm(op.Name); f != nil && f.fits(op) {
		pr.ws(name)
		f.print(pr, op)
	} else {
		pr.generic(op, true)
	}
	pr.nl()
}

// generic prints `"name"(%a) <{props}> ({...}) {attrs} : (T) -> T`; with
// quoteName false it prints only what follows the name (MLIR's generic
// fallback inside a custom printer, e.g. quantized constants).
func (pr *printer) generic(op *Op, quoteName bool) {
	if quoteName {
		pr.ws(QuoteString(op.Name))
	}
	pr.ws("(")
	for i, v := range op.Operands {
		if i > 0 {
			pr.ws(", ")
		}
		pr.ws(pr.names.ref(v))
	}
	pr.ws(")")
	props, rest := splitInherent(op)
	if len(props) > 0 {
		pr.ws(" <")
		writeAttrDictBody(pr.b, props)
		pr.ws(">")
	}
	if len(op.Regions) > 0 {
		pr.ws(" (")
		for i, r := range op.Regions {
			if i > 0 {
				pr.ws(", ")
			}
			pr.region(r, true, true, op.Name)
		}
		pr.ws(")")
	}
	if len(rest) > 0 {
		pr.ws(" ")
		writeAttrDictBody(pr.b, rest)
	}
	pr.ws(" : ")
	pr.functionalType(op)
}

// functionalType prints (operand types) -> result types.
func (pr *printer) functionalType(op *Op) {
	pr.ws("(")
	for i, v := range op.Operands {
		if i > 0 {
			pr.ws(", ")
		}
		pr.ws(typeString(v.Type))
	}
	pr.ws(") -> ")
	pr.resultTypes(op)
}

func (pr *printer) resultTypes(op *Op) {
	if len(op.Results) == 1 {
		if _, fn := op.Results[0].Type.(*FunctionType); !fn {
			pr.ws(typeString(op.Results[0].Type))
			return
		}
	}
	pr.ws("(")
	for i, v := range op.Results {
		if i > 0 {
			pr.ws(", ")
		}
		pr.ws(typeString(v.Type))
	}
	pr.ws(")")
}

// splitInherent separates an op's attributes into MLIR properties (the
// op's own attributes, printed in <{...}>) and discardable ones.
func splitInherent(op *Op) (props, rest []NamedAttr) {
	inh := inherentAttrs[op.Name]
	for _, na := range op.Attrs {
		if inh != nil && inh[na.Name] {
			props = append(props, na)
		} else {
			rest = append(rest, na)
		}
	}
	return props, rest
}
