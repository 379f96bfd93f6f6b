package host

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Random programs of a convolution followed by a bias (as lax and nn
// write it: a vector or a [1, O, 1, 1] tensor broadcast along the
// features), sometimes read elsewhere or added the other way round, then a
// ReLU, run fused and unfused must give the same bits (NaNs, infinities
// and signed zeros among the values): the compound step the linalg family
// makes of a small-channel convolution, its bias and its ReLU adds each
// bias to the finished sum and takes the maximum as the separate ops do.
// zeroForm (0, 1 or 2) says how the ReLU's zero is written (see below).
func convGenProgram(r *rand.Rand) (m *hlo.Module, args []*hlo.Literal, fusible bool, zeroForm int) {
	g := &dotGen{r: r, b: newFunc("main"), dt: hlo.F32}
	n, c, o := int64(1+r.Intn(3)), int64(1+r.Intn(4)), int64(1+r.Intn(12))
	h, w := int64(3+r.Intn(8)), int64(8+r.Intn(24))
	k := int64(1 + r.Intn(3))
	pad := int64(r.Intn(2))
	oh, ow := h+2*pad-k+1, w+2*pad-k+1
	x := g.arg(hlo.F32, n, c, h, w)
	wt := g.arg(hlo.F32, o, c, k, k)
	padding := hlo.NewLiteral(hlo.I64, 2, 2)
	copy(padding.I64(), []int64{pad, pad, pad, pad})
	ot := hlo.NewTensorType(hlo.F32, n, o, oh, ow)
	y := g.b.op("stablehlo.convolution", ot, []*hlo.Value{x, wt},
		hlo.NamedAttr{Name: "window_strides", Value: ints64(1, 1)},
		hlo.NamedAttr{Name: "padding", Value: &hlo.DenseElementsAttr{Type: padding.Type(), Value: padding}},
		hlo.NamedAttr{Name: "dimension_numbers", Value: &hlo.ConvDimsAttr{InputBatchDim: 0, InputFeatureDim: 1, InputSpatialDims: []int64{2, 3},
			KernelOutputFeatureDim: 0, KernelInputFeatureDim: 1, KernelSpatialDims: []int64{2, 3},
			OutputBatchDim: 0, OutputFeatureDim: 1, OutputSpatialDims: []int64{2, 3}}},
		hlo.NamedAttr{Name: "feature_group_count", Value: hlo.IntAttr{Value: 1}},
		hlo.NamedAttr{Name: "batch_group_count", Value: hlo.IntAttr{Value: 1}})
	var bias *hlo.Value
	if r.Intn(2) == 0 {
		bias = g.arg(hlo.F32, o)
		bias = g.b.op("stablehlo.broadcast_in_dim", ot, []*hlo.Value{bias}, hlo.NamedAttr{Name: "broadcast_dimensions", Value: ints64(1)})
	} else {
		bias = g.arg(hlo.F32, 1, o, 1, 1)
		bias = g.b.op("stablehlo.broadcast_in_dim", ot, []*hlo.Value{bias}, hlo.NamedAttr{Name: "broadcast_dimensions", Value: ints64(0, 1, 2, 3)})
	}
	fusible = true
	switch r.Intn(6) {
	case 0: // the sum read elsewhere: no compound
		g.rets = append(g.rets, y)
		fusible = false
	case 1: // bias + sum: the other operand order, no compound
		y = g.b.op("stablehlo.add", ot, []*hlo.Value{bias, y})
		fusible = false
	case 2: // the broadcast read elsewhere: it stays a step
		g.rets = append(g.rets, bias)
	}
	if fusible {
		y = g.b.op("stablehlo.add", ot, []*hlo.Value{y, bias})
	}
	// A ReLU, with the pre-activation returned too (as a gradient's
	// comparison reads it) or not, either operand order.
	// The zero is a broadcast scalar constant, a splat constant or a
	// broadcast one-element vector constant.
	var z *hlo.Value
	zeroForm = r.Intn(3)
	switch zeroForm {
	case 0:
		z = g.b.splat(g.b.constant(hlo.ScalarLiteral(hlo.F32, 0)), n, o, oh, ow)
	case 1:
		z = g.b.splatConstant(hlo.ScalarLiteral(hlo.F32, 0), n, o, oh, ow)
	default:
		z = g.b.op("stablehlo.broadcast_in_dim", ot, []*hlo.Value{g.b.constant(hlo.LiteralFromSlice([]float32{0}, 1))},
			hlo.NamedAttr{Name: "broadcast_dimensions", Value: ints64(3)})
	}
	if r.Intn(4) != 0 {
		g.rets = append(g.rets, y)
	}
	relu := []*hlo.Value{y, z}
	if r.Intn(2) == 0 {
		relu[0], relu[1] = z, y
	}
	g.rets = append(g.rets, g.b.op("stablehlo.maximum", ot, relu))
	return module(g.b.ret(g.rets...)), g.args, fusible && o*oh*ow*c*k*k*n > 4096, zeroForm
}

func TestConvCompoundsMatchUnfused(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	iters := 200
	if testing.Short() {
		iters = 50
	}
	compounds, expected, relus := 0, 0, 0
	var reluOf [3]int // compounds with the ReLU, by how its zero is written
	for it := 0; it < iters; it++ {
		m, args, fusible, form := convGenProgram(r)
		fused, made := checkCompounds(t, it, m, args, fusible)
		for _, s := range fused.entry.body.steps {
			if s.compound != nil {
				for _, op := range s.compound.Ops {
					if op.Name == "stablehlo.maximum" {
						relus++
						reluOf[form]++
					}
				}
			}
		}
		if made {
			compounds++
		}
		if fusible {
			expected++
		}
	}
	t.Logf("%d compounds (%d with the ReLU: %v by the zero's form), %d programs could fuse, of %d", compounds, relus, reluOf, expected, iters)
	if slices.Contains(reluOf[:], 0) && kernel.CPU.AVX512F && kernel.CPU.FMA {
		t.Errorf("no ReLU joined a compound for one of the zero's forms: %v (scalar broadcast, splat constant, vector broadcast)", reluOf)
	}
	// With the small-channel kernels most fusible programs make one (not
	// those whose result rows are narrower than 8).
	if (compounds < expected/2 || relus < compounds/3) && kernel.CPU.AVX512F && kernel.CPU.FMA {
		t.Fatalf("only %d of %d fusible programs made a compound step, %d with the ReLU", compounds, expected, relus)
	}
}
