package collective

import (
	"fmt"
	"math"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// combiner applies a reduction computation ((tensor<E>, tensor<E>) ->
// tensor<E>) element-wise to two same-shaped tensors of element type E.
// Bodies that are one add/multiply/maximum/minimum/and/or/xor of the two
// arguments run as a native loop; any other body runs as a region per
// element.
type combiner struct {
	dt     hlo.DType
	fast   func(acc, b *hlo.Literal) // acc[i] = f(acc[i], b[i])
	region kernel.Subplan
}

func compileCombiner(c *kernel.OpCtx, r *hlo.Region) (*combiner, error) {
	if r == nil || len(r.Blocks) != 1 || len(r.Blocks[0].Args) != 2 {
		return nil, c.Errorf("computation must be one block of two scalar arguments")
	}
	b := r.Blocks[0]
	t0, ok0 := b.Args[0].Type.(*hlo.TensorType)
	t1, ok1 := b.Args[1].Type.(*hlo.TensorType)
	if !ok0 || !ok1 || t0.Rank() != 0 || t1.Rank() != 0 || t0.DType != t1.DType {
		return nil, c.Errorf("computation arguments must be two tensor<E> scalars, got %s and %s", b.Args[0].Type, b.Args[1].Type)
	}
	cb := &combiner{dt: t0.DType}
	if len(b.Ops) == 2 {
		body, ret := b.Ops[0], b.Ops[1]
		if len(body.Operands) == 2 && len(body.Results) == 1 && len(ret.Operands) == 1 && ret.Operands[0] == body.Results[0] &&
			((body.Operands[0] == b.Args[0] && body.Operands[1] == b.Args[1]) || (body.Operands[0] == b.Args[1] && body.Operands[1] == b.Args[0])) {
			cb.fast = nativeCombine(body.Name, cb.dt)
		}
	}
	if cb.fast == nil {
		sp, err := c.Compiler.CompileRegion(r)
		if err != nil {
			return nil, err
		}
		if sp.NumResults() != 1 {
			return nil, c.Errorf("computation returns %d values, want 1", sp.NumResults())
		}
		cb.region = sp
	}
	return cb, nil
}

// combine sets acc = f(acc, b) element-wise; acc must be owned by the caller.
func (cb *combiner) combine(x *kernel.Ctx, acc, b *hlo.Literal) error {
	if cb.fast != nil {
		cb.fast(acc, b)
		return nil
	}
	size := cb.dt.Size()
	n := acc.NumElements()
	for i := 0; i < n; i++ {
		ea, eb := hlo.NewLiteral(cb.dt), hlo.NewLiteral(cb.dt)
		copy(ea.Data, acc.Data[i*size:(i+1)*size])
		copy(eb.Data, b.Data[i*size:(i+1)*size])
		res, err := cb.region.Run(x, []kernel.Value{ea, eb})
		if err != nil {
			return err
		}
		r, ok := res[0].(*hlo.Literal)
		if !ok || r.DType != cb.dt || r.NumElements() != 1 {
			return fmt.Errorf("computation returned %v, want a %s scalar", res[0], cb.dt)
		}
		copy(acc.Data[i*size:(i+1)*size], r.Data)
	}
	return nil
}

// reduceAll folds the members' tensors in order: ((v0 f v1) f v2) ...,
// after converting them to the computation's element type.
func (cb *combiner) reduceAll(x *kernel.Ctx, vals []*hlo.Literal) (*hlo.Literal, error) {
	acc := convertLiteral(vals[0], cb.dt)
	if acc == vals[0] {
		acc = acc.Clone()
	}
	for _, v := range vals[1:] {
		if err := cb.combine(x, acc, convertLiteral(v, cb.dt)); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

func nativeCombine(name string, dt hlo.DType) func(acc, b *hlo.Literal) {
	switch {
	case dt == hlo.F32:
		f := floatOp(name)
		if f == nil {
			return nil
		}
		return func(acc, b *hlo.Literal) {
			a, bb := acc.F32(), b.F32()
			for i := range a {
				a[i] = float32(f(float64(a[i]), float64(bb[i])))
			}
		}
	case dt == hlo.F64:
		f := floatOp(name)
		if f == nil {
			return nil
		}
		return func(acc, b *hlo.Literal) {
			a, bb := acc.F64(), b.F64()
			for i := range a {
				a[i] = f(a[i], bb[i])
			}
		}
	case dt.IsFloat():
		f := floatOp(name)
		if f == nil {
			return nil
		}
		return func(acc, b *hlo.Literal) {
			for i := 0; i < acc.NumElements(); i++ {
				acc.SetFloat(i, f(acc.Float(i), b.Float(i)))
			}
		}
	case dt.IsComplex():
		var f func(a, b complex128) complex128
		switch name {
		case "stablehlo.add":
			f = func(a, b complex128) complex128 { return a + b }
		case "stablehlo.multiply":
			f = func(a, b complex128) complex128 { return a * b }
		default:
			return nil
		}
		return func(acc, b *hlo.Literal) {
			for i := 0; i < acc.NumElements(); i++ {
				acc.SetComplex(i, f(acc.Complex(i), b.Complex(i)))
			}
		}
	case dt.IsBool():
		var f func(a, b uint64) uint64
		switch name {
		case "stablehlo.and", "stablehlo.minimum", "stablehlo.multiply":
			f = func(a, b uint64) uint64 { return a & b }
		case "stablehlo.or", "stablehlo.maximum":
			f = func(a, b uint64) uint64 { return a | b }
		case "stablehlo.xor":
			f = func(a, b uint64) uint64 { return a ^ b }
		default:
			return nil
		}
		return func(acc, b *hlo.Literal) {
			for i := range acc.Data {
				acc.Data[i] = byte(f(uint64(acc.Data[i]), uint64(b.Data[i])) & 1)
			}
		}
	case dt.IsInt():
		f := intOp(name, dt.IsSigned())
		if f == nil {
			return nil
		}
		return func(acc, b *hlo.Literal) {
			for i := 0; i < acc.NumElements(); i++ {
				acc.SetInt(i, int64(f(acc.Uint(i), b.Uint(i))))
			}
		}
	}
	return nil
}

func floatOp(name string) func(a, b float64) float64 {
	switch name {
	case "stablehlo.add":
		return func(a, b float64) float64 { return a + b }
	case "stablehlo.multiply":
		return func(a, b float64) float64 { return a * b }
	case "stablehlo.maximum":
		// NaN wins over everything, +Inf included (Go's math.Max lets
		// +Inf win; stablehlo.maximum propagates NaN).
		return func(a, b float64) float64 {
			switch {
			case math.IsNaN(a):
				return a
			case math.IsNaN(b):
				return b
			}
			return math.Max(a, b)
		}
	case "stablehlo.minimum":
		return func(a, b float64) float64 {
			switch {
			case math.IsNaN(a):
				return a
			case math.IsNaN(b):
				return b
			}
			return math.Min(a, b)
		}
	}
	return nil
}

// intOp works on two's-complement bits (Uint of a signed literal is its
// sign-extended value), so add and multiply wrap like the integer type.
func intOp(name string, signed bool) func(a, b uint64) uint64 {
	switch name {
	case "stablehlo.add":
		return func(a, b uint64) uint64 { return a + b }
	case "stablehlo.multiply":
		return func(a, b uint64) uint64 { return a * b }
	case "stablehlo.and":
		return func(a, b uint64) uint64 { return a & b }
	case "stablehlo.or":
		return func(a, b uint64) uint64 { return a | b }
	case "stablehlo.xor":
		return func(a, b uint64) uint64 { return a ^ b }
	case "stablehlo.maximum":
		if signed {
			return func(a, b uint64) uint64 { return uint64(max(int64(a), int64(b))) }
		}
		return func(a, b uint64) uint64 { return max(a, b) }
	case "stablehlo.minimum":
		if signed {
			return func(a, b uint64) uint64 { return uint64(min(int64(a), int64(b))) }
		}
		return func(a, b uint64) uint64 { return min(a, b) }
	}
	return nil
}
