package linalg

import (
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// boolAttr reads an i1 attribute (BoolAttr, or an integer 0/1); def when
// absent.
func boolAttr(c *kernel.OpCtx, name string, def bool) (bool, error) {
	a := c.Op.Attr(name)
	if a == nil {
		return def, nil
	}
	v, ok := hlo.AttrInt(a)
	if !ok {
		return false, c.Errorf("attribute %s = %s is not a boolean", name, hlo.AttrString(a))
	}
	return v != 0, nil
}

// intsAttr reads an integer-list attribute, or def when absent.
func intsAttr(c *kernel.OpCtx, name string, def []int64) ([]int64, error) {
	a := c.Op.Attr(name)
	if a == nil {
		return def, nil
	}
	v, ok := hlo.AttrInts(a)
	if !ok {
		return nil, c.Errorf("attribute %s = %s is not a list of integers", name, hlo.AttrString(a))
	}
	return v, nil
}

// enumAttr reads an enum attribute written either as #dialect<kind VALUE>
// or as a bare/opaque spelling; def when absent.
func enumAttr(c *kernel.OpCtx, name, def string) (string, error) {
	a := c.Op.Attr(name)
	if a == nil {
		return def, nil
	}
	if v, ok := hlo.AttrEnum(a); ok {
		return v, nil
	}
	if o, ok := a.(hlo.OpaqueAttr); ok {
		// "#stablehlo<fft_type FFT>" or a bare "FFT".
		t := strings.TrimSuffix(strings.TrimSpace(o.Text), ">")
		if i := strings.LastIndexAny(t, " <"); i >= 0 {
			t = t[i+1:]
		}
		if t != "" {
			return t, nil
		}
	}
	return "", c.Errorf("attribute %s = %s is not an enum", name, hlo.AttrString(a))
}

// tensorIn returns operand i's static tensor type or an error naming the op.
func tensorIn(c *kernel.OpCtx, i int) (*hlo.TensorType, error) {
	if i >= len(c.In) {
		return nil, c.Errorf("expects at least %d operands, has %d", i+1, len(c.In))
	}
	t := c.InTensor(i)
	if t == nil {
		return nil, c.Errorf("operand %d is %s, not a tensor", i, c.In[i])
	}
	if !t.IsStatic() {
		return nil, c.Errorf("operand %d has dynamic shape %s", i, t)
	}
	if t.Quant != nil {
		return nil, c.Errorf("operand %d: quantized type %s is not supported", i, t)
	}
	return t, nil
}

// tensorOut returns result i's static tensor type.
func tensorOut(c *kernel.OpCtx, i int) (*hlo.TensorType, error) {
	if i >= len(c.Out) {
		return nil, c.Errorf("expects at least %d results, has %d", i+1, len(c.Out))
	}
	t := c.OutTensor(i)
	if t == nil {
		return nil, c.Errorf("result %d is %s, not a tensor", i, c.Out[i])
	}
	if !t.IsStatic() {
		return nil, c.Errorf("result %d has dynamic shape %s", i, t)
	}
	if t.Quant != nil {
		return nil, c.Errorf("result %d: quantized type %s is not supported", i, t)
	}
	return t, nil
}

func dimsEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// argLiteral returns args[i] as a literal.
func argLiteral(c *kernel.OpCtx, args []kernel.Value, i int) (*hlo.Literal, error) {
	l, ok := args[i].(*hlo.Literal)
	if !ok {
		return nil, c.Errorf("operand %d is a %T at run time, not a tensor", i, args[i])
	}
	return l, nil
}

// argPair returns the first two operands as tensors (a product's or a
// convolution's).
func argPair(c *kernel.OpCtx, args []kernel.Value) (l, r *hlo.Literal, err error) {
	if l, err = argLiteral(c, args, 0); err != nil {
		return nil, nil, err
	}
	r, err = argLiteral(c, args, 1)
	return l, r, err
}
