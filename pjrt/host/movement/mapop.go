package movement

import (
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// compileMap compiles stablehlo.map: the computation applied elementwise
// over all dimensions.
func compileMap(c *kernel.OpCtx) (kernel.RunFn, error) {
	n := len(c.In)
	outT, err := tensorOut(c, 0)
	if err != nil {
		return nil, err
	}
	if n == 0 || len(c.Out) != 1 {
		return nil, c.Errorf("has %d inputs and %d results, want N >= 1 inputs and one result", n, len(c.Out))
	}
	var dts []hlo.DType
	for i := 0; i < n; i++ {
		t, err := tensorIn(c, i)
		if err != nil {
			return nil, err
		}
		if !sameShape(t, outT) {
			return nil, c.Errorf("input %d %s and result %s differ in shape", i, t.ShapeString(), outT.ShapeString())
		}
		dts = append(dts, t.DType)
	}
	if dims, ok, err := intsAttr(c, "dimensions"); err != nil {
		return nil, err
	} else if ok {
		for i, d := range dims {
			if d != int64(i) || len(dims) != outT.Rank() {
				return nil, c.Errorf("dimensions %v must be [0, ..., %d] (result %s)", dims, outT.Rank()-1, outT.ShapeString())
			}
		}
	}
	body, err := compileRegion(c, 0, "computation", n, 1)
	if err != nil {
		return nil, err
	}
	for i, dt := range dts {
		if body.args[i] != dt {
			return nil, c.Errorf("computation arguments %v do not match the inputs' element types %v", body.args, dts)
		}
	}
	if body.res[0] != outT.DType {
		return nil, c.Errorf("computation returns %s, result %s", body.res[0], outT.ShapeString())
	}
	var acc accFn
	if n == 2 && dts[0] == outT.DType && dts[1] == outT.DType {
		acc, _, _ = binKernels(body.kind, outT.DType)
	}
	op := c.Op
	dt := outT.DType
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		ins := make([]*hlo.Literal, n)
		for i := range ins {
			l, err := lit(op, args, i)
			if err != nil {
				return err
			}
			if i > 0 && !slices.Equal(l.Dims, ins[0].Dims) {
				return runErr(op, "input %d %s and input 0 %s differ in shape", i, l.ShapeString(), ins[0].ShapeString())
			}
			ins[i] = l
		}
		out := newOut(x, dt, ins[0].Dims)
		results[0] = out
		total := out.NumElements()
		if acc != nil {
			copy(out.Data, ins[0].Data)
			parallelFor(total, 1<<14, func(lo, hi int) { acc(out.Data, lo, 1, ins[1].Data, lo, 1, hi-lo) })
			return nil
		}
		es := dt.Size()
		return forEachParallel(body, x, total, 1024, func(lo, hi int, c *caller) error {
			for e := lo; e < hi; e++ {
				for i := range ins {
					c.set(i, ins[i].Data, e, ins[i].DType)
				}
				if err := c.call(op); err != nil {
					return err
				}
				copy(out.Data[e*es:e*es+es], c.res(0))
			}
			return nil
		})
	}, nil
}
