package hlo

import (
	"strconv"
)

// parseType parses a value type: tensor<...>, tuple<...>, !stablehlo.token,
// a function type, a type alias, or any other type (kept as OpaqueType).
func (p *parser) parseType() Type {
	p.enter()
	defer p.leave()
	start := p.tok.start
	switch p.tok.kind {
	case tBare:
		switch p.text() {
		case "tensor":
			return p.parseTensorType()
		case "tuple":
			p.next()
			p.expect("<")
			tt := &TupleType{Elems: []Type{}}
			for !p.is(">") {
				if len(tt.Elems) > 0 {
					p.expect(",")
				}
				tt.Elems = append(tt.Elems, p.parseType())
			}
			p.next()
			return tt
		}
		// A bare element type or another builtin type (index, none,
		// memref<...>, vector<...>).
		p.next()
		if p.is("<") {
			p.skipBalanced()
		}
		return &OpaqueType{Text: p.spanText(start, p.prevEnd())}
	case tBang:
		name := p.text()
		if name == "!stablehlo.token" {
			p.next()
			return &TokenType{}
		}
		if t, ok := p.typeAliases[name]; ok {
			p.next()
			return t
		}
		p.next()
		if p.is("<") {
			p.skipBalanced()
		}
		return &OpaqueType{Text: p.spanText(start, p.prevEnd())}
	case tPunct:
		if p.is("(") {
			return p.parseFunctionType()
		}
	}
	p.failExpected("type")
	return nil
}

// parseFunctionType parses `(T, ...) -> T` or `(T, ...) -> (T, ...)`.
func (p *parser) parseFunctionType() *FunctionType {
	p.expect("(")
	ft := &FunctionType{Inputs: []Type{}, Results: []Type{}}
	for !p.is(")") {
		if len(ft.Inputs) > 0 {
			p.expect(",")
		}
		ft.Inputs = append(ft.Inputs, p.parseType())
	}
	p.next()
	p.expect("->")
	ft.Results = p.parseResultTypes()
	return ft
}

// parseResultTypes parses a single type or a parenthesized type list.
func (p *parser) parseResultTypes() []Type {
	if !p.is("(") {
		return []Type{p.parseType()}
	}
	// `(A) -> B` as a single result is a function type; a list is
	// `(A, B)` not followed by "->".
	save := p.tok
	p.next()
	ts := []Type{}
	for !p.is(")") {
		if len(ts) > 0 {
			p.expect(",")
		}
		ts = append(ts, p.parseType())
	}
	p.next()
	if p.is("->") {
		p.tok = save
		return []Type{p.parseFunctionType()}
	}
	return ts
}

// parseTensorType parses tensor<d0xd1x...xelem[, encoding]>. The shape is
// scanned from the bytes because "0x2" or "2x3xf32" do not lex as MLIR
// dimension lists.
func (p *parser) parseTensorType() Type {
	start := p.tok.start
	p.next()
	if !p.is("<") {
		p.failExpected("'<' after tensor")
	}
	lt := p.tok
	pos := skipSpace(p.src, p.tok.end)
	dims := []int64{}
	for pos < len(p.src) {
		c := p.src[pos]
		if c == '*' {
			// Unranked tensors are kept opaque.
			p.tok = lt
			p.skipBalanced()
			return &OpaqueType{Text: p.spanText(start, p.prevEnd())}
		}
		var d int64
		q := pos
		if c == '?' {
			d = DynamicDim
			q++
		} else if isDigit(c) {
			for q < len(p.src) && isDigit(p.src[q]) {
				q++
			}
			v, err := strconv.ParseInt(string(p.src[pos:q]), 10, 64)
			if err != nil {
				p.failAt(pos, "dimension %s out of range", p.src[pos:q])
			}
			d = v
		} else {
			break
		}
		if q >= len(p.src) || p.src[q] != 'x' {
			p.resetTo(q)
			p.failExpected("'x' after a dimension")
		}
		dims = append(dims, d)
		pos = q + 1
	}
	p.resetTo(pos)
	t := &TensorType{Dims: dims}
	if !p.parseElemType(t) {
		// An element type DType cannot hold: keep the whole type opaque.
		p.tok = lt
		p.skipBalanced()
		return &OpaqueType{Text: p.spanText(start, p.prevEnd())}
	}
	if err := CheckSize(t.DType, t.Dims); err != nil {
		p.failAt(start, "%v", err)
	}
	if p.accept(",") {
		t.Encoding = p.parseEncoding()
	}
	p.expect(">")
	return t
}

// parseElemType parses the element type of a tensor into t; it returns
// false (without consuming) for element types DType cannot hold.
func (p *parser) parseElemType(t *TensorType) bool {
	switch p.tok.kind {
	case tBare:
		name := p.text()
		if name == "complex" {
			save := p.tok
			p.next()
			if !p.is("<") {
				p.failExpected("'<' after complex")
			}
			p.next()
			part := p.text()
			p.next()
			if !p.is(">") {
				p.failExpected("'>' closing complex")
			}
			p.next()
			switch part {
			case "f32":
				t.DType = C64
			case "f64":
				t.DType = C128
			default:
				p.tok = save
				return false
			}
			return true
		}
		dt, ok := DTypeByName(name)
		if !ok {
			return false
		}
		t.DType = dt
		p.next()
		return true
	case tBang:
		if p.text() == "!quant.uniform" {
			q := p.parseQuantType()
			t.Quant = q
			t.DType = q.Storage
			return true
		}
		if alias, ok := p.typeAliases[p.text()]; ok {
			if qt, ok := alias.(*quantAlias); ok {
				p.next()
				t.Quant = qt.q
				t.DType = qt.q.Storage
				return true
			}
		}
	}
	return false
}

// quantAlias lets `!q = !quant.uniform<...>` aliases be used as element
// types.
type quantAlias struct{ q *QuantType }

func (*quantAlias) isType()          {}
func (a *quantAlias) String() string { return a.q.String() }

// parseQuantType parses !quant.uniform<storage[<min:max>]:expressed[:axis],
// params>.
func (p *parser) parseQuantType() *QuantType {
	p.next()
	p.expect("<")
	q := &QuantType{Axis: -1}
	name := p.bareKeyword()
	if name == "" {
		p.failExpected("quantized storage type")
	}
	dt, ok := quantStorageType(name)
	if !ok {
		p.failAt(p.tok.start, "unsupported quantized storage type %s", name)
	}
	q.Storage = dt
	p.next()
	if p.accept("<") {
		lo := p.parseInt()
		p.expect(":")
		hi := p.parseInt()
		p.expect(">")
		if lo != storageMin(dt) || hi != storageMax(dt) {
			q.StorageMin, q.StorageMax = &lo, &hi
		}
	}
	p.expect(":")
	ename := p.bareKeyword()
	edt, ok := DTypeByName(ename)
	if !ok || !edt.IsFloat() {
		p.failExpected("quantized expressed float type")
	}
	q.Expressed = edt
	p.next()
	if p.accept(":") {
		q.Axis = int(p.parseInt())
		p.expect(",")
		p.expect("{")
		for !p.is("}") {
			if len(q.Scales) > 0 {
				p.expect(",")
			}
			s, z := p.parseQuantParam()
			q.Scales = append(q.Scales, s)
			q.ZeroPoints = append(q.ZeroPoints, z)
		}
		p.next()
	} else {
		p.expect(",")
		s, z := p.parseQuantParam()
		q.Scales = []float64{s}
		q.ZeroPoints = []int64{z}
	}
	p.expect(">")
	return q
}

func (p *parser) parseQuantParam() (float64, int64) {
	s := p.parseFloatValue()
	var z int64
	if p.accept(":") {
		z = p.parseInt()
	}
	return s, z
}

// parseFloatValue parses an optionally negative float or integer literal
// as a float64.
func (p *parser) parseFloatValue() float64 {
	neg := p.accept("-")
	var v float64
	switch p.tok.kind {
	case tFloat, tInt:
		f, err := strconv.ParseFloat(p.text(), 64)
		if err != nil && p.tok.kind == tInt {
			p.failAt(p.tok.start, "invalid number %s", p.text())
		}
		v = f
	default:
		p.failExpected("number")
	}
	p.next()
	if neg {
		v = -v
	}
	return v
}

func quantStorageType(name string) (DType, bool) {
	if len(name) > 1 && name[0] == 'u' && name[1] != 'i' {
		name = "ui" + name[1:]
	}
	dt, ok := DTypeByName(name)
	return dt, ok && dt.IsInt()
}

func storageMin(dt DType) int64 {
	if dt.IsUnsigned() {
		return 0
	}
	return -1 << uint(dt.Bits()-1)
}

func storageMax(dt DType) int64 {
	if dt.IsUnsigned() {
		return int64(uint64(1)<<uint(dt.Bits()) - 1)
	}
	return 1<<uint(dt.Bits()-1) - 1
}

// parseEncoding parses a tensor encoding attribute; the stablehlo bounds
// spellings become BoundsAttr.
func (p *parser) parseEncoding() Attr {
	return p.parseAttr()
}
