package movement

import (
	"math"

	"github.com/xlajit/xlajit/hlo"
)

// sprog is a body region compiled to straight-line code over scalar
// registers, for bodies made only of a few elementwise ops on native
// element types (argmax/argmin reducers, JAX's NaN-canonicalising sort
// comparators, ...). It runs a body call in tens of nanoseconds instead of
// a region plan's per-op allocations; bodies it cannot express run as
// regions.
//
// A register holds one element as 64 bits: floats by their bits (f32 in
// the low half), signed integers sign-extended, unsigned ones
// zero-extended, i1 as 0 or 1.
type sprog struct {
	nregs  int
	init   []uint64 // initial register file (constants filled in)
	args   []int    // register of each block argument
	argDT  []hlo.DType
	insts  []sinst
	res    []int // registers returned
	resDT  []hlo.DType
	widths []uint // per register: integer width for wrapping (0: none)
}

type sinst struct {
	f       func(r []uint64, in *sinst)
	a, b, c int // operand registers
	d       int // destination register
	w       uint
}

// scalarDT reports whether dt has a register representation.
func scalarDT(dt hlo.DType) bool {
	switch dt {
	case hlo.F32, hlo.F64, hlo.Bool, hlo.I8, hlo.I16, hlo.I32, hlo.I64, hlo.U8, hlo.U16, hlo.U32, hlo.U64:
		return true
	}
	return false
}

// compileScalar builds the program of a one-block region, or nil.
func compileScalar(blk *hlo.Block) *sprog {
	p := &sprog{}
	reg := map[*hlo.Value]int{}
	dtOf := map[int]hlo.DType{}
	newReg := func(v *hlo.Value, dt hlo.DType) int {
		r := p.nregs
		p.nregs++
		reg[v] = r
		dtOf[r] = dt
		p.init = append(p.init, 0)
		return r
	}
	for _, a := range blk.Args {
		t := a.TensorType()
		if t == nil || t.Rank() != 0 || t.Quant != nil || !scalarDT(t.DType) {
			return nil
		}
		p.args = append(p.args, newReg(a, t.DType))
		p.argDT = append(p.argDT, t.DType)
	}
	n := len(blk.Ops)
	if n == 0 || blk.Ops[n-1].Name != "stablehlo.return" {
		return nil
	}
	for _, op := range blk.Ops[:n-1] {
		if len(op.Results) != 1 || len(op.Regions) != 0 {
			return nil
		}
		rt := op.Results[0].TensorType()
		if rt == nil || rt.Rank() != 0 || rt.Quant != nil || !scalarDT(rt.DType) {
			return nil
		}
		var ins []int
		for _, v := range op.Operands {
			r, ok := reg[v]
			if !ok {
				return nil // a value of an enclosing scope
			}
			ins = append(ins, r)
		}
		if op.Name == "stablehlo.constant" {
			a, ok := op.Attr("value").(*hlo.DenseElementsAttr)
			if !ok || a.Splat != nil || a.Value == nil || a.Value.DType != rt.DType || a.Value.NumElements() != 1 {
				return nil
			}
			r := newReg(op.Results[0], rt.DType)
			p.init[r] = loadReg(rt.DType, a.Value.Data, 0)
			continue
		}
		in, ok := scalarInst(op, rt.DType, ins, dtOf)
		if !ok {
			return nil
		}
		in.d = newReg(op.Results[0], rt.DType)
		p.insts = append(p.insts, in)
	}
	for _, v := range blk.Ops[n-1].Operands {
		r, ok := reg[v]
		if !ok {
			return nil
		}
		p.res = append(p.res, r)
		p.resDT = append(p.resDT, dtOf[r])
	}
	return p
}

// intWidth is the wrap width of an integer type (0 for 64-bit and others).
func intWidth(dt hlo.DType) uint {
	if dt.IsInt() && dt.Bits() < 64 {
		return uint(dt.Bits())
	}
	return 0
}

func scalarInst(op *hlo.Op, rt hlo.DType, ins []int, dtOf map[int]hlo.DType) (sinst, bool) {
	in := sinst{w: intWidth(rt)}
	same := func(k int) bool {
		if len(ins) != k {
			return false
		}
		for _, r := range ins {
			if dtOf[r] != rt {
				return false
			}
		}
		return true
	}
	set := func(f func(r []uint64, in *sinst)) (sinst, bool) {
		in.f = f
		if len(ins) > 0 {
			in.a = ins[0]
		}
		if len(ins) > 1 {
			in.b = ins[1]
		}
		if len(ins) > 2 {
			in.c = ins[2]
		}
		return in, true
	}
	switch op.Name {
	case "stablehlo.select":
		if len(ins) != 3 || dtOf[ins[0]] != hlo.Bool || dtOf[ins[1]] != rt || dtOf[ins[2]] != rt {
			return in, false
		}
		return set(func(r []uint64, in *sinst) {
			if r[in.a] != 0 {
				r[in.d] = r[in.b]
			} else {
				r[in.d] = r[in.c]
			}
		})
	case "stablehlo.compare":
		if len(ins) != 2 || rt != hlo.Bool || dtOf[ins[0]] != dtOf[ins[1]] {
			return in, false
		}
		dir, ok := hlo.AttrEnum(op.Attr("comparison_direction"))
		if !ok {
			return in, false
		}
		typ := ""
		if a := op.Attr("compare_type"); a != nil {
			typ, _ = hlo.AttrEnum(a)
		}
		f := regCompare(dir, typ, dtOf[ins[0]])
		if f == nil {
			return in, false
		}
		return set(f)
	case "stablehlo.not":
		if !same(1) {
			return in, false
		}
		if rt == hlo.Bool {
			return set(func(r []uint64, in *sinst) { r[in.d] = r[in.a] ^ 1 })
		}
		if !rt.IsInt() {
			return in, false
		}
		if rt.IsSigned() {
			// Inverting a sign-extended value keeps it sign-extended.
			return set(func(r []uint64, in *sinst) { r[in.d] = ^r[in.a] })
		}
		return set(func(r []uint64, in *sinst) { r[in.d] = wrapReg(^r[in.a], in.w, false) })
	case "stablehlo.negate":
		if !same(1) {
			return in, false
		}
		switch {
		case rt == hlo.F32:
			return set(func(r []uint64, in *sinst) { r[in.d] = r[in.a] ^ 0x80000000 })
		case rt == hlo.F64:
			return set(func(r []uint64, in *sinst) { r[in.d] = r[in.a] ^ (1 << 63) })
		case rt.IsInt():
			return set(intOp(func(x, y int64) int64 { return -x }))
		}
		return in, false
	}
	k, ok := binByOp[op.Name]
	if op.Name == "stablehlo.subtract" {
		k, ok = binNone, true
	}
	if !ok || !same(2) {
		return in, false
	}
	switch {
	case rt == hlo.F32 || rt == hlo.F64:
		f := f32Op(op.Name)
		if rt == hlo.F64 {
			f = f64Op(op.Name)
		}
		if f == nil { // no float form (and, or, xor): run the region instead
			return in, false
		}
		return set(f)
	case rt == hlo.Bool:
		switch k {
		case binAdd, binMax, binOr:
			return set(func(r []uint64, in *sinst) { r[in.d] = r[in.a] | r[in.b] })
		case binMul, binMin, binAnd:
			return set(func(r []uint64, in *sinst) { r[in.d] = r[in.a] & r[in.b] })
		case binXor:
			return set(func(r []uint64, in *sinst) { r[in.d] = r[in.a] ^ r[in.b] })
		}
		return in, false
	case rt.IsUnsigned():
		f := intBinary[uint64](op.Name)
		if f == nil {
			return in, false
		}
		return set(func(r []uint64, in *sinst) { r[in.d] = wrapReg(f(r[in.a], r[in.b]), in.w, false) })
	case rt.IsSigned():
		f := intBinary[int64](op.Name)
		if f == nil {
			return in, false
		}
		return set(intOp(f))
	}
	return in, false
}

// intBinary returns the integer binary op name on 64-bit registers (the
// caller wraps the result to the element width), or nil.
func intBinary[T int64 | uint64](name string) func(x, y T) T {
	switch name {
	case "stablehlo.add":
		return func(x, y T) T { return x + y }
	case "stablehlo.subtract":
		return func(x, y T) T { return x - y }
	case "stablehlo.multiply":
		return func(x, y T) T { return x * y }
	case "stablehlo.maximum":
		return func(x, y T) T { return max(x, y) }
	case "stablehlo.minimum":
		return func(x, y T) T { return min(x, y) }
	case "stablehlo.and":
		return func(x, y T) T { return x & y }
	case "stablehlo.or":
		return func(x, y T) T { return x | y }
	case "stablehlo.xor":
		return func(x, y T) T { return x ^ y }
	}
	return nil
}

func intOp(f func(x, y int64) int64) func(r []uint64, in *sinst) {
	return func(r []uint64, in *sinst) {
		r[in.d] = wrapReg(uint64(f(int64(r[in.a]), int64(r[in.b]))), in.w, true)
	}
}

// wrapReg truncates v to w bits (w = 0: 64), sign- or zero-extending.
func wrapReg(v uint64, w uint, signed bool) uint64 {
	if w == 0 {
		return v
	}
	if signed {
		return uint64(int64(v<<(64-w)) >> (64 - w))
	}
	return v & (1<<w - 1)
}

func f32Op(name string) func(r []uint64, in *sinst) {
	get := func(r []uint64, i int) float32 { return math.Float32frombits(uint32(r[i])) }
	put := func(v float32) uint64 { return uint64(math.Float32bits(v)) }
	switch name {
	case "stablehlo.add":
		return func(r []uint64, in *sinst) { r[in.d] = put(get(r, in.a) + get(r, in.b)) }
	case "stablehlo.subtract":
		return func(r []uint64, in *sinst) { r[in.d] = put(get(r, in.a) - get(r, in.b)) }
	case "stablehlo.multiply":
		return func(r []uint64, in *sinst) { r[in.d] = put(get(r, in.a) * get(r, in.b)) }
	case "stablehlo.maximum":
		return func(r []uint64, in *sinst) { r[in.d] = put(max(get(r, in.a), get(r, in.b))) }
	case "stablehlo.minimum":
		return func(r []uint64, in *sinst) { r[in.d] = put(min(get(r, in.a), get(r, in.b))) }
	}
	return nil
}

func f64Op(name string) func(r []uint64, in *sinst) {
	get := func(r []uint64, i int) float64 { return math.Float64frombits(r[i]) }
	put := math.Float64bits
	switch name {
	case "stablehlo.add":
		return func(r []uint64, in *sinst) { r[in.d] = put(get(r, in.a) + get(r, in.b)) }
	case "stablehlo.subtract":
		return func(r []uint64, in *sinst) { r[in.d] = put(get(r, in.a) - get(r, in.b)) }
	case "stablehlo.multiply":
		return func(r []uint64, in *sinst) { r[in.d] = put(get(r, in.a) * get(r, in.b)) }
	case "stablehlo.maximum":
		return func(r []uint64, in *sinst) { r[in.d] = put(max(get(r, in.a), get(r, in.b))) }
	case "stablehlo.minimum":
		return func(r []uint64, in *sinst) { r[in.d] = put(min(get(r, in.a), get(r, in.b))) }
	}
	return nil
}

// regCompare returns a compare on registers of type dt, or nil.
func regCompare(dir, typ string, dt hlo.DType) func(r []uint64, in *sinst) {
	var key func(v uint64) int64 // order-preserving key, for the integer-like cases
	var fl func(v uint64) float64
	switch {
	case dt == hlo.F32 && (typ == "" || typ == "FLOAT"):
		fl = func(v uint64) float64 { return float64(math.Float32frombits(uint32(v))) }
	case dt == hlo.F64 && (typ == "" || typ == "FLOAT"):
		fl = math.Float64frombits
	case dt == hlo.F32 && typ == "TOTALORDER":
		key = func(v uint64) int64 { return int64(totalKey32(uint32(v))) }
	case dt == hlo.F64 && typ == "TOTALORDER":
		key = func(v uint64) int64 { return totalKey64(v) }
	case dt.IsSigned() && (typ == "" || typ == "SIGNED"):
		key = func(v uint64) int64 { return int64(v) }
	case (dt.IsUnsigned() || dt == hlo.Bool) && (typ == "" || typ == "UNSIGNED"):
		// Unsigned values: compare as uint64 via flipping the top bit.
		key = func(v uint64) int64 { return int64(v ^ 1<<63) }
	default:
		return nil
	}
	if fl != nil {
		return regCompareBy(dir, fl)
	}
	return regCompareBy(dir, key)
}

// regCompareBy compares registers by their values under conv (floats, or
// order-preserving integer keys).
func regCompareBy[T int64 | float64](dir string, conv func(v uint64) T) func(r []uint64, in *sinst) {
	b := func(x bool) uint64 {
		if x {
			return 1
		}
		return 0
	}
	switch dir {
	case "EQ":
		return func(r []uint64, in *sinst) { r[in.d] = b(conv(r[in.a]) == conv(r[in.b])) }
	case "NE":
		return func(r []uint64, in *sinst) { r[in.d] = b(conv(r[in.a]) != conv(r[in.b])) }
	case "LT":
		return func(r []uint64, in *sinst) { r[in.d] = b(conv(r[in.a]) < conv(r[in.b])) }
	case "LE":
		return func(r []uint64, in *sinst) { r[in.d] = b(conv(r[in.a]) <= conv(r[in.b])) }
	case "GT":
		return func(r []uint64, in *sinst) { r[in.d] = b(conv(r[in.a]) > conv(r[in.b])) }
	case "GE":
		return func(r []uint64, in *sinst) { r[in.d] = b(conv(r[in.a]) >= conv(r[in.b])) }
	}
	return nil
}

// loadReg reads element i of storage b of type dt into register form.
func loadReg(dt hlo.DType, b []byte, i int) uint64 {
	switch dt {
	case hlo.F32, hlo.U32:
		return uint64(asT[uint32](b)[i])
	case hlo.F64, hlo.I64, hlo.U64:
		return asT[uint64](b)[i]
	case hlo.I32:
		return uint64(int64(asT[int32](b)[i]))
	case hlo.I16:
		return uint64(int64(asT[int16](b)[i]))
	case hlo.U16:
		return uint64(asT[uint16](b)[i])
	case hlo.I8:
		return uint64(int64(int8(b[i])))
	case hlo.U8, hlo.Bool:
		return uint64(b[i])
	}
	panic("movement: loadReg on " + dt.String())
}

// storeReg writes a register into element i of storage b of type dt.
func storeReg(dt hlo.DType, b []byte, i int, v uint64) {
	switch dt {
	case hlo.F32, hlo.U32, hlo.I32:
		asT[uint32](b)[i] = uint32(v)
	case hlo.F64, hlo.I64, hlo.U64:
		asT[uint64](b)[i] = v
	case hlo.I16, hlo.U16:
		asT[uint16](b)[i] = uint16(v)
	case hlo.I8, hlo.U8, hlo.Bool:
		b[i] = byte(v)
	default:
		panic("movement: storeReg on " + dt.String())
	}
}

// run evaluates the program on argument storage (one element each) and
// writes the results into res (one element each); r is a scratch register
// file of nregs entries.
func (p *sprog) run(r []uint64, args [][]byte, res [][]byte) {
	copy(r, p.init)
	for i, a := range p.args {
		r[a] = loadReg(p.argDT[i], args[i], 0)
	}
	for k := range p.insts {
		in := &p.insts[k]
		in.f(r, in)
	}
	for i, s := range p.res {
		storeReg(p.resDT[i], res[i], 0, r[s])
	}
}
