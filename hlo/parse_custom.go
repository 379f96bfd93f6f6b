package hlo

import (
	"regexp"
	"strconv"
)

// Custom directives and ops: the parts of the pretty syntax that MLIR
// implements in C++ rather than in a declarative format.

type customDirective struct {
	attrs []string // attributes the directive reads and writes
	parse func(p *parser, st *formState)
	print func(w *opWriter, op *Op)
}

var customDirectives = map[string]*customDirective{
	"slice":      {[]string{"start_indices", "limit_indices", "strides"}, parseSliceRanges, printSliceRanges},
	"convdims":   {[]string{"dimension_numbers"}, parseConvDimsDirective, printConvDimsDirective},
	"window":     {[]string{"window_strides", "padding", "lhs_dilation", "rhs_dilation", "window_reversal"}, parseWindow, printWindow},
	"precision":  {[]string{"precision_config"}, parsePrecisionDirective, printPrecisionDirective},
	"precalg":    {[]string{"precision_config", "algorithm"}, parsePrecAlg, printPrecAlg},
	"dotdims":    {[]string{"dot_dimension_numbers"}, parseDotDimsDirective, printDotDimsDirective},
	"expman":     {[]string{"exponent_bits", "mantissa_bits"}, parseExpMan, printExpMan},
	"calltarget": {[]string{"call_target_name"}, parseCallTarget, printCallTarget},
}

// customOps are ops whose whole syntax is hand-written.
var customOps map[string]func(p *parser, op *Op)

func init() {
	customOps = map[string]func(p *parser, op *Op){
		"stablehlo.constant": parseConstantOp,
		"stablehlo.while":    parseWhileOp,
		"stablehlo.reduce":   parseReduceOp,
		"chlo.scan":          parseScanOp,
	}
}

func addAttr(op *Op, name string, a Attr) { op.Attrs = append(op.Attrs, NamedAttr{name, a}) }

// [0:2, 1:4:2]
func parseSliceRanges(p *parser, st *formState) {
	p.expect("[")
	var start, limit, stride []int64
	start, limit, stride = []int64{}, []int64{}, []int64{}
	for !p.is("]") {
		if len(start) > 0 {
			p.expect(",")
		}
		start = append(start, p.parseInt())
		p.expect(":")
		limit = append(limit, p.parseInt())
		if p.accept(":") {
			stride = append(stride, p.parseInt())
		} else {
			stride = append(stride, 1)
		}
	}
	p.next()
	addAttr(st.op, "start_indices", &DenseArrayAttr{DType: I64, Ints: start})
	addAttr(st.op, "limit_indices", &DenseArrayAttr{DType: I64, Ints: limit})
	addAttr(st.op, "strides", &DenseArrayAttr{DType: I64, Ints: stride})
}

func parseConvDimsDirective(p *parser, st *formState) {
	addAttr(st.op, "dimension_numbers", p.parseConvDims())
}

// {stride = [..], pad = [[..]], lhs_dilate = [..], rhs_dilate = [..], reverse = [..]}
// (the braces are literals of the format).
func parseWindow(p *parser, st *formState) {
	seen := map[string]bool{}
	for {
		k := p.bareKeyword()
		if k == "" {
			return
		}
		off := p.tok.start
		switch k {
		case "stride", "pad", "lhs_dilate", "rhs_dilate", "reverse":
		default:
			p.failAt(off, "unexpected keyword %s in convolution window", k)
		}
		if seen[k] {
			p.failAt(off, "%s given twice in convolution window", k)
		}
		seen[k] = true
		p.next()
		p.expect("=")
		switch k {
		case "pad":
			p.expect("[")
			var vals []int64
			rows := int64(0)
			for !p.is("]") {
				if rows > 0 {
					p.expect(",")
				}
				rowOff := p.tok.start
				row := p.parseIntList()
				if len(row) != 2 {
					p.failAt(rowOff, "expected array with 2 elements, got %d elements instead", len(row))
				}
				vals = append(vals, row...)
				rows++
			}
			p.next()
			l := NewLiteral(I64, rows, 2)
			copy(l.I64(), vals)
			addAttr(st.op, "padding", &DenseElementsAttr{Type: l.Type(), Value: l})
		case "reverse":
			xs := p.parseIntList()
			for i := range xs {
				if xs[i] != 0 {
					xs[i] = 1
				}
			}
			addAttr(st.op, "window_reversal", &DenseArrayAttr{DType: Bool, Ints: xs})
		default:
			name := map[string]string{"stride": "window_strides", "lhs_dilate": "lhs_dilation", "rhs_dilate": "rhs_dilation"}[k]
			addAttr(st.op, name, &DenseArrayAttr{DType: I64, Ints: p.parseIntList()})
		}
		if !p.accept(",") {
			return
		}
	}
}

// `, precision = [DEFAULT, HIGH]` (optional).
func parsePrecisionDirective(p *parser, st *formState) {
	if !p.is(",") {
		return
	}
	save := p.tok
	p.next()
	if !p.is("precision") {
		p.tok = save
		return
	}
	parsePrecisionList(p, st)
}

func parsePrecisionList(p *parser, st *formState) {
	p.expect("precision")
	p.expect("=")
	p.expect("[")
	arr := ArrayAttr{}
	for !p.is("]") {
		if len(arr) > 0 {
			p.expect(",")
		}
		v := p.bareKeyword()
		if v == "" {
			p.failExpected("precision value")
		}
		p.next()
		arr = append(arr, EnumAttr{Dialect: "stablehlo", Kind: "precision", Value: v})
	}
	p.next()
	addAttr(st.op, "precision_config", arr)
}

// `[, precision = [...]][, algorithm = <...>]`.
func parsePrecAlg(p *parser, st *formState) {
	if !p.is(",") {
		return
	}
	save := p.tok
	p.next()
	switch {
	case p.is("precision"):
		parsePrecisionList(p, st)
		if !p.is(",") {
			return
		}
		save2 := p.tok
		p.next()
		if !p.is("algorithm") {
			p.tok = save2
			return
		}
		parseAlgorithm(p, st)
	case p.is("algorithm"):
		parseAlgorithm(p, st)
	default:
		p.tok = save
	}
}

func parseAlgorithm(p *parser, st *formState) {
	p.expect("algorithm")
	p.expect("=")
	if !p.is("<") {
		p.failExpected("'<' starting the dot algorithm")
	}
	body := p.skipBalanced()
	addAttr(st.op, "algorithm", OpaqueAttr{Text: "#stablehlo.dot_algorithm" + body})
}

// `batching_dims = [0] x [0], contracting_dims = [2] x [1]`.
func parseDotDimsDirective(p *parser, st *formState) {
	d := &DotDimsAttr{LhsBatchingDims: []int64{}, RhsBatchingDims: []int64{}}
	if p.accept("batching_dims") {
		p.expect("=")
		d.LhsBatchingDims = p.parseIntList()
		p.expect("x")
		d.RhsBatchingDims = p.parseIntList()
		p.expect(",")
	}
	p.expect("contracting_dims")
	p.expect("=")
	d.LhsContractingDims = p.parseIntList()
	p.expect("x")
	d.RhsContractingDims = p.parseIntList()
	addAttr(st.op, "dot_dimension_numbers", d)
}

var expManRe = regexp.MustCompile(`^e([0-9]+)m([0-9]+)$`)

// e5m10
func parseExpMan(p *parser, st *formState) {
	k := p.bareKeyword()
	m := expManRe.FindStringSubmatch(k)
	if m == nil {
		p.failExpected("exponent mantissa in format e#m#")
	}
	e, err1 := strconv.ParseInt(m[1], 10, 32)
	mm, err2 := strconv.ParseInt(m[2], 10, 32)
	if err1 != nil || err2 != nil {
		p.failAt(p.tok.start, "exponent or mantissa out of range in %s", k)
	}
	p.next()
	addAttr(st.op, "exponent_bits", IntAttr{Value: e, Type: NewTensorType(I32)})
	addAttr(st.op, "mantissa_bits", IntAttr{Value: mm, Type: NewTensorType(I32)})
}

// @target or @"target-with-dashes"
func parseCallTarget(p *parser, st *formState) {
	if p.tok.kind != tSymbol {
		p.failExpected("custom call target")
	}
	addAttr(st.op, "call_target_name", StringAttr(p.symbolName()))
}

// --- custom ops -------------------------------------------------------------------

// stablehlo.constant [attrs] dense<...> : type, or the generic tail
// `() <{value = ...}> [attrs] : () -> type` MLIR prints when the value type
// differs from the result type (quantized constants).
func parseConstantOp(p *parser, op *Op) {
	if p.is("(") {
		p.parseGenericBody(op)
		return
	}
	if p.is("{") {
		op.Attrs = append(op.Attrs, p.parseAttrDict()...)
	}
	off := p.tok.start
	p.lastDenseType = nil
	a := p.parseAttr()
	switch d := a.(type) {
	case *DenseElementsAttr:
		addAttr(op, "value", d)
		newResults(op, []Type{d.Type})
	case OpaqueAttr:
		if p.lastDenseType == nil {
			p.failAt(off, "stablehlo.constant needs a dense elements value")
		}
		addAttr(op, "value", d)
		newResults(op, []Type{p.lastDenseType})
	default:
		p.failAt(off, "stablehlo.constant needs a dense elements value")
	}
}

// stablehlo.while(%iterArg = %init, ...) : T, ... [attributes {...}]
// cond { ... } do { ... }
func parseWhileOp(p *parser, op *Op) {
	p.expect("(")
	type pair struct {
		name    string
		nameOff int
		init    *Value
		initOff int
	}
	var pairs []pair
	for !p.is(")") {
		if len(pairs) > 0 {
			p.expect(",")
		}
		if p.tok.kind != tValue {
			p.failExpected("iteration argument")
		}
		pr := pair{name: string(p.src[p.tok.start+1 : p.tok.end]), nameOff: p.tok.start}
		p.next()
		p.expect("=")
		pr.initOff = p.tok.start
		pr.init = p.parseUse()
		pairs = append(pairs, pr)
	}
	p.next()
	var types []Type
	if len(pairs) > 0 {
		off := p.tok.start
		p.expect(":")
		types = p.parseTypeList()
		if len(types) != len(pairs) {
			p.failAt(off, "stablehlo.while has %d operands, but %d types", len(pairs), len(types))
		}
	}
	for i, pr := range pairs {
		p.checkType(pr.init, types[i], pr.initOff, valueName(pr.init))
		op.Operands = append(op.Operands, pr.init)
	}
	if p.accept("attributes") {
		op.Attrs = append(op.Attrs, p.parseAttrDict()...)
	}
	args := func() []*Value {
		vs := make([]*Value, len(pairs))
		for i, pr := range pairs {
			vs[i] = &Value{Name: pr.name, Type: types[i], Index: i}
		}
		return vs
	}
	p.expect("cond")
	op.Regions = append(op.Regions, p.parseRegionBody(args(), false, op.Name))
	p.expect("do")
	op.Regions = append(op.Regions, p.parseRegionBody(args(), false, op.Name))
	newResults(op, types)
}

// stablehlo.reduce(%x init: %i), ... applies stablehlo.add across
// dimensions = [..] [attrs] : (types) -> types
// or ... across dimensions = [..] [attrs] : (types) -> types
//
//	reducer(%a: T, %b: T) (%c: T, %d: T) { ... }
func parseReduceOp(p *parser, op *Op) {
	var ins, inits []*Value
	var inOffs, initOffs []int
	for n := 0; ; n++ {
		if n > 0 && !p.accept(",") {
			break
		}
		if !p.is("(") {
			if n == 0 {
				break
			}
			p.failExpected("'('")
		}
		p.next()
		inOffs = append(inOffs, p.tok.start)
		ins = append(ins, p.parseUse())
		p.expect("init")
		p.expect(":")
		initOffs = append(initOffs, p.tok.start)
		inits = append(inits, p.parseUse())
		p.expect(")")
	}
	op.Operands = append(append([]*Value{}, ins...), inits...)
	offs := append(append([]int{}, inOffs...), initOffs...)
	var inner string
	innerOff := 0
	if p.accept("applies") {
		innerOff = p.tok.start
		switch p.tok.kind {
		case tBare:
			inner = p.text()
		case tString:
			inner, _ = unquote(p.src[p.tok.start:p.tok.end])
		default:
			p.failExpected("reduction op name")
		}
		p.next()
	}
	p.expect("across")
	p.expect("dimensions")
	p.expect("=")
	addAttr(op, "dimensions", &DenseArrayAttr{DType: I64, Ints: p.parseIntList()})
	if p.is("{") {
		op.Attrs = append(op.Attrs, p.parseAttrDict()...)
	}
	fnOff := p.tok.start
	p.expect(":")
	if !p.is("(") {
		p.failExpected("function type")
	}
	fn := p.parseFunctionType()
	if len(fn.Inputs) != len(op.Operands) {
		p.failAt(fnOff, "stablehlo.reduce has %d operands, but its type lists %d", len(op.Operands), len(fn.Inputs))
	}
	for i, v := range op.Operands {
		p.checkType(v, fn.Inputs[i], offs[i], valueName(v))
	}
	newResults(op, fn.Results)
	if inner != "" {
		if !hasDialect(inner) {
			p.failAt(innerOff, "expected a dialect-qualified op name after applies")
		}
		if len(fn.Inputs) == 0 {
			p.failAt(fnOff, "input types missing in reduce-op function type")
		}
		tt, ok := fn.Inputs[0].(*TensorType)
		if !ok {
			p.failAt(fnOff, "stablehlo.reduce input must be a tensor, found %s", fn.Inputs[0])
		}
		elt := &TensorType{DType: tt.DType, Dims: []int64{}, Quant: tt.Quant}
		a := &Value{Type: elt, Index: 0}
		b := &Value{Type: elt, Index: 1}
		in := NewOp(inner, []*Value{a, b}, []Type{elt})
		in.Loc = op.Loc
		ret := NewOp(dialectOf(inner)+".return", in.Results, nil)
		ret.Loc = op.Loc
		op.Regions = []*Region{{Blocks: []*Block{{Args: []*Value{a, b}, Ops: []*Op{in, ret}}}}}
		return
	}
	p.expect("reducer")
	n := len(ins)
	args := make([]*Value, 2*n)
	for i := 0; i < n; i++ {
		p.expect("(")
		for k := 0; k < 2; k++ {
			if k == 1 {
				p.expect(",")
			}
			if p.tok.kind != tValue {
				p.failExpected("reducer argument")
			}
			v := &Value{Name: string(p.src[p.tok.start+1 : p.tok.end])}
			p.next()
			p.expect(":")
			v.Type = p.parseType()
			p.skipTrailingLoc()
			v.Index = i + k*n
			args[i+k*n] = v
		}
		p.expect(")")
	}
	op.Regions = append(op.Regions, p.parseRegionBody(args, false, op.Name))
}

func hasDialect(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] == '.' {
			return i > 0
		}
	}
	return false
}

func dialectOf(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] == '.' {
			return name[:i]
		}
	}
	return name
}

// chlo.scan(%inputs) inits(%inits) dimension=N [attributes {...}] {region} : fntype
func parseScanOp(p *parser, op *Op) {
	parseList := func() ([]*Value, []int) {
		p.expect("(")
		var vs []*Value
		var offs []int
		for !p.is(")") {
			if len(vs) > 0 {
				p.expect(",")
			}
			offs = append(offs, p.tok.start)
			vs = append(vs, p.parseUse())
		}
		p.next()
		return vs, offs
	}
	ins, inOffs := parseList()
	p.expect("inits")
	inits, initOffs := parseList()
	p.expect("dimension")
	p.expect("=")
	addAttr(op, "dimension", IntAttr{Value: p.parseInt()})
	if p.accept("attributes") {
		op.Attrs = append(op.Attrs, p.parseAttrDict()...)
	}
	op.Regions = append(op.Regions, p.parseRegionBody(nil, false, op.Name))
	fnOff := p.tok.start
	p.expect(":")
	if !p.is("(") {
		p.failExpected("function type")
	}
	fn := p.parseFunctionType()
	op.Operands = append(append([]*Value{}, ins...), inits...)
	offs := append(inOffs, initOffs...)
	if len(fn.Inputs) != len(op.Operands) {
		p.failAt(fnOff, "operand types must match the number of inputs and inits")
	}
	if len(fn.Results) < len(inits) {
		p.failAt(fnOff, "not enough result types to cover the required carries")
	}
	for i, v := range op.Operands {
		p.checkType(v, fn.Inputs[i], offs[i], valueName(v))
	}
	addAttr(op, "operandSegmentSizes", &DenseArrayAttr{DType: I32, Ints: []int64{int64(len(ins)), int64(len(inits))}})
	addAttr(op, "resultSegmentSizes", &DenseArrayAttr{DType: I32, Ints: []int64{int64(len(fn.Results) - len(inits)), int64(len(inits))}})
	newResults(op, fn.Results)
}
