package chlo

import (
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

func init() {
	kernel.Register(
		kernel.Entry{Name: "chlo.top_k", Compile: compileTopK, Fresh: true},
		kernel.Entry{Name: "chlo.constant_like", Compile: compileConstantLike, Fresh: true},
		kernel.Entry{Name: "chlo.constant", Compile: compileChloConstant},
	)
}

// totalKey maps element i to an int64 in the order of its type (floats in
// IEEE totalOrder: -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN), as
// the TOTALORDER sort of top_k's decomposition compares.
func totalKey(dt hlo.DType) func(l *hlo.Literal, i int) int64 {
	switch {
	case dt == hlo.F8E8M0FNU:
		// No sign bit: the bit pattern orders the values (NaN, 0xFF, last).
		return func(l *hlo.Literal, i int) int64 { return int64(l.Bits(i)) }
	case dt.IsFloat():
		sign := uint64(1) << uint(dt.Bits()-1)
		return func(l *hlo.Literal, i int) int64 {
			b := l.Bits(i)
			if b&sign != 0 {
				return -int64(b&^sign) - 1
			}
			return int64(b)
		}
	case dt.IsSigned():
		return func(l *hlo.Literal, i int) int64 { return l.Int(i) }
	case dt == hlo.U64:
		// Flip the top bit so that unsigned order survives int64 compare.
		return func(l *hlo.Literal, i int) int64 { return int64(l.Uint(i) ^ 1<<63) }
	}
	return func(l *hlo.Literal, i int) int64 { return int64(l.Uint(i)) }
}

// compileTopK: the k largest entries of each row of the last dimension,
// largest first, equal entries in index order (a stable descending sort).
func compileTopK(c *kernel.OpCtx) (kernel.RunFn, error) {
	k, ok := c.Int("k")
	if !ok {
		return nil, c.Errorf("missing k")
	}
	in, err := c.StaticTensor(c.In[0], "operand")
	if err != nil {
		return nil, err
	}
	if len(c.Out) != 2 {
		return nil, c.Errorf("want 2 results (values, indices), got %d", len(c.Out))
	}
	vt, err := c.StaticTensor(c.Out[0], "values")
	if err != nil {
		return nil, err
	}
	it, err := c.StaticTensor(c.Out[1], "indices")
	if err != nil {
		return nil, err
	}
	if in.Rank() == 0 || k < 0 || k > in.Dims[in.Rank()-1] || in.DType.IsComplex() || !it.DType.IsInt() {
		return nil, c.Errorf("k = %d does not fit operand %s (or bad index type %s)", k, in, it)
	}
	n := int(in.Dims[in.Rank()-1])
	rows := int(in.NumElements()) / max(n, 1)
	if n == 0 {
		rows = 0
	}
	key := totalKey(in.DType)
	size := in.DType.Size()
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		src, err := kernel.TensorArg(op, args, 0)
		if err != nil {
			return err
		}
		vals, idxs := kernel.Alloc(vt), kernel.Alloc(it)
		order := make([]int, n)
		keys := make([]int64, n)
		for r := 0; r < rows; r++ {
			for j := range order {
				order[j] = j
				keys[j] = key(src, r*n+j)
			}
			slices.SortStableFunc(order, func(a, b int) int {
				switch {
				case keys[a] > keys[b]:
					return -1
				case keys[a] < keys[b]:
					return 1
				}
				return 0
			})
			for j := 0; j < int(k); j++ {
				s, d := (r*n+order[j])*size, (r*int(k)+j)*size
				copy(vals.Data[d:d+size], src.Data[s:s+size])
				idxs.SetInt(r*int(k)+j, int64(order[j]))
			}
		}
		results[0], results[1] = vals, idxs
		return nil
	}, nil
}

// compileConstantLike: a splat of the value attribute in the operand's shape.
func compileConstantLike(c *kernel.OpCtx) (kernel.RunFn, error) {
	out, err := c.StaticTensor(c.Out[0], "result")
	if err != nil {
		return nil, err
	}
	v, err := scalarAttr(c, "value", out.DType)
	if err != nil {
		return nil, err
	}
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		l := kernel.Alloc(out)
		size := out.DType.Size()
		for i := 0; i < l.NumElements(); i++ {
			copy(l.Data[i*size:(i+1)*size], v.Data)
		}
		results[0] = l
		return nil
	}, nil
}

// scalarAttr reads an attribute as one element of type dt.
func scalarAttr(c *kernel.OpCtx, name string, dt hlo.DType) (*hlo.Literal, error) {
	l := hlo.NewLiteral(dt)
	switch a := c.Op.Attr(name).(type) {
	case *hlo.DenseElementsAttr:
		if a.Value == nil || a.Value.NumElements() != 1 || a.Value.DType != dt {
			return nil, c.Errorf("%s must be one %s element, got %s", name, dt, hlo.AttrString(a))
		}
		copy(l.Data, a.Value.Data)
	case hlo.FloatAttr:
		l.SetFloat(0, a.Value)
	case hlo.IntAttr:
		l.SetInt(0, a.Value)
	case hlo.BoolAttr:
		if a {
			l.SetInt(0, 1)
		}
	default:
		return nil, c.Errorf("missing or unsupported %s attribute %s", name, kernel.AttrText(a))
	}
	return l, nil
}

// compileChloConstant: chlo.constant {value = dense<...>}.
func compileChloConstant(c *kernel.OpCtx) (kernel.RunFn, error) {
	d, ok := c.Op.Attr("value").(*hlo.DenseElementsAttr)
	if !ok {
		return nil, c.Errorf("missing dense value attribute")
	}
	v, err := c.DenseLiteral(d)
	if err != nil {
		return nil, err
	}
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		results[0] = v
		return nil
	}, nil
}
