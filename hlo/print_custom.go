package hlo

import (
	"slices"
	"strconv"
	"strings"
)

// Printers for the custom directives and custom ops of parse_custom.go.

func customFits(name string, op *Op) bool {
	switch name {
	case "slice":
		s, ok1 := op.Attr("start_indices").(*DenseArrayAttr)
		l, ok2 := op.Attr("limit_indices").(*DenseArrayAttr)
		t, ok3 := op.Attr("strides").(*DenseArrayAttr)
		return ok1 && ok2 && ok3 && s.DType == I64 && l.DType == I64 && t.DType == I64 &&
			len(s.Ints) == len(l.Ints) && len(s.Ints) == len(t.Ints)
	case "convdims":
		c, ok := op.Attr("dimension_numbers").(*ConvDimsAttr)
		return ok && c.layoutValid()
	case "window":
		for _, n := range []string{"window_strides", "lhs_dilation", "rhs_dilation"} {
			if a := op.Attr(n); a != nil {
				if d, ok := a.(*DenseArrayAttr); !ok || d.DType != I64 {
					return false
				}
			}
		}
		if a := op.Attr("window_reversal"); a != nil {
			if d, ok := a.(*DenseArrayAttr); !ok || d.DType != Bool {
				return false
			}
		}
		if a := op.Attr("padding"); a != nil {
			d, ok := a.(*DenseElementsAttr)
			if !ok || d.Type == nil || !d.Type.DType.IsInt() || len(d.Type.Dims) != 2 || d.Type.Dims[1] != 2 || d.Type.Dims[0] > maxSplatInts/2 {
				return false
			}
			if d.Value == nil && d.Splat == nil || d.Value != nil && !slices.Equal(d.Value.Dims, d.Type.Dims) {
				return false
			}
		}
		return true
	case "precision", "precalg":
		if a := op.Attr("precision_config"); a != nil {
			arr, ok := a.(ArrayAttr)
			if !ok {
				return false
			}
			for _, e := range arr {
				if v, ok := e.(EnumAttr); !ok || v.Kind != "precision" || v.Dialect != "stablehlo" {
					return false
				}
			}
		}
		if a := op.Attr("algorithm"); a != nil {
			if name == "precision" {
				return false
			}
			o, ok := a.(OpaqueAttr)
			return ok && strings.HasPrefix(o.Text, "#stablehlo.dot_algorithm<")
		}
		return true
	case "dotdims":
		_, ok := op.Attr("dot_dimension_numbers").(*DotDimsAttr)
		return ok
	case "expman":
		e, ok1 := op.Attr("exponent_bits").(IntAttr)
		m, ok2 := op.Attr("mantissa_bits").(IntAttr)
		return ok1 && ok2 && e.Value >= 0 && m.Value >= 0
	case "calltarget":
		_, ok := op.Attr("call_target_name").(StringAttr)
		return ok
	}
	return false
}

func printSliceRanges(w *opWriter, op *Op) {
	s := op.Attr("start_indices").(*DenseArrayAttr).Ints
	l := op.Attr("limit_indices").(*DenseArrayAttr).Ints
	t := op.Attr("strides").(*DenseArrayAttr).Ints
	w.ws("[")
	for i := range s {
		if i > 0 {
			w.ws(", ")
		}
		w.ws(strconv.FormatInt(s[i], 10) + ":" + strconv.FormatInt(l[i], 10))
		if t[i] != 1 {
			w.ws(":" + strconv.FormatInt(t[i], 10))
		}
	}
	w.ws("]")
}

func printConvDimsDirective(w *opWriter, op *Op) {
	w.ws(op.Attr("dimension_numbers").(*ConvDimsAttr).Layout())
}

func printWindow(w *opWriter, op *Op) {
	first := true
	sep := func(name string) {
		if !first {
			w.ws(", ")
		}
		first = false
		w.ws(name + " = [")
	}
	ints := func(xs []int64) {
		for i, x := range xs {
			if i > 0 {
				w.ws(", ")
			}
			w.ws(strconv.FormatInt(x, 10))
		}
		w.ws("]")
	}
	if a, ok := op.Attr("window_strides").(*DenseArrayAttr); ok {
		sep("stride")
		ints(a.Ints)
	}
	if a, ok := op.Attr("padding").(*DenseElementsAttr); ok {
		sep("pad")
		xs, _ := AttrInts(a)
		for i := 0; i+1 < len(xs); i += 2 {
			if i > 0 {
				w.ws(", ")
			}
			w.ws("[" + strconv.FormatInt(xs[i], 10) + ", " + strconv.FormatInt(xs[i+1], 10) + "]")
		}
		w.ws("]")
	}
	if a, ok := op.Attr("lhs_dilation").(*DenseArrayAttr); ok {
		sep("lhs_dilate")
		ints(a.Ints)
	}
	if a, ok := op.Attr("rhs_dilation").(*DenseArrayAttr); ok {
		sep("rhs_dilate")
		ints(a.Ints)
	}
	if a, ok := op.Attr("window_reversal").(*DenseArrayAttr); ok {
		sep("reverse")
		ints(a.Ints)
	}
}

func printPrecisionDirective(w *opWriter, op *Op) {
	arr, ok := op.Attr("precision_config").(ArrayAttr)
	if !ok {
		return
	}
	w.ws(", precision = [")
	for i, e := range arr {
		if i > 0 {
			w.ws(", ")
		}
		w.ws(e.(EnumAttr).Value)
	}
	w.ws("]")
}

func printPrecAlg(w *opWriter, op *Op) {
	printPrecisionDirective(w, op)
	if a, ok := op.Attr("algorithm").(OpaqueAttr); ok {
		w.ws(", algorithm = " + strings.TrimPrefix(a.Text, "#stablehlo.dot_algorithm"))
	}
}

func printDotDimsDirective(w *opWriter, op *Op) {
	d := op.Attr("dot_dimension_numbers").(*DotDimsAttr)
	var b strings.Builder
	if len(d.LhsBatchingDims) > 0 || len(d.RhsBatchingDims) > 0 {
		b.WriteString("batching_dims = ")
		writeInts(&b, d.LhsBatchingDims)
		b.WriteString(" x ")
		writeInts(&b, d.RhsBatchingDims)
		b.WriteString(", ")
	}
	b.WriteString("contracting_dims = ")
	writeInts(&b, d.LhsContractingDims)
	b.WriteString(" x ")
	writeInts(&b, d.RhsContractingDims)
	w.ws(b.String())
}

func printExpMan(w *opWriter, op *Op) {
	e := op.Attr("exponent_bits").(IntAttr).Value
	m := op.Attr("mantissa_bits").(IntAttr).Value
	w.ws("e" + strconv.FormatInt(e, 10) + "m" + strconv.FormatInt(m, 10))
}

func printCallTarget(w *opWriter, op *Op) {
	w.ws(symbolRef(string(op.Attr("call_target_name").(StringAttr))))
}

// --- custom ops -------------------------------------------------------------------

var customOpPrinters map[string]func(pr *printer, op *Op)
var customOpFits map[string]func(op *Op) bool

func init() {
	customOpPrinters = map[string]func(pr *printer, op *Op){
		"stablehlo.constant": printConstantOp,
		"stablehlo.while":    printWhileOp,
		"stablehlo.reduce":   printReduceOp,
		"chlo.scan":          printScanOp,
	}
	customOpFits = map[string]func(op *Op) bool{
		"stablehlo.constant": func(op *Op) bool {
			_, ok := op.Attr("value").(*DenseElementsAttr)
			return ok && len(op.Results) == 1 && len(op.Operands) == 0 && len(op.Regions) == 0
		},
		"stablehlo.while": whileFits,
		"stablehlo.reduce": func(op *Op) bool {
			if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 || len(op.Operands)%2 != 0 || len(op.Operands) == 0 {
				return false
			}
			if _, ok := op.Attr("dimensions").(*DenseArrayAttr); !ok {
				return false
			}
			return len(op.Regions[0].Blocks[0].Args) == len(op.Operands)
		},
		"chlo.scan": func(op *Op) bool {
			seg, ok := op.Attr("operandSegmentSizes").(*DenseArrayAttr)
			rseg, ok2 := op.Attr("resultSegmentSizes").(*DenseArrayAttr)
			_, ok3 := op.Attr("dimension").(IntAttr)
			return ok && ok2 && ok3 && len(seg.Ints) == 2 && len(rseg.Ints) == 2 &&
				int(seg.Ints[0]+seg.Ints[1]) == len(op.Operands) && int(rseg.Ints[0]+rseg.Ints[1]) == len(op.Results) &&
				rseg.Ints[1] == seg.Ints[1] && len(op.Regions) == 1
		},
	}
}

// stablehlo.constant {attrs} dense<...> : type; when the value type is not
// the result type (quantized constants) MLIR prints the generic tail.
func printConstantOp(pr *printer, op *Op) {
	v := op.Attr("value").(*DenseElementsAttr)
	if !TypesEqual(v.Type, op.Results[0].Type) {
		pr.generic(op, false)
		return
	}
	var rest []NamedAttr
	for _, na := range op.Attrs {
		if na.Name != "value" {
			rest = append(rest, na)
		}
	}
	if len(rest) > 0 {
		pr.ws(" ")
		writeAttrDictBody(pr.b, rest)
	}
	pr.ws(" ")
	pr.ws(AttrString(v))
}

func whileFits(op *Op) bool {
	if len(op.Regions) != 2 || len(op.Results) != len(op.Operands) {
		return false
	}
	for _, r := range op.Regions {
		if len(r.Blocks) != 1 || len(r.Blocks[0].Args) != len(op.Operands) {
			return false
		}
		for i, a := range r.Blocks[0].Args {
			if !TypesEqual(a.Type, op.Operands[i].Type) {
				return false
			}
		}
	}
	for i, r := range op.Results {
		if !TypesEqual(r.Type, op.Operands[i].Type) {
			return false
		}
	}
	return true
}

func printWhileOp(pr *printer, op *Op) {
	body := op.Regions[1].Blocks[0].Args
	pr.ws("(")
	for i, v := range op.Operands {
		if i > 0 {
			pr.ws(", ")
		}
		pr.ws(pr.names.ref(body[i]) + " = " + pr.names.ref(v))
	}
	pr.ws(")")
	if len(op.Operands) > 0 {
		pr.ws(" : ")
		for i, v := range op.Operands {
			if i > 0 {
				pr.ws(", ")
			}
			pr.ws(typeString(v.Type))
		}
	}
	if len(op.Attrs) > 0 {
		pr.ws(" attributes ")
		writeAttrDictBody(pr.b, op.Attrs)
	}
	pr.nl()
	pr.pad()
	pr.ws(" cond ")
	pr.region(op.Regions[0], false, false, op.Name)
	pr.ws(" do ")
	pr.region(op.Regions[1], false, false, op.Name)
}

// commutativeBinary lists the stablehlo ops the compact reduce form may
// name (commutative, two operands, one result, no regions).
var commutativeBinary = map[string]bool{
	"stablehlo.add": true, "stablehlo.multiply": true, "stablehlo.maximum": true,
	"stablehlo.minimum": true, "stablehlo.and": true, "stablehlo.or": true, "stablehlo.xor": true,
}

// reduceCompact reports whether a reduce prints as `applies <op>`.
func reduceCompact(op *Op) bool {
	blk := op.Regions[0].Blocks[0]
	if len(blk.Ops) != 2 || len(op.Operands) == 0 {
		return false
	}
	in, ret := blk.Ops[0], blk.Ops[1]
	if !commutativeBinary[in.Name] || len(in.Operands) != 2 || len(in.Results) != 1 || len(in.Regions) != 0 {
		return false
	}
	t := in.Results[0].Type
	for _, v := range in.Operands {
		if !TypesEqual(v.Type, t) {
			return false
		}
	}
	it, ok := op.Operands[0].Type.(*TensorType)
	if !ok {
		return false
	}
	elt := &TensorType{DType: it.DType, Dims: []int64{}, Quant: it.Quant}
	if !TypesEqual(in.Operands[0].Type, elt) {
		return false
	}
	if len(blk.Args) != 2 || in.Operands[0] != blk.Args[0] || in.Operands[1] != blk.Args[1] {
		return false
	}
	if ret.Name != "stablehlo.return" || len(ret.Operands) != 1 || ret.Operands[0] != in.Results[0] {
		return false
	}
	return len(ret.Results) == 0 && len(ret.Regions) == 0 && len(ret.Attrs) == 0 && len(in.Attrs) == 0
}

func printReduceOp(pr *printer, op *Op) {
	n := len(op.Operands) / 2
	for i := 0; i < n; i++ {
		if i > 0 {
			pr.ws(", ")
		}
		pr.ws("(" + pr.names.ref(op.Operands[i]) + " init: " + pr.names.ref(op.Operands[i+n]) + ")")
	}
	compact := reduceCompact(op)
	if compact {
		pr.ws(" applies " + op.Regions[0].Blocks[0].Ops[0].Name)
	}
	var b strings.Builder
	writeInts(&b, op.Attr("dimensions").(*DenseArrayAttr).Ints)
	pr.ws(" across dimensions = " + b.String())
	var rest []NamedAttr
	for _, na := range op.Attrs {
		if na.Name != "dimensions" {
			rest = append(rest, na)
		}
	}
	if len(rest) > 0 {
		pr.ws(" ")
		writeAttrDictBody(pr.b, rest)
	}
	pr.ws(" : ")
	pr.functionalType(op)
	if compact {
		return
	}
	pr.nl()
	pr.pad()
	pr.ws(" reducer")
	args := op.Regions[0].Blocks[0].Args
	for i := 0; i < n; i++ {
		pr.ws("(" + pr.names.ref(args[i]) + ": " + typeString(args[i].Type) + ", " +
			pr.names.ref(args[i+n]) + ": " + typeString(args[i+n].Type) + ") ")
	}
	pr.ws(" ")
	pr.region(op.Regions[0], false, false, op.Name)
}

func printScanOp(pr *printer, op *Op) {
	seg := op.Attr("operandSegmentSizes").(*DenseArrayAttr).Ints
	nin := int(seg[0])
	list := func(vs []*Value) {
		for i, v := range vs {
			if i > 0 {
				pr.ws(", ")
			}
			pr.ws(pr.names.ref(v))
		}
	}
	pr.ws("(")
	list(op.Operands[:nin])
	pr.ws(") inits (")
	list(op.Operands[nin:])
	pr.ws(") dimension=" + strconv.FormatInt(op.Attr("dimension").(IntAttr).Value, 10) + " ")
	var rest []NamedAttr
	for _, na := range op.Attrs {
		switch na.Name {
		case "dimension", "operandSegmentSizes", "resultSegmentSizes":
		default:
			rest = append(rest, na)
		}
	}
	if len(rest) > 0 {
		pr.ws(" attributes ")
		writeAttrDictBody(pr.b, rest)
	}
	pr.ws(" ")
	pr.region(op.Regions[0], true, false, op.Name)
	pr.ws(" : ")
	pr.functionalType(op)
}
