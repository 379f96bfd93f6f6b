package elementwise

import (
	"math"
	"math/rand"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// runOp compiles op name (with attrs) for the given operand literals and
// result type through the op table, runs it standalone, and returns its
// result.
func runOp(t *testing.T, name string, out *hlo.TensorType, attrs []hlo.NamedAttr, args ...*hlo.Literal) *hlo.Literal {
	t.Helper()
	l, err := tryOp(name, out, attrs, args...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return l
}

func tryOp(name string, out *hlo.TensorType, attrs []hlo.NamedAttr, args ...*hlo.Literal) (*hlo.Literal, error) {
	e := kernel.Lookup(name)
	if e == nil {
		return nil, &kernel.OpError{Op: name, Msg: "not registered"}
	}
	var operands []*hlo.Value
	var in []hlo.Type
	for _, a := range args {
		v := &hlo.Value{Type: a.Type()}
		operands = append(operands, v)
		in = append(in, v.Type)
	}
	op := hlo.NewOp(name, operands, []hlo.Type{out}, attrs...)
	run, err := e.Compile(&kernel.OpCtx{Op: op, In: in, Out: []hlo.Type{out}})
	if err != nil {
		return nil, err
	}
	vals := make([]kernel.Value, len(args))
	for i, a := range args {
		vals[i] = a
	}
	res := make([]kernel.Value, 1)
	if err := run(&kernel.Ctx{}, vals, res); err != nil {
		return nil, err
	}
	return res[0].(*hlo.Literal), nil
}

// Element type groups.
var (
	signedTypes   = []hlo.DType{hlo.I2, hlo.I4, hlo.I8, hlo.I16, hlo.I32, hlo.I64}
	unsignedTypes = []hlo.DType{hlo.U2, hlo.U4, hlo.U8, hlo.U16, hlo.U32, hlo.U64}
	intTypes      = append(append([]hlo.DType{}, signedTypes...), unsignedTypes...)
	floatTypes    = []hlo.DType{hlo.F32, hlo.F64, hlo.F16, hlo.BF16, hlo.TF32, hlo.F8E5M2, hlo.F8E4M3, hlo.F8E3M4, hlo.F8E4M3FN,
		hlo.F8E4M3FNUZ, hlo.F8E4M3B11FNUZ, hlo.F8E5M2FNUZ, hlo.F8E8M0FNU, hlo.F6E2M3FN, hlo.F6E3M2FN, hlo.F4E2M1FN}
	complexTypes = []hlo.DType{hlo.C64, hlo.C128}
)

// randInts makes n values of integer type dt: edge values first, then
// random ones spread over the type's range.
func randInts(r *rand.Rand, dt hlo.DType, n int) *hlo.Literal {
	l := hlo.NewLiteral(dt, int64(n))
	w := uint(dt.Bits())
	var edges []int64
	if dt.IsSigned() {
		lo, hi := int64(-1)<<(w-1), int64(uint64(1)<<(w-1)-1)
		edges = []int64{0, 1, -1, lo, hi, lo + 1, hi - 1, 2, -2, 3}
	} else {
		hi := int64(mask(w))
		edges = []int64{0, 1, 2, hi, hi - 1, 3, int64(uint64(hi) / 2), int64(uint64(hi)/2 + 1)}
	}
	for i := 0; i < n; i++ {
		var v int64
		switch {
		case i < len(edges):
			v = edges[i]
		case i%3 == 0:
			v = int64(r.Intn(9)) - 4
		default:
			v = int64(r.Uint64())
		}
		l.SetBits(i, uint64(hlo.WrapInt(dt, v)))
	}
	return l
}

var floatEdges = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, 3,
	math.Inf(1), math.Inf(-1), math.NaN(), 1e-40, -1e-40, 1e30, -1e30, 65504, 70000, 1e-7, 100, -100, 7, -7}

// randFloats makes n values of float type dt (each exactly representable).
func randFloats(r *rand.Rand, dt hlo.DType, n int) *hlo.Literal {
	l := hlo.NewLiteral(dt, int64(n))
	for i := 0; i < n; i++ {
		var v float64
		switch {
		case i < len(floatEdges):
			v = floatEdges[i]
		case i%4 == 0:
			v = float64(r.Intn(17)-8) / 2
		case i%4 == 1:
			v = r.NormFloat64() * math.Exp2(float64(r.Intn(40)-20))
		default:
			v = (r.Float64()*2 - 1) * 8
		}
		l.SetFloat(i, v)
	}
	return l
}

func randComplex(r *rand.Rand, dt hlo.DType, n int) *hlo.Literal {
	l := hlo.NewLiteral(dt, int64(n))
	edges := []complex128{0, 1, -1, 1i, -1i, complex(math.Copysign(0, -1), 0), complex(math.NaN(), 1), complex(1, math.Inf(1)), complex(3, -4)}
	for i := 0; i < n; i++ {
		v := complex((r.Float64()*2-1)*4, (r.Float64()*2-1)*4)
		if i < len(edges) {
			v = edges[i]
		}
		l.SetComplex(i, v)
	}
	return l
}

func randOf(r *rand.Rand, dt hlo.DType, n int) *hlo.Literal {
	switch {
	case dt.IsBool():
		l := hlo.NewLiteral(dt, int64(n))
		for i := range l.Data {
			l.Data[i] = byte(r.Intn(2))
		}
		return l
	case dt.IsInt():
		return randInts(r, dt, n)
	case dt.IsFloat():
		return randFloats(r, dt, n)
	}
	return randComplex(r, dt, n)
}

// roundTo rounds v to float type dt as a float64.
func roundTo(dt hlo.DType, v float64) float64 {
	return hlo.FloatBitsToFloat64(dt, hlo.Float64ToFloatBits(dt, v))
}

// sameFloat reports a == b as values, NaN matching NaN, zeros by sign.
func sameFloat(a, b float64) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return a == b && math.Signbit(a) == math.Signbit(b)
}

// ulps is the distance of a and b in units of the last place of type dt
// at b (0 for equal or both NaN).
func ulps(dt hlo.DType, a, b float64) float64 {
	if sameFloat(a, b) || a == b {
		return 0
	}
	if a != a || b != b || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return math.Inf(1)
	}
	m := map[hlo.DType]int{hlo.F32: 23, hlo.F64: 52, hlo.F16: 10, hlo.BF16: 7}[dt]
	_, e := math.Frexp(b)
	u := math.Ldexp(1, e-1-m)
	if dt == hlo.F32 {
		u = math.Max(u, math.Ldexp(1, -149))
	}
	return math.Abs(a-b) / u
}
