package check_test

import (
	. "github.com/xlajit/xlajit/pjrt/host/internal/hosttest"
	"math"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

func f32s(xs ...float32) *hlo.Literal { return hlo.LiteralFromSlice(xs) }

// checkModule runs one check op over (got, want) and returns the log, or
// the error when log is nil.
func checkOnce(t *testing.T, log *kernel.CheckLog, build func(k *Blk, got, want *hlo.Value), got, want *hlo.Literal) error {
	t.Helper()
	k := NewBlk(got.Type(), want.Type())
	build(k, k.Arg(0), k.Arg(1))
	k.Ret("func.return")
	p, err := host.Compile(Module(Fn("main", k)))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	_, err = p.Run(&kernel.Ctx{Checks: log}, []kernel.Value{got, want})
	return err
}

func TestCheckOps(t *testing.T) {
	nan := float32(math.NaN())
	eq := func(k *Blk, g, w *hlo.Value) { k.Op("check.expect_eq", []*hlo.Value{g, w}, nil) }
	eqConst := func(want *hlo.Literal) func(k *Blk, g, w *hlo.Value) {
		return func(k *Blk, g, w *hlo.Value) {
			k.Op("check.expect_eq_const", []*hlo.Value{g}, nil, Attr("value", Dense(want)))
		}
	}
	almost := func(tol float64) func(k *Blk, g, w *hlo.Value) {
		return func(k *Blk, g, w *hlo.Value) {
			var attrs []hlo.NamedAttr
			if tol > 0 {
				attrs = append(attrs, Attr("tolerance", hlo.FloatAttr{Value: tol}))
			}
			k.Op("check.expect_almost_eq", []*hlo.Value{g, w}, nil, attrs...)
		}
	}
	closeULP := func(lo, hi int64) func(k *Blk, g, w *hlo.Value) {
		return func(k *Blk, g, w *hlo.Value) {
			k.Op("check.expect_close", []*hlo.Value{g, w}, nil,
				Attr("max_ulp_difference", hlo.IntAttr{Value: hi}), Attr("min_ulp_difference", hlo.IntAttr{Value: lo}))
		}
	}
	custom := func(target string) func(k *Blk, g, w *hlo.Value) {
		return func(k *Blk, g, w *hlo.Value) {
			k.Op("stablehlo.custom_call", []*hlo.Value{g, w}, nil, Attr("call_target_name", hlo.StringAttr(target)))
		}
	}
	up := func(f float32, n int) float32 {
		for ; n > 0; n-- {
			f = math.Nextafter32(f, float32(math.Inf(1)))
		}
		return f
	}
	cases := []struct {
		name      string
		build     func(k *Blk, g, w *hlo.Value)
		got, want *hlo.Literal
		ok        bool
	}{
		{"eq", eq, f32s(1, -0.0, 3), f32s(1, 0, 3), true},
		{"eq nan", eq, f32s(nan), f32s(nan), false},
		{"eq ints", eq, Ints(1, 2), Ints(1, 3), false},
		{"eq_const", eqConst(Ints(4, 5)), Ints(4, 5), Ints(0, 0), true},
		{"eq_const bad", eqConst(Ints(4, 6)), Ints(4, 5), Ints(0, 0), false},
		{"almost default", almost(0), f32s(1.00005), f32s(1), true},
		{"almost default fails", almost(0), f32s(1.0002), f32s(1), false},
		{"almost tol", almost(0.1), f32s(1.05), f32s(1), true},
		{"almost nan", almost(0), f32s(nan), f32s(nan), true},
		{"almost inf", almost(0), f32s(float32(math.Inf(1))), f32s(3e38), false},
		{"close 3", closeULP(0, 3), f32s(up(1, 3)), f32s(1), true},
		{"close 4", closeULP(0, 3), f32s(up(1, 4)), f32s(1), false},
		{"close min", closeULP(1, 3), f32s(1), f32s(1), false},
		{"close across zero", closeULP(0, 2), f32s(-math.SmallestNonzeroFloat32), f32s(math.SmallestNonzeroFloat32), true},
		{"close nan", closeULP(0, 0), f32s(nan), f32s(-nan), true},
		{"custom eq", custom("check.expect_eq"), Ints(7), Ints(7), true},
		{"custom close", custom("check.expect_close"), f32s(up(2, 3)), f32s(2), true},
		{"custom close fails", custom("check.expect_close"), f32s(up(2, 4)), f32s(2), false},
		{"custom almost", custom("check.expect_almost_eq"), f32s(1.0009), f32s(1), true},
		{"custom almost fails", custom("check.expect_almost_eq"), f32s(1.002), f32s(1), false},
		{"shape mismatch", eq, Ints(1, 2), Ints(1, 2, 3), false},
	}
	for _, c := range cases {
		log := &kernel.CheckLog{}
		if err := checkOnce(t, log, c.build, c.got, c.want); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.ok {
			WantChecks(t, log, 1, 0)
		} else {
			WantChecks(t, log, 0, 1)
		}
		// Without a log a failure is an error naming the location.
		err := checkOnce(t, nil, c.build, c.got, c.want)
		if (err == nil) != c.ok {
			t.Errorf("%s: without a log err = %v", c.name, err)
		}
		if err != nil && !strings.Contains(err.Error(), "test.mlir:") {
			t.Errorf("%s: error %q names no location", c.name, err)
		}
	}
}

func TestCheckMessage(t *testing.T) {
	want := hlo.LiteralFromSlice([]int64{1, 2, 3, 4}, 2, 2)
	got := hlo.LiteralFromSlice([]int64{1, 2, 3, 5}, 2, 2)
	err := checkOnce(t, nil, func(k *Blk, g, w *hlo.Value) { k.Op("check.expect_eq", []*hlo.Value{g, w}, nil) }, got, want)
	if err == nil {
		t.Fatal("mismatch passed")
	}
	for _, s := range []string{"check.expect_eq", "element [1, 1]", "got 5", "want 4"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message %q lacks %q", err, s)
		}
	}
}

func TestCustomCallCheckEq(t *testing.T) {
	for _, c := range []struct {
		got, want *hlo.Literal
		ok        bool
	}{{f32s(1.00001), f32s(1), true}, {f32s(1.001), f32s(1), false}, {Ints(3), Ints(3), true}, {Ints(3), Ints(4), false}} {
		k := NewBlk(c.got.Type(), c.want.Type())
		r := k.V("stablehlo.custom_call", []*hlo.Value{k.Arg(0), k.Arg(1)}, I1, Attr("call_target_name", hlo.StringAttr("check.eq")))
		k.Ret("func.return", r)
		res, log := Run(t, Module(Fn("main", k)), c.got, c.want)
		if got := res[0].(*hlo.Literal).Data[0] == 1; got != c.ok {
			t.Errorf("check.eq(%s, %s) = %v", c.got, c.want, got)
		}
		if c.ok {
			WantChecks(t, log, 1, 0)
		} else {
			WantChecks(t, log, 0, 1)
		}
	}
}
