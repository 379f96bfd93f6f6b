package gentrace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

func TestParseShape(t *testing.T) {
	for in, want := range map[string]string{
		"f32[64,784]": "f32[64,784]", "i32[]": "i32[]", "ui8[ 3 ]": "ui8[3]", "i1[2,0]": "i1[2,0]",
	} {
		s, err := ParseShape(in)
		if err != nil || s.String() != want {
			t.Errorf("ParseShape(%q) = %v, %v; want %s", in, s, err, want)
		}
	}
	for in, msg := range map[string]string{
		"f33[2]": `unknown element type "f33"`, "f32": "want DTYPE[", "f32[2,-1]": `dimension "-1"`,
		"f32[?]": `dimension "?"`, "f32[2,x]": `dimension "x"`,
	} {
		if _, err := ParseShape(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseShape(%q) error %v; want it to contain %q", in, err, msg)
		}
	}
}

func affine(x, w *lazy.Tensor) (*lazy.Tensor, error) { return x.MatMul(w).AddScalar(0.5).ReLU(), nil }

func TestTraceAffine(t *testing.T) {
	r := Trace(Func{Name: "affine", Fn: affine, Shapes: []string{"f32[2,3]", "f32[3,4]"}})
	if r.Err != "" {
		t.Fatal(r.Err)
	}
	if r.Signature != "func(*lazy.Tensor, *lazy.Tensor) (*lazy.Tensor, error)" {
		t.Errorf("signature %q", r.Signature)
	}
	if _, err := fx.Parse(r.Graph); err != nil {
		t.Errorf("graph does not parse: %v\n%s", err, r.Graph)
	}
	if strings.Contains(r.Graph, "#") || !strings.Contains(r.GraphSite, "gentrace_test.go:") {
		t.Errorf("sites: graph\n%s\nwith sites\n%s", r.Graph, r.GraphSite)
	}
	if !strings.Contains(r.HLO, "stablehlo.dot_general") || !strings.Contains(r.HLO, r.Hash[:16]) {
		t.Errorf("HLO (hash %s):\n%s", r.Hash, r.HLO)
	}
	if !strings.Contains(r.IR, "DotGeneral") || !strings.HasPrefix(r.DOT, "digraph") {
		t.Errorf("IR:\n%s\nDOT:\n%s", r.IR, r.DOT)
	}
	// The rebuilt device graph is the one bridge.Compile hashes.
	if !strings.Contains(r.DOT, r.Hash) {
		t.Errorf("DOT is not named by the compiled hash %s:\n%s", r.Hash, r.DOT)
	}
	again := Trace(Func{Name: "affine", Fn: affine, Shapes: []string{"f32[2,3]", "f32[3,4]"}})
	if again.Graph != r.Graph || again.Hash != r.Hash || again.HLO != r.HLO {
		t.Error("two traces differ")
	}
}

func TestTraceRNGIsTheOnlyCapture(t *testing.T) {
	noisy := func(x *lazy.Tensor) *lazy.Tensor { return x.Add(lazy.RandN(lazy.F32, 2, 2)) }
	r := Trace(Func{Name: "noisy", Fn: noisy, Shapes: []string{"f32[2,2]"}})
	if r.Err != "" || len(r.Captures) != 1 || r.Captures[0] != "rng" {
		t.Fatalf("captures %v, err %s", r.Captures, r.Err)
	}
	w := lazy.FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	closure := func(x *lazy.Tensor) *lazy.Tensor { return x.MatMul(w) }
	r = Trace(Func{Name: "closure", Fn: closure, Shapes: []string{"f32[2,2]"}})
	for _, want := range []string{"closure reads tensors it does not take as arguments", "capture 0, f32[2,2], first read by DotGeneral at gentrace/gentrace_test.go:", "pass them as parameters"} {
		if !strings.Contains(r.Err, want) {
			t.Errorf("error %q lacks %q", r.Err, want)
		}
	}
}

func TestTraceErrors(t *testing.T) {
	cases := []struct {
		fn     any
		shapes []string
		want   string
	}{
		{func(x *lazy.Tensor) *lazy.Tensor { return x.AddScalar(float64(x.Item())) }, []string{"f32[]"}, "graph break"},
		{func(x, y *lazy.Tensor) *lazy.Tensor { return x.Add(y) }, []string{"f32[2]", "f32[3]"}, "f32[2]"},
		{func(x *lazy.Tensor) int { return 0 }, []string{"f32[2]"}, "result 0 is int"},
		{func(x []*lazy.Tensor) *lazy.Tensor { return x[0] }, []string{"f32[2]"}, "argument 0 is []*lazy.Tensor"},
		{func(x *lazy.Tensor) *lazy.Tensor { panic("boom") }, []string{"f32[2]"}, "panic: boom"},
		{affine, []string{"f32[2]"}, "takes 2 arguments, 1 shapes given"},
	}
	for i, c := range cases {
		r := Trace(Func{Name: "f", Fn: c.fn, Shapes: c.shapes})
		if !strings.Contains(r.Err, c.want) {
			t.Errorf("case %d: error %q lacks %q", i, r.Err, c.want)
		}
	}
}

func TestRunWritesJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.json")
	t.Setenv(OutEnv, out)
	if err := Run([]Func{{Name: "affine", Pos: "x.go:3", Fn: affine, Shapes: []string{"f32[2,3]", "f32[3,4]"}}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rs []Result
	if err := json.Unmarshal(b, &rs); err != nil || len(rs) != 1 || rs[0].Pos != "x.go:3" || rs[0].Graph == "" {
		t.Fatalf("%v %+v", err, rs)
	}
	// The spec loads and replays.
	spec := jit.AOTSpec{Name: "affine", Signature: rs[0].Signature, Fn: affine, Graph: rs[0].Graph, Hash: rs[0].Hash}
	a, err := jit.LoadAOT(spec)
	if err != nil {
		t.Fatal(err)
	}
	x := lazy.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	w := lazy.FromSlice([]float32{1, 0, 0, 1, 1, 1, -1, 0, 0, 1, 0, 0}, 3, 4)
	outs, err := a.Run(x, w)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := affine(x, w)
	if g, w := outs[0].Float32s(), want.Float32s(); !slices.Equal(g, w) {
		t.Errorf("replay %v, eager %v", g, w)
	}
	if s := a.Stats(); s.Traces != 0 || s.Replays != 1 {
		t.Errorf("stats %s", s)
	}
}

func TestTraceIdentityAndHostOps(t *testing.T) {
	r := Trace(Func{Name: "id", Fn: func(x *lazy.Tensor) *lazy.Tensor { return x }, Shapes: []string{"f32[2]"}})
	if r.Err != "" || r.Hash != "" || r.HLO != "" || !strings.Contains(r.Graph, "output(%arg0)") {
		t.Errorf("identity: %+v", r)
	}
	r = Trace(Func{Name: "nz", Fn: func(x *lazy.Tensor) *lazy.Tensor { return x.AddScalar(1).NonZero() }, Shapes: []string{"f32[4]"}})
	if !strings.Contains(r.Err, "NonZero at gentrace/gentrace_test.go:") || !strings.Contains(r.Err, "cannot be traced ahead of time") {
		t.Errorf("host op: %q", r.Err)
	}
}
