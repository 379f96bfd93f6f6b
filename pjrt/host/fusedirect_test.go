package host

import (
	"math/rand"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// A fusion of one computing op and splatted constants runs that op on
// whole literals (fusion.direct) when the constants' compile-time tiles
// cover the tensor; random such programs must give the unfused bits, for
// sizes on both sides of the tile and constants on either side.
func TestDirectFusionWithConstants(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	types := []hlo.DType{hlo.F32, hlo.F64, hlo.BF16, hlo.I32, hlo.I8, hlo.U64}
	sizes := []int64{1, 3, 17, 64, 1000, 70000}
	direct, tiled := 0, 0
	for it := 0; it < 120; it++ {
		n := sizes[it%len(sizes)]
		dt := types[r.Intn(len(types))]
		un, bin := allowedOn(floatUnary, dt, 1), allowedOn(floatBinary, dt, 2)
		if dt.IsInt() {
			un, bin = allowedOn(intUnary, dt, 1), allowedOn(intBinary, dt, 2)
		}
		b := newFunc("main", hlo.NewTensorType(dt, n))
		c := func() *hlo.Value { return b.splat(b.constant(randLiteral(r, dt, 1, nil)), n) }
		var out *hlo.Value
		t1 := hlo.NewTensorType(dt, n)
		switch r.Intn(3) {
		case 0: // arg op constant
			out = b.op("stablehlo."+bin[r.Intn(len(bin))], t1, []*hlo.Value{b.arg(0), c()})
		case 1: // constant op arg
			out = b.op("stablehlo."+bin[r.Intn(len(bin))], t1, []*hlo.Value{c(), b.arg(0)})
		default: // a unary op of the argument beside an unused constant
			c()
			out = b.op("stablehlo."+un[r.Intn(len(un))], t1, []*hlo.Value{b.arg(0)})
		}
		fused, plain := compileBoth(t, it, module(b.ret(out)))
		for _, st := range fused.entry.body.steps {
			if f := st.fused; f != nil && len(f.members) > 1 {
				if f.direct >= 0 {
					direct++
				} else {
					tiled++
				}
			}
		}
		arg := randLiteral(r, dt, int(n), []int64{n})
		want := run(t, plain, arg)
		for rep := 0; rep < 2; rep++ {
			got := run(t, fused, arg)
			if !got[0].Equal(want[0]) {
				t.Fatalf("program %d (%s, n=%d) differs fused vs unfused:\n%s\ngot  %v\nwant %v", it, dt, n, describeSteps(fused), head(got[0]), head(want[0]))
			}
		}
	}
	if direct == 0 || tiled == 0 {
		t.Fatalf("fusions with constants: %d direct, %d tiled; the test must see both", direct, tiled)
	}
}
