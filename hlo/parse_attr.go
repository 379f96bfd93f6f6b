package hlo

import (
	"slices"
	"strconv"
	"strings"
)

// parseAttrDict parses `{name = attr, flag, "quoted name" = attr}`.
func (p *parser) parseAttrDict() []NamedAttr {
	p.expect("{")
	attrs := []NamedAttr{}
	for !p.is("}") {
		if len(attrs) > 0 {
			p.expect(",")
		}
		var name string
		switch p.tok.kind {
		case tBare:
			name = p.text()
		case tString:
			s, ok := unquote(p.src[p.tok.start:p.tok.end])
			if !ok {
				p.failAt(p.tok.start, "invalid string escape")
			}
			name = s
		default:
			p.failExpected("attribute name")
		}
		p.next()
		if p.accept("=") {
			attrs = append(attrs, NamedAttr{name, p.parseAttr()})
		} else {
			attrs = append(attrs, NamedAttr{name, UnitAttr{}})
		}
	}
	p.next()
	return attrs
}

// parseAttr parses one attribute value in generic MLIR syntax.
func (p *parser) parseAttr() Attr {
	p.enter()
	defer p.leave()
	switch p.tok.kind {
	case tBare:
		switch p.text() {
		case "true":
			p.next()
			return BoolAttr(true)
		case "false":
			p.next()
			return BoolAttr(false)
		case "unit":
			p.next()
			return UnitAttr{}
		case "dense":
			return p.parseDenseAttr()
		case "array":
			return p.parseDenseArray()
		case "dense_resource", "sparse", "affine_map", "affine_set", "opaque", "strided", "distinct":
			return p.parseOpaqueAttr()
		}
		return TypeAttr{p.parseType()}
	case tInt, tFloat:
		return p.parseNumberAttr()
	case tPunct:
		switch p.text() {
		case "-":
			return p.parseNumberAttr()
		case "[":
			p.next()
			arr := ArrayAttr{}
			for !p.is("]") {
				if len(arr) > 0 {
					p.expect(",")
				}
				arr = append(arr, p.parseAttr())
			}
			p.next()
			return arr
		case "{":
			return DictAttr(p.parseAttrDict())
		case "(":
			return TypeAttr{p.parseType()}
		}
	case tString:
		s, ok := unquote(p.src[p.tok.start:p.tok.end])
		if !ok {
			p.failAt(p.tok.start, "invalid string escape")
		}
		p.next()
		if p.accept(":") {
			p.parseType() // typed string attributes keep only their text
		}
		return StringAttr(s)
	case tSymbol:
		ref := SymbolRefAttr{Name: p.symbolName()}
		for p.is("::") {
			p.next()
			ref.Nested = append(ref.Nested, p.symbolName())
		}
		return ref
	case tHash:
		return p.parseHashAttr()
	case tBang:
		return TypeAttr{p.parseType()}
	}
	p.failExpected("attribute")
	return nil
}

// parseNumberAttr parses `[-]N [: type]` or `[-]F [: type]`.
func (p *parser) parseNumberAttr() Attr {
	off := p.tok.start
	neg := p.accept("-")
	numTok := p.tok
	if numTok.kind != tInt && numTok.kind != tFloat {
		p.failExpected("number")
	}
	p.next()
	var t Type
	if p.accept(":") {
		t = p.parseType()
	}
	text := p.src[numTok.start:numTok.end]
	dt, scalar := scalarDType(t)
	if numTok.kind == tFloat || scalar && (dt.IsFloat()) {
		if numTok.kind == tInt && isHexText(text) && scalar {
			bits, _ := parseIntText(text, false)
			if neg {
				p.failAt(off, "hex float bit patterns cannot be negative")
			}
			return FloatAttr{Value: FloatBitsToFloat64(dt, uint64(bits)), Type: attrTypeTag(dt)}
		}
		f, err := strconv.ParseFloat(string(text), 64)
		if err != nil && !isRangeErr(err) {
			p.failAt(numTok.start, "invalid float %s", text)
		}
		if neg {
			f = -f
		}
		if scalar && !dt.IsFloat() {
			p.failAt(numTok.start, "float literal for integer type %s", t)
		}
		if scalar {
			return FloatAttr{Value: FloatBitsToFloat64(dt, Float64ToFloatBits(dt, f)), Type: attrTypeTag(dt)}
		}
		return FloatAttr{Value: f, Type: t}
	}
	v, ok := parseIntText(text, neg)
	if !ok {
		p.failAt(numTok.start, "integer %s out of range", text)
	}
	if scalar {
		if dt == Bool {
			return BoolAttr(v != 0)
		}
		return IntAttr{Value: v, Type: attrTypeTag(dt)}
	}
	return IntAttr{Value: v, Type: t}
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func isHexText(b []byte) bool { return len(b) > 2 && b[0] == '0' && b[1] == 'x' }

// scalarDType recognizes a bare element type used as an attribute type.
func scalarDType(t Type) (DType, bool) {
	switch t := t.(type) {
	case *OpaqueType:
		dt, ok := DTypeByName(t.Text)
		return dt, ok
	case *TensorType:
		if len(t.Dims) == 0 && t.Quant == nil && t.Encoding == nil {
			// A rank-0 tensor is the IR's tag for a scalar type, but in the
			// source `: tensor<i32>` is a real tensor type.
			return InvalidDType, false
		}
	}
	return InvalidDType, false
}

// attrTypeTag is the Type stored on integer and float attributes: nil for
// the MLIR defaults i64 and f64, otherwise a rank-0 tensor of the scalar
// type (the convention the builder uses too).
func attrTypeTag(dt DType) Type {
	if dt == I64 || dt == F64 {
		return nil
	}
	return NewTensorType(dt)
}

// parseOpaqueAttr keeps an attribute the IR does not model as its text:
// a keyword or #name with an optional balanced <...>, and an optional
// trailing `: type` for keyword attributes.
func (p *parser) parseOpaqueAttr() Attr {
	start := p.tok.start
	kw := p.tok.kind == tBare
	p.next()
	if p.is("<") || p.is("[") {
		p.skipBalanced()
	}
	end := p.prevEnd()
	if kw && p.is(":") {
		p.next()
		p.parseType()
		end = p.prevEnd()
	}
	return OpaqueAttr{Text: p.spanText(start, end)}
}

// parseHashAttr parses #alias, #dialect<...> and #dialect.name<...>.
func (p *parser) parseHashAttr() Attr {
	name := p.text()
	start := p.tok.start
	if a, ok := p.attrAliases[name]; ok {
		p.next()
		return a
	}
	switch name {
	case "#stablehlo", "#chlo":
		save := p.tok
		p.next()
		if p.is("<") {
			p.next()
			kind := p.bareKeyword()
			if kind != "" {
				p.next()
				val := p.bareKeyword()
				if val != "" {
					p.next()
					if p.accept(">") {
						return EnumAttr{Dialect: name[1:], Kind: kind, Value: val}
					}
				}
			}
		}
		p.tok = save
	case "#stablehlo.gather":
		g := &GatherDimsAttr{}
		p.parseDimsStruct(name, g.fields())
		return g
	case "#stablehlo.scatter":
		s := &ScatterDimsAttr{}
		p.parseDimsStruct(name, s.fields())
		return s
	case "#stablehlo.dot":
		d := &DotDimsAttr{}
		p.parseDimsStruct(name, d.fields())
		return d
	case "#stablehlo.conv":
		p.next()
		p.expect("<")
		var c *ConvDimsAttr
		if p.accept("raw") {
			c = p.parseConvRaw()
		} else {
			c = p.parseConvDims()
		}
		p.expect(">")
		return c
	case "#stablehlo.channel_handle":
		fields := p.parseStruct()
		ch := ChannelHandleAttr{}
		for _, f := range fields {
			switch f.name {
			case "handle":
				ch.Handle = f.int(p)
			case "type":
				ch.Type = f.int(p)
			default:
				p.failAt(f.off, "unknown field %s in #stablehlo.channel_handle", f.name)
			}
		}
		return ch
	case "#stablehlo.result_accuracy":
		return p.parseResultAccuracy()
	case "#stablehlo.bounds":
		p.next()
		p.expect("<")
		b := &BoundsAttr{Bounds: []int64{}}
		for !p.is(">") {
			if len(b.Bounds) > 0 {
				p.expect(",")
			}
			b.Bounds = append(b.Bounds, p.parseDimSize())
		}
		p.next()
		return b
	case "#stablehlo.type_extensions":
		fields := p.parseStruct()
		b := &BoundsAttr{Bounds: []int64{}}
		for _, f := range fields {
			if f.name != "bounds" {
				p.failAt(f.off, "unknown field %s in #stablehlo.type_extensions", f.name)
			}
			b.Bounds = f.ints(p)
		}
		return b
	}
	p.next()
	if p.is("<") {
		p.skipBalanced()
	}
	return OpaqueAttr{Text: p.spanText(start, p.prevEnd())}
}

// parseDimSize parses an integer or '?' (DynamicDim).
func (p *parser) parseDimSize() int64 {
	if p.accept("?") {
		return DynamicDim
	}
	return p.parseInt()
}

// structField is one `name = value` of a dialect attribute body; value is
// an integer list (from [..]) or a single integer.
type structField struct {
	name  string
	off   int
	vals  []int64
	isArr bool
}

func (f structField) int(p *parser) int64 {
	if f.isArr || len(f.vals) != 1 {
		p.failAt(f.off, "expected an integer for %s", f.name)
	}
	return f.vals[0]
}

func (f structField) ints(p *parser) []int64 {
	if !f.isArr {
		p.failAt(f.off, "expected [integers] for %s", f.name)
	}
	return f.vals
}

// parseStruct parses `#name<field = v, field = [v, ...]>` where every value
// is an integer, '?', or a bracketed list of them.
func (p *parser) parseStruct() []structField {
	p.next()
	p.expect("<")
	var fs []structField
	for !p.is(">") {
		if len(fs) > 0 {
			p.expect(",")
			if p.is(">") {
				break // trailing comma
			}
		}
		f := structField{name: p.bareKeyword(), off: p.tok.start}
		if f.name == "" {
			p.failExpected("field name")
		}
		p.next()
		p.expect("=")
		if p.accept("[") {
			f.isArr = true
			f.vals = []int64{}
			for !p.is("]") {
				if len(f.vals) > 0 {
					p.expect(",")
				}
				f.vals = append(f.vals, p.parseDimSize())
			}
			p.next()
		} else {
			f.vals = []int64{p.parseDimSize()}
		}
		fs = append(fs, f)
	}
	p.next()
	return fs
}

// parseDimsStruct parses the body of a #stablehlo.gather, scatter or dot
// attribute (kind) into its fields fs.
func (p *parser) parseDimsStruct(kind string, fs []dimsField) {
	for _, f := range p.parseStruct() {
		i := slices.IndexFunc(fs, func(d dimsField) bool { return d.name == f.name })
		switch {
		case i < 0:
			p.failAt(f.off, "unknown field %s in %s", f.name, kind)
		case fs[i].one != nil:
			*fs[i].one = f.int(p)
		default:
			*fs[i].list = f.ints(p)
		}
	}
}

// parseConvRaw parses the body of #stablehlo.conv<raw field = v, ...>.
func (p *parser) parseConvRaw() *ConvDimsAttr {
	c := &ConvDimsAttr{}
	first := true
	for !p.is(">") {
		if !first {
			p.expect(",")
		}
		first = false
		name := p.bareKeyword()
		off := p.tok.start
		if name == "" {
			p.failExpected("field name")
		}
		p.next()
		p.expect("=")
		var f structField
		f.name, f.off = name, off
		if p.accept("[") {
			f.isArr = true
			for !p.is("]") {
				if len(f.vals) > 0 {
					p.expect(",")
				}
				f.vals = append(f.vals, p.parseInt())
			}
			p.next()
		} else {
			f.vals = []int64{p.parseInt()}
		}
		switch name {
		case "input_batch_dimension":
			c.InputBatchDim = f.int(p)
		case "input_feature_dimension":
			c.InputFeatureDim = f.int(p)
		case "input_spatial_dimensions":
			c.InputSpatialDims = f.ints(p)
		case "kernel_input_feature_dimension":
			c.KernelInputFeatureDim = f.int(p)
		case "kernel_output_feature_dimension":
			c.KernelOutputFeatureDim = f.int(p)
		case "kernel_spatial_dimensions":
			c.KernelSpatialDims = f.ints(p)
		case "output_batch_dimension":
			c.OutputBatchDim = f.int(p)
		case "output_feature_dimension":
			c.OutputFeatureDim = f.int(p)
		case "output_spatial_dimensions":
			c.OutputSpatialDims = f.ints(p)
		default:
			p.failAt(off, "unknown field %s in #stablehlo.conv", name)
		}
	}
	if c.InputSpatialDims == nil {
		c.InputSpatialDims = []int64{}
	}
	if c.KernelSpatialDims == nil {
		c.KernelSpatialDims = []int64{}
	}
	if c.OutputSpatialDims == nil {
		c.OutputSpatialDims = []int64{}
	}
	return c
}

// parseConvDims parses `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`.
func (p *parser) parseConvDims() *ConvDimsAttr {
	c := &ConvDimsAttr{}
	part := func(what string, a, b string) (named map[string]int64, spatial []int64) {
		off := p.tok.start
		p.expect("[")
		named = map[string]int64{}
		var sp []int64
		idx := map[int64]int64{}
		for i := int64(0); !p.is("]"); i++ {
			if i > 0 {
				p.expect(",")
			}
			switch {
			case p.tok.kind == tInt:
				n := p.parseInt()
				if _, dup := idx[n]; dup {
					p.failAt(off, "spatial dimension %d repeated in %s dimensions", n, what)
				}
				idx[n] = i
			case p.is(a) || p.is(b):
				k := p.text()
				if _, dup := named[k]; dup {
					p.failAt(off, "dimension %s repeated in %s dimensions", k, what)
				}
				named[k] = i
				p.next()
			default:
				p.failExpected("'" + a + "', '" + b + "' or a spatial dimension number")
			}
		}
		p.next()
		for k := int64(0); k < int64(len(idx)); k++ {
			pos, ok := idx[k]
			if !ok {
				p.failAt(off, "spatial dimensions of %s must be numbered 0..%d", what, len(idx)-1)
			}
			sp = append(sp, pos)
		}
		if len(named) != 2 {
			p.failAt(off, "%s dimensions need both '%s' and '%s'", what, a, b)
		}
		if sp == nil {
			sp = []int64{}
		}
		return named, sp
	}
	in, insp := part("input", "b", "f")
	p.expect("x")
	k, ksp := part("kernel", "i", "o")
	p.expect("->")
	out, outsp := part("output", "b", "f")
	c.InputBatchDim, c.InputFeatureDim, c.InputSpatialDims = in["b"], in["f"], insp
	c.KernelInputFeatureDim, c.KernelOutputFeatureDim, c.KernelSpatialDims = k["i"], k["o"], ksp
	c.OutputBatchDim, c.OutputFeatureDim, c.OutputSpatialDims = out["b"], out["f"], outsp
	return c
}

// parseDenseArray parses array<i64: 1, 2>, array<i1: true>, array<f32: 1.0>.
func (p *parser) parseDenseArray() Attr {
	p.next()
	p.expect("<")
	name := p.bareKeyword()
	dt, ok := DTypeByName(name)
	if !ok || dt.IsComplex() {
		p.failAt(p.tok.start, "unsupported dense array element type %s", strings.TrimSpace(name))
	}
	p.next()
	a := &DenseArrayAttr{DType: dt}
	if dt.IsFloat() {
		a.Floats = []float64{}
	} else {
		a.Ints = []int64{}
	}
	if p.accept(":") {
		for n := 0; ; n++ {
			if n > 0 && !p.accept(",") {
				break
			}
			switch {
			case dt.IsFloat():
				if p.tok.kind == tInt && isHexText(p.src[p.tok.start:p.tok.end]) {
					bits, _ := parseIntText(p.src[p.tok.start:p.tok.end], false)
					p.next()
					a.Floats = append(a.Floats, FloatBitsToFloat64(dt, uint64(bits)))
					continue
				}
				f := p.parseFloatValue()
				a.Floats = append(a.Floats, FloatBitsToFloat64(dt, Float64ToFloatBits(dt, f)))
			case dt == Bool:
				switch {
				case p.accept("true"):
					a.Ints = append(a.Ints, 1)
				case p.accept("false"):
					a.Ints = append(a.Ints, 0)
				default:
					v := p.parseInt()
					a.Ints = append(a.Ints, v&1)
				}
			default:
				off := p.tok.start
				v := p.parseInt()
				if !intFits(dt, v) {
					p.failAt(off, "integer %d out of range for %s", v, dt)
				}
				a.Ints = append(a.Ints, WrapInt(dt, v))
			}
		}
	}
	p.expect(">")
	return a
}

// intFits reports whether v (as written, possibly as an unsigned bit
// pattern) fits the integer type dt.
func intFits(dt DType, v int64) bool {
	bits := uint(dt.Bits())
	if bits >= 64 {
		return true
	}
	if dt.IsUnsigned() {
		return v >= 0 && uint64(v) < 1<<bits
	}
	// Signed: accept the signed range, and unsigned bit patterns up to
	// 2^bits-1 as MLIR does for signless integers.
	return v >= -(1<<(bits-1)) && v < 1<<bits
}

// parseResultAccuracy parses #stablehlo.result_accuracy<[atol = F,]
// [rtol = F,] [ulps = N,] mode = #stablehlo.result_accuracy_mode<M>> and
// keeps it as an OpaqueAttr in MLIR's printed form (zero fields omitted),
// so equal values have equal text.
func (p *parser) parseResultAccuracy() Attr {
	p.next()
	p.expect("<")
	var atol, rtol float64
	var ulps int64
	mode := ""
	for !p.is(">") {
		k := p.bareKeyword()
		off := p.tok.start
		if k == "" {
			p.failExpected("result accuracy field")
		}
		p.next()
		p.expect("=")
		switch k {
		case "atol":
			atol = p.parseFloatValue()
		case "rtol":
			rtol = p.parseFloatValue()
		case "ulps":
			ulps = p.parseInt()
		case "mode":
			if p.tok.kind != tHash || p.text() != "#stablehlo.result_accuracy_mode" {
				p.failExpected("#stablehlo.result_accuracy_mode")
			}
			p.next()
			p.expect("<")
			mode = p.bareKeyword()
			if mode == "" {
				p.failExpected("result accuracy mode")
			}
			p.next()
			p.expect(">")
		default:
			p.failAt(off, "unknown field %s in #stablehlo.result_accuracy", k)
		}
		if !p.accept(",") {
			break
		}
	}
	p.expect(">")
	if mode == "" {
		p.failAt(p.tok.start, "#stablehlo.result_accuracy needs a mode")
	}
	var b strings.Builder
	b.WriteString("#stablehlo.result_accuracy<")
	if atol != 0 {
		b.WriteString("atol = " + FormatFloat(atol) + ", ")
	}
	if rtol != 0 {
		b.WriteString("rtol = " + FormatFloat(rtol) + ", ")
	}
	if ulps != 0 {
		b.WriteString("ulps = " + strconv.FormatInt(ulps, 10) + ", ")
	}
	b.WriteString("mode = #stablehlo.result_accuracy_mode<" + mode + ">>")
	return OpaqueAttr{Text: b.String()}
}
