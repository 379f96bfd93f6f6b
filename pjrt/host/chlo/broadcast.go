package chlo

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The chlo.broadcast_* ops are the binary element-wise ops with implicit
// broadcasting: each operand is expanded to the result shape (numpy-style
// trailing alignment, or the lower-rank operand's broadcast_dimensions, with
// size-1 dimensions stretched), then the op's same-shape kernel runs.
func init() {
	ops := map[string]string{
		"add": "stablehlo.add", "subtract": "stablehlo.subtract", "multiply": "stablehlo.multiply",
		"divide": "stablehlo.divide", "remainder": "stablehlo.remainder", "maximum": "stablehlo.maximum",
		"minimum": "stablehlo.minimum", "power": "stablehlo.power", "atan2": "stablehlo.atan2",
		"and": "stablehlo.and", "or": "stablehlo.or", "xor": "stablehlo.xor",
		"shift_left": "stablehlo.shift_left", "shift_right_arithmetic": "stablehlo.shift_right_arithmetic",
		"shift_right_logical": "stablehlo.shift_right_logical", "complex": "stablehlo.complex",
		"compare": "stablehlo.compare", "next_after": "chlo.next_after", "polygamma": "chlo.polygamma",
		"zeta": "chlo.zeta", "select": "stablehlo.select",
	}
	for short, target := range ops {
		kernel.Register(kernel.Entry{Name: "chlo.broadcast_" + short, Compile: compileBroadcasting(target)})
	}
}

// compileBroadcasting delegates to target's kernel on operands expanded to
// the result shape.
func compileBroadcasting(target string) kernel.CompileFn {
	return func(c *kernel.OpCtx) (kernel.RunFn, error) {
		e := kernel.Lookup(target)
		if e == nil {
			return nil, c.Errorf("needs %s, which the embedded device lacks", target)
		}
		out, err := c.StaticTensor(c.Out[0], "result")
		if err != nil {
			return nil, err
		}
		maxRank := 0
		for i := range c.In {
			t, err := c.StaticTensor(c.In[i], fmt.Sprintf("operand %d", i))
			if err != nil {
				return nil, err
			}
			maxRank = max(maxRank, t.Rank())
		}
		bdims, hasB := c.Ints("broadcast_dimensions")
		// Expansion plan per operand: result dim of each operand dim.
		maps := make([][]int, len(c.In))
		op := &hlo.Op{Name: target, Loc: c.Op.Loc}
		for i := range c.In {
			t := c.InTensor(i)
			m := make([]int, t.Rank())
			for d := range m {
				m[d] = out.Rank() - t.Rank() + d
				if hasB && t.Rank() < maxRank && len(bdims) == t.Rank() {
					m[d] = int(bdims[d])
				}
				if m[d] < 0 || m[d] >= out.Rank() || (t.Dims[d] != 1 && t.Dims[d] != out.Dims[m[d]]) {
					return nil, c.Errorf("operand %d %s does not broadcast to %s", i, t, out)
				}
			}
			maps[i] = m
			// Operands keep their element types (compare, complex and
			// select's predicate differ from the result's).
			op.Operands = append(op.Operands, &hlo.Value{Type: hlo.NewTensorType(t.DType, out.Dims...), Index: i})
		}
		op.Results = []*hlo.Value{{Type: out, Def: op}}
		for _, a := range c.Op.Attrs {
			if a.Name == "broadcast_dimensions" {
				continue
			}
			if ea, ok := a.Value.(hlo.EnumAttr); ok {
				if ea.Value == "NOTYPE" {
					continue
				}
				ea.Dialect = "stablehlo"
				a.Value = ea
			}
			op.Attrs = append(op.Attrs, a)
		}
		oc := &kernel.OpCtx{Op: op, Out: []hlo.Type{out}, Module: c.Module, Compiler: c.Compiler}
		for _, v := range op.Operands {
			oc.In = append(oc.In, v.Type)
		}
		run, err := e.Compile(oc)
		if err != nil {
			return nil, err
		}
		self := c.Op
		return func(x *kernel.Ctx, args, results []kernel.Value) error {
			full := make([]kernel.Value, len(args))
			for i := range args {
				l, err := kernel.TensorArg(self, args, i)
				if err != nil {
					return err
				}
				full[i] = expand(l, maps[i], out.Dims)
			}
			return run(x, full, results)
		}, nil
	}
}

// expand broadcasts l to dims, its dimension d landing on dims[m[d]].
func expand(l *hlo.Literal, m []int, dims []int64) *hlo.Literal {
	if len(l.Dims) == len(dims) {
		same := true
		for d := range dims {
			same = same && l.Dims[d] == dims[d]
		}
		if same {
			return l
		}
	}
	out := hlo.NewLiteral(l.DType, dims...)
	size := l.DType.Size()
	src := kernel.Strides(l.Dims)
	idx := make([]int64, len(dims))
	n := out.NumElements()
	for i := 0; i < n; i++ {
		unflatten(i, dims, idx)
		var off int64
		for d, r := range m {
			if l.Dims[d] != 1 {
				off += idx[r] * src[d]
			}
		}
		copy(out.Data[i*size:(i+1)*size], l.Data[int(off)*size:int(off+1)*size])
	}
	return out
}
