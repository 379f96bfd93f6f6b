package movement

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// The legacy broadcast against its definition: result[i..., j...] =
// operand[j...] for every index i of broadcast_sizes.
func TestBroadcastLegacy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dt := range allTypes {
		for _, in := range [][]int64{{}, {3}, {2, 3}, {2, 0}, {1, 4, 1}} {
			for _, sizes := range [][]int64{{}, {4}, {2, 1, 3}, {0}} {
				outDims := append(append([]int64{}, sizes...), in...)
				x := randLit(r, dt, in...)
				op := mkOp("stablehlo.broadcast", []hlo.Type{x.Type()}, []hlo.Type{tt(dt, outDims...)}, attr("broadcast_sizes", ints(sizes...)))
				got := run(t, op, x)[0]
				want := hlo.NewLiteral(dt, outDims...)
				for i := range want.NumElements() {
					setElem(want, i, elem(x, ravel(unravel(i, outDims)[len(sizes):], in)))
				}
				sameLit(t, op.Name+" "+x.ShapeString()+" sizes "+hlo.AttrString(ints(sizes...)), got, want)
			}
		}
	}
}

// A dynamic operand dimension is resolved at run time.
func TestBroadcastLegacyDynamic(t *testing.T) {
	x := iotaLit(hlo.I32, 4, 3)
	op := mkOp("stablehlo.broadcast", []hlo.Type{tt(hlo.I32, hlo.DynamicDim, 3)}, []hlo.Type{tt(hlo.I32, 2, hlo.DynamicDim, 3)}, attr("broadcast_sizes", ints(2)))
	got := run(t, op, x)[0]
	if got.ShapeString() != "i32[2,4,3]" {
		t.Fatalf("result %s, want i32[2,4,3]", got.ShapeString())
	}
	for i, v := range got.I32() {
		if v != int32(i%12) {
			t.Fatalf("element %d = %d, want %d", i, v, i%12)
		}
	}
}

func TestBroadcastLegacyErrors(t *testing.T) {
	x := tt(hlo.F32, 3)
	for _, c := range []struct {
		out      hlo.Type
		attrs    []hlo.NamedAttr
		contains string
	}{
		{tt(hlo.F32, 3, 2), []hlo.NamedAttr{attr("broadcast_sizes", ints(2))}, "result type f32[3,2] does not match the computed shape f32[2,3]"},
		{tt(hlo.F32, 3), []hlo.NamedAttr{attr("broadcast_sizes", ints(-1))}, "negative size"},
		{tt(hlo.F32, 3), nil, "missing attribute broadcast_sizes"},
		{tt(hlo.I32, 2, 3), []hlo.NamedAttr{attr("broadcast_sizes", ints(2))}, "element type"},
	} {
		_, err := compile(mkOp("stablehlo.broadcast", []hlo.Type{x}, []hlo.Type{c.out}, c.attrs...))
		if err == nil || !strings.Contains(err.Error(), c.contains) || !strings.Contains(err.Error(), "stablehlo.broadcast") {
			t.Errorf("-> %s: err = %v, want it to name the op and contain %q", c.out, err, c.contains)
		}
	}
}
