package nn

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/lazy"
)

// The reference values come from scripts/torch_reference.py (PyTorch 1.13,
// float64): each layer's state dict under PyTorch's names, its inputs, its
// output, and the gradients of sum(out * seed).

type refCase struct {
	Name string         `json:"name"`
	Kind string         `json:"kind"`
	Args map[string]any `json:"args"`
}

func readRef(t *testing.T, path string) (map[string]*lazy.Literal, []refCase, map[string]string) {
	t.Helper()
	lits, meta, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []refCase
	if err := json.Unmarshal([]byte(meta["cases"]), &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	return lits, cases, meta
}

// sub returns the literals under prefix, the prefix removed.
func sub(lits map[string]*lazy.Literal, prefix string) map[string]*lazy.Literal {
	out := map[string]*lazy.Literal{}
	for n, l := range lits {
		if strings.HasPrefix(n, prefix) {
			out[strings.TrimPrefix(n, prefix)] = l
		}
	}
	return out
}

func num(a map[string]any, k string) float64 {
	v, ok := a[k]
	if !ok {
		return 0
	}
	return v.(float64)
}

func flag(a map[string]any, k string) bool { v, _ := a[k].(bool); return v }

// closeTo compares a tensor with a reference literal elementwise:
// |got - want| <= atol + rtol |want|.
func closeTo(t *testing.T, what string, got *lazy.Tensor, want *lazy.Literal, rtol, atol float64) {
	t.Helper()
	if want == nil {
		t.Errorf("%s: no reference", what)
		return
	}
	if got == nil {
		t.Errorf("%s: no value", what)
		return
	}
	if !equalDims(got.Dims(), want.Dims) {
		t.Errorf("%s: shape %v, want %v", what, got.Dims(), want.Dims)
		return
	}
	g := got.Float64s()
	worst, at := 0.0, -1
	for i := range g {
		w := want.Float(i)
		d := math.Abs(g[i] - w)
		if !(d <= atol+rtol*math.Abs(w)) && (d > worst || at < 0 || math.IsNaN(d)) {
			worst, at = d, i
		}
	}
	if at >= 0 {
		t.Errorf("%s: element %d is %.12g, want %.12g (|diff| %.3g)", what, at, g[at], want.Float(at), worst)
	}
}

func TestLayersMatchPyTorch(t *testing.T) {
	lits, cases, _ := readRef(t, "testdata/torch_layers.safetensors")
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			p := c.Name + "."
			var ins []*lazy.Tensor
			for i := 0; ; i++ {
				l, ok := lits[fmt.Sprintf("%sin.%d", p, i)]
				if !ok {
					break
				}
				ins = append(ins, lazy.FromLiteral(l))
			}
			layer, fwd := buildLayer(t, c, ins)
			if err := AssignState(StateDict(layer), sub(lits, p+"state.")); err != nil {
				t.Fatalf("loading PyTorch's state dict: %v", err)
			}
			out := fwd()
			closeTo(t, "output", out, lits[p+"out"], 1e-9, 1e-12)
			var wrt []*lazy.Tensor
			var names []string
			for i, x := range ins {
				if x.DType().IsFloat() {
					wrt = append(wrt, x)
					names = append(names, fmt.Sprintf("in.%d", i))
				}
			}
			for _, q := range State(layer) {
				if !q.Buffer {
					wrt = append(wrt, q.Tensor)
					names = append(names, "state."+q.Name)
				}
			}
			if len(wrt) > 0 {
				grads := lazy.GradWith(out, lazy.FromLiteral(lits[p+"seed"]), wrt...)
				for i, g := range grads {
					closeTo(t, "grad "+names[i], g, lits[p+"grad."+names[i]], 1e-8, 1e-11)
				}
			}
			for n, want := range sub(lits, p+"after.") {
				closeTo(t, "state after "+n, StateDict(layer)[n], want, 1e-9, 1e-12)
			}
		})
	}
}

// buildLayer makes the Go layer of a case (f64) and its forward function.
func buildLayer(t *testing.T, c refCase, ins []*lazy.Tensor) (any, func() *lazy.Tensor) {
	a := c.Args
	f64 := DType(lazy.F64)
	i64 := func(k string) int64 { return int64(num(a, k)) }
	switch c.Kind {
	case "linear":
		opts := []Option{f64}
		if !flag(a, "bias") {
			opts = append(opts, NoBias())
		}
		l := NewLinear(i64("in"), i64("out"), opts...)
		return l, func() *lazy.Tensor { return l.Forward(ins[0]) }
	case "conv2d":
		l := NewConv2d(i64("in"), i64("out"), i64("k"), f64, Stride(i64("stride")), Padding(i64("padding")), Dilation(i64("dilation")), Groups(i64("groups")))
		return l, func() *lazy.Tensor { return l.Forward(ins[0]) }
	case "conv1d":
		l := NewConv1d(i64("in"), i64("out"), i64("k"), f64, Stride(i64("stride")), Padding(i64("padding")), Dilation(i64("dilation")), Groups(i64("groups")))
		return l, func() *lazy.Tensor { return l.Forward(ins[0]) }
	case "bn2d", "bn1d":
		var l *BatchNorm
		if c.Kind == "bn2d" {
			l = NewBatchNorm2d(i64("c"), f64)
		} else {
			l = NewBatchNorm1d(i64("c"), f64)
		}
		if strings.Contains(c.Name, "bn1d_train") && !strings.Contains(c.Name, "seq") {
			l.Momentum = 0.3
		}
		SetTraining(l, flag(a, "train"))
		return l, func() *lazy.Tensor { return l.Forward(ins[0]) }
	case "layernorm":
		var shape []int64
		for _, v := range a["shape"].([]any) {
			shape = append(shape, int64(v.(float64)))
		}
		opts := []Option{f64}
		if e := num(a, "eps"); e != 0 {
			opts = append(opts, Eps(e))
		}
		l := NewLayerNorm(shape, opts...)
		return l, func() *lazy.Tensor { return l.Forward(ins[0]) }
	case "embedding":
		opts := []Option{f64}
		if _, ok := a["padding_idx"]; ok {
			opts = append(opts, PaddingIdx(i64("padding_idx")))
		}
		l := NewEmbedding(i64("num"), i64("dim"), opts...)
		return l, func() *lazy.Tensor { return l.Forward(ins[0]) }
	case "mha":
		l := NewMultiHeadAttention(i64("embed"), i64("heads"), f64)
		return l, func() *lazy.Tensor {
			if flag(a, "causal") {
				return l.CausalSelfAttention(ins[0])
			}
			return l.Forward(ins[0], ins[1], ins[2], AttnMask{KeyPadding: ins[3]})
		}
	case "grucell":
		l := NewGRUCell(i64("in"), i64("hidden"), f64)
		return l, func() *lazy.Tensor { return l.Forward(ins[0], ins[1]) }
	case "gru_unroll":
		l := NewGRUCell(i64("in"), i64("hidden"), f64)
		return l, func() *lazy.Tensor { out, _ := UnrollGRU(l, ins[0], ins[1]); return out }
	case "lstmcell":
		l := NewLSTMCell(i64("in"), i64("hidden"), f64)
		return l, func() *lazy.Tensor {
			h, cc := l.Forward(ins[0], ins[1], ins[2])
			return lazy.Concat(1, h, cc)
		}
	case "lstm_unroll":
		l := NewLSTMCell(i64("in"), i64("hidden"), f64)
		return l, func() *lazy.Tensor {
			out, _, cc := UnrollLSTM(l, ins[0], nil, nil)
			return lazy.Concat(1, out.Reshape(out.Dim(0), -1), cc)
		}
	case "pool":
		k, s, pd := i64("k"), i64("s"), i64("p")
		var l struct{}
		return l, func() *lazy.Tensor {
			x := ins[0]
			switch a["fn"] {
			case "max2d":
				return NewMaxPool2d(k, Stride(s), Padding(pd)).Forward(x)
			case "avg2d":
				return NewAvgPool2d(k, Stride(s), Padding(pd)).Forward(x)
			case "max1d":
				return MaxPool1d(x, k, s, pd)
			case "avg1d":
				return AvgPool1d(x, k, s, pd)
			case "global":
				return GlobalAvgPool2d(x)
			}
			t.Fatalf("unknown pooling %v", a["fn"])
			return nil
		}
	}
	t.Fatalf("unknown kind %q", c.Kind)
	return nil, nil
}
