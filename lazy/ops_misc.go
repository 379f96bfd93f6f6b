package lazy

import (
	"fmt"
	"math"
	"sort"
	"sync"
	"unsafe"

	"github.com/xlajit/xlajit/hlo"
)

func init() {
	define(opDeviceData, &OpDef{
		Name: "DeviceData",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			return nil, fmt.Errorf("device data is made by tensors, not applied")
		},
	})
	define(opConstant, &OpDef{
		Name: "Constant",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			l, err := valueAttr(a)
			if err != nil {
				return nil, err
			}
			return []Shape{NewShape(l.DType, l.Dims...)}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(lc.S.Constant(n.attrs.Lit("value")))
		},
		GoKernel: func(in []*hlo.Literal, a Attrs) ([]*hlo.Literal, error) {
			return []*hlo.Literal{a.Lit("value").Clone()}, nil
		},
		NoGrad: true,
	})
	// Splat is a rank-0 constant filling a shape: the number a traced
	// function applies to a tensor, in one node where a constant and its
	// broadcast would take two (it lowers to the same splat constant).
	define(opSplat, &OpDef{
		Name: "Splat",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			l, err := valueAttr(a)
			if err != nil {
				return nil, err
			}
			if len(l.Dims) != 0 {
				return nil, fmt.Errorf("value must be rank 0, got %v", l.Dims)
			}
			return []Shape{NewShape(l.DType, a.Ints("dims")...)}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(lc.constSplat(n.attrs.Lit("value"), n.out[0].Dims))
		},
		NoGrad: true,
	})
	// StopGradient is the identity whose gradient is zero (Tensor.Detach):
	// it lowers to its operand, so a program holds no trace of it.
	define(opStopGradient, &OpDef{
		Name:  "StopGradient",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) { return in[:1:1], nil },
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value { return single(in[0]) },
		GoKernel: func(in []*hlo.Literal, a Attrs) ([]*hlo.Literal, error) {
			return []*hlo.Literal{in[0].Clone()}, nil
		},
		NoGrad: true,
	})
	define(opIota, &OpDef{
		Name: "Iota",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			dims := a.Ints("dims")
			if dt := a.DType("dtype"); !dt.Valid() || dt.Size() == 0 || dt.IsBool() {
				return nil, fmt.Errorf("needs a numeric element type, got %v", dt)
			}
			if ax := a.Int("axis"); ax < 0 || int(ax) >= len(dims) {
				return nil, fmt.Errorf("axis %d out of range for rank %d", ax, len(dims))
			}
			return []Shape{NewShape(a.DType("dtype"), dims...)}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(lc.S.Iota(hlo.NewTensorType(n.attrs.DType("dtype"), n.attrs.Ints("dims")...), n.attrs.Int("axis")))
		},
		NoGrad: true,
	})
	define(opRngBits, &OpDef{
		Name: "RngBits",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if !in[0].Equal(NewShape(U64, 2)) {
				return nil, fmt.Errorf("RNG state must be u64[2], got %s", in[0])
			}
			dt := a.DType("dtype")
			if dt != U32 && dt != U64 {
				return nil, fmt.Errorf("random bits must be u32 or u64")
			}
			return []Shape{in[0], NewShape(dt, a.Ints("dims")...)}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			st, bits := lc.S.RngBitGenerator(hlo.RngAlgorithm("THREE_FRY"), in[0], hlo.NewTensorType(n.attrs.DType("dtype"), n.attrs.Ints("dims")...))
			return []*hlo.Value{st, bits}
		},
		NoGrad: true,
		Random: true,
	})

	define(opNonZero, &OpDef{
		Name:  "NonZero",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) { return nil, nil },
		GoKernel: func(in []*hlo.Literal, a Attrs) ([]*hlo.Literal, error) {
			x := in[0]
			var idx []int64
			n := int64(0) // counted apart: a rank-0 hit adds no coordinates
			for i := 0; i < x.NumElements(); i++ {
				if x.Complex(i) != 0 {
					idx = append(idx, unflatIndex(x.Dims, int64(i))...)
					n++
				}
			}
			return []*hlo.Literal{hlo.LiteralFromSlice(append([]int64{}, idx...), n, int64(len(x.Dims)))}, nil
		},
		NoGrad: true,
	})
	define(opUnique, &OpDef{
		Name: "Unique",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if in[0].DType.IsComplex() {
				return nil, fmt.Errorf("cannot order complex values")
			}
			return nil, nil
		},
		GoKernel: func(in []*hlo.Literal, a Attrs) ([]*hlo.Literal, error) {
			x := in[0]
			n := x.NumElements()
			order := make([]int, n)
			for i := range order {
				order[i] = i
			}
			// numpy order: ascending, NaN last and kept once; integers
			// compare as integers (u64 above 2^63 and i64 beyond 2^53 have
			// no exact float64).
			less := func(i, j int) bool {
				a, b := x.Float(i), x.Float(j)
				return a < b || !math.IsNaN(a) && math.IsNaN(b)
			}
			switch {
			case x.DType.IsUnsigned():
				less = func(i, j int) bool { return x.Uint(i) < x.Uint(j) }
			case x.DType.IsInt():
				less = func(i, j int) bool { return x.Int(i) < x.Int(j) }
			}
			sort.SliceStable(order, func(a, b int) bool { return less(order[a], order[b]) })
			var keep []int
			for k, i := range order {
				if k == 0 || less(order[k-1], i) {
					keep = append(keep, i)
				}
			}
			out := hlo.NewLiteral(x.DType, int64(len(keep)))
			s := x.DType.Size()
			for k, i := range keep {
				copy(out.Data[k*s:(k+1)*s], x.Data[i*s:(i+1)*s])
			}
			return []*hlo.Literal{out}, nil
		},
	})
	define(opMaskedSelect, &OpDef{
		Name: "MaskedSelect",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if in[1].DType != Bool || !sameDims(in[0].Dims, in[1].Dims) {
				return nil, fmt.Errorf("mask must be bool with the operand's shape")
			}
			return nil, nil
		},
		GoKernel: func(in []*hlo.Literal, a Attrs) ([]*hlo.Literal, error) {
			x, m := in[0], in[1]
			s := x.DType.Size()
			var data []byte
			n := 0
			for i := 0; i < x.NumElements(); i++ {
				if m.Data[i] != 0 {
					data = append(data, x.Data[i*s:(i+1)*s]...)
					n++
				}
			}
			out := hlo.NewLiteral(x.DType, int64(n))
			copy(out.Data, data)
			return []*hlo.Literal{out}, nil
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			return []*Tensor{apply1(opMaskedScatter, nil, dy[0], x[1]), nil}
		},
	})
	// MaskedScatter is MaskedSelect's transpose: the values go, in order, to
	// the true positions of the mask; the rest is zero.
	define(opMaskedScatter, &OpDef{
		Name: "MaskedScatter",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if in[0].Rank() != 1 || in[1].DType != Bool {
				return nil, fmt.Errorf("want 1-D values and a bool mask")
			}
			return []Shape{NewShape(in[0].DType, in[1].Dims...)}, nil
		},
		GoKernel: func(in []*hlo.Literal, a Attrs) ([]*hlo.Literal, error) {
			v, m := in[0], in[1]
			out := hlo.NewLiteral(v.DType, m.Dims...)
			s := v.DType.Size()
			k := 0
			for i := 0; i < m.NumElements(); i++ {
				if m.Data[i] == 0 {
					continue
				}
				if k >= v.NumElements() {
					return nil, fmt.Errorf("mask has more true positions than the %d values", v.NumElements())
				}
				copy(out.Data[i*s:(i+1)*s], v.Data[k*s:(k+1)*s])
				k++
			}
			if k != v.NumElements() {
				return nil, fmt.Errorf("mask has %d true positions for %d values", k, v.NumElements())
			}
			return []*hlo.Literal{out}, nil
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			return []*Tensor{apply1(opMaskedSelect, nil, dy[0], x[1]), nil}
		},
	})
	define(opHostFunc, &OpDef{
		Name: "HostFunc",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if lookupHostFunc(a.Str("name")) == nil {
				return nil, fmt.Errorf("no host function %q is registered", a.Str("name"))
			}
			return decodeShapes(a.Ints("outs"))
		},
		GoKernel: func(in []*hlo.Literal, a Attrs) ([]*hlo.Literal, error) {
			fn := lookupHostFunc(a.Str("name"))
			if fn == nil {
				return nil, fmt.Errorf("no host function %q is registered", a.Str("name"))
			}
			out, err := fn(in)
			if err != nil {
				return nil, err
			}
			want, _ := decodeShapes(a.Ints("outs"))
			if err := checkHostResults(a.Str("name"), out, want); err != nil {
				return nil, err
			}
			return out, nil
		},
	})
}

// unflatIndex is the row-major multi-index of flat offset i in dims.
func unflatIndex(dims []int64, i int64) []int64 {
	idx := make([]int64, len(dims))
	for d := len(dims) - 1; d >= 0; d-- {
		idx[d] = i % dims[d]
		i /= dims[d]
	}
	return idx
}

// encodeShapes packs shapes into one int list: per shape dtype, rank, dims.
func encodeShapes(ss []Shape) []int64 {
	var out []int64
	for _, s := range ss {
		out = append(out, int64(s.DType), int64(s.Rank()))
		out = append(out, s.Dims...)
	}
	return out
}

func decodeShapes(xs []int64) ([]Shape, error) {
	out := []Shape{}
	for len(xs) > 0 {
		if len(xs) < 2 || xs[1] < 0 || int64(len(xs))-2 < xs[1] {
			return nil, fmt.Errorf("malformed output shapes")
		}
		out = append(out, NewShape(DType(xs[0]), xs[2:2+xs[1]]...))
		xs = xs[2+xs[1]:]
	}
	return out, nil
}

// HostFn is user Go code run on the host between device graphs.
type HostFn func(in []*hlo.Literal) ([]*hlo.Literal, error)

var (
	hostFuncsMu sync.RWMutex
	hostFuncs   = map[string]HostFn{}
)

// RegisterHostFunc makes fn callable by name through HostFunc (inside
// traced functions it becomes a host node between device partitions).
// Compiled graphs refer to host functions by name, so a name belongs to one
// Go function: registering it again with the same function is a no-op, with
// another an error.
func RegisterHostFunc(name string, fn HostFn) error {
	if fn == nil {
		return fmt.Errorf("lazy: host function %q is nil", name)
	}
	hostFuncsMu.Lock()
	defer hostFuncsMu.Unlock()
	if old, ok := hostFuncs[name]; ok && funcValue(old) != funcValue(fn) {
		return fmt.Errorf("lazy: host function name %q is already registered to another Go function (graphs already built may call it by that name); register this one under a new name", name)
	}
	hostFuncs[name] = fn
	return nil
}

// funcValue identifies a func value (its closure pointer): two values are
// the same function only if they are one closure.
func funcValue(fn HostFn) uintptr {
	type eface struct{ typ, data unsafe.Pointer }
	var x any = fn
	return uintptr((*eface)(unsafe.Pointer(&x)).data)
}

// checkHostResults checks a host function's results against its declared
// output shapes: count, nil, dtype and dims, and the storage size.
func checkHostResults(name string, out []*hlo.Literal, want []Shape) error {
	if len(out) != len(want) {
		return fmt.Errorf("host function %q returned %d results, declared %d", name, len(out), len(want))
	}
	for i, l := range out {
		if l == nil {
			return fmt.Errorf("host function %q result %d is nil, declared %s", name, i, want[i])
		}
		if s, err := NewShapeE(l.DType, l.Dims...); err != nil || !l.DType.Valid() || !s.Equal(want[i]) {
			return fmt.Errorf("host function %q result %d is %s, declared %s", name, i, l.ShapeString(), want[i])
		}
		if n := want[i].Size() * int64(l.DType.Size()); int64(len(l.Data)) != n {
			return fmt.Errorf("host function %q result %d (%s) holds %d bytes of data, its shape needs %d", name, i, want[i], len(l.Data), n)
		}
	}
	return nil
}

func lookupHostFunc(name string) HostFn {
	hostFuncsMu.RLock()
	defer hostFuncsMu.RUnlock()
	return hostFuncs[name]
}

// HostFunc makes user Go code fn a host op with the declared output specs
// and returns the function that applies it: the inputs are computed and
// copied to the host, fn runs, and its results (which must have the declared
// shapes) come back to the device. Outside a trace it runs at once; inside a
// jit-traced function it becomes a host node between device partitions
// (recorded without running, since its output shapes are declared, unless
// an op whose shape depends on values, such as MaskedSelect, reads its
// result: the trace then runs it). fn must be a pure function of its
// inputs, as JAX's pure_callback: a compiled call may run it more than
// once. fn is registered under name (a name belongs to one Go function:
// reusing it for another is an error).
//
//	double := lazy.HostFunc("double", doubleFn, x.Shape())
//	y := double(x)[0]
func HostFunc(name string, fn HostFn, outSpecs ...Shape) func(inputs ...*Tensor) []*Tensor {
	if fn == nil {
		throw("HostFunc", outSpecs, "function %q is nil", name)
	}
	for i, s := range outSpecs {
		if !s.DType.Valid() || s.DType.Size() == 0 {
			throw("HostFunc", outSpecs, "output %d: invalid element type %v", i, s.DType)
		}
		if err := checkDims(s.DType, s.Dims); err != nil {
			throw("HostFunc", outSpecs, "output %d: %v", i, err)
		}
	}
	if err := RegisterHostFunc(name, fn); err != nil {
		throw("HostFunc", outSpecs, "%v", err)
	}
	attrs := Attrs{{"name", name}, {"outs", encodeShapes(outSpecs)}}
	return func(inputs ...*Tensor) []*Tensor {
		needList("HostFunc", "inputs", inputs, true)
		return apply(opHostFunc, attrs, inputs...)
	}
}

// valueAttr returns a constant's "value" literal, checked.
func valueAttr(a Attrs) (*hlo.Literal, error) {
	l := a.Lit("value")
	if l == nil {
		return nil, fmt.Errorf("missing value")
	}
	if err := checkLiteral(l); err != nil {
		return nil, err
	}
	return l, nil
}
