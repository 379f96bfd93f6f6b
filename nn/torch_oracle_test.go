package nn

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"testing"

	"github.com/xlajit/xlajit/lazy"
)

// The random cases of scripts/torch_nn_oracle.py (PyTorch 1.13): many drawn
// configurations of every layer, activation and loss of this package in f32
// and f64, with edge points (exact zeros, ties, Huber's branch point, large
// and small magnitudes, empty batches, every target ignored). See the
// script for what each case records. Left out because the Go API cannot
// express them: BCE on probabilities (only BCEWithLogits), non-square
// kernels and padding modes other than zeros,
// MultiHeadAttention with kdim/vdim, add_bias_kv or add_zero_attn,
// BatchNorm with momentum None or without running statistics, pooling with
// ceil_mode, dilation or count_include_pad=False, Embedding's max_norm,
// losses whose input and target shapes differ. Left out because PyTorch
// 1.13 has no counterpart: RMSNorm, LayerNorm with a weight and no bias
// (NoBias).

type oracleCase struct {
	Name  string         `json:"name"`
	Kind  string         `json:"kind"`
	DType string         `json:"dtype"`
	Args  map[string]any `json:"args"`
}

// readOracle reads a gzip-compressed safetensors file and the case list
// under metadata key.
func readOracle(t *testing.T, path, key string) (map[string]*lazy.Literal, []oracleCase) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	lits, meta, err := ReadSafetensors(b)
	if err != nil {
		t.Fatal(err)
	}
	var cases []oracleCase
	if err := json.Unmarshal([]byte(meta[key]), &cases); err != nil || len(cases) == 0 {
		t.Fatalf("%s: %d cases, %v", key, len(cases), err)
	}
	return lits, cases
}

// oracleTol is the tolerance of a case: relative to each element and, as a
// floor, to the largest magnitude of the reference tensor (sums of terms
// that cancel are only that accurate), times a factor for edges that are
// ill-conditioned by design:
//
//   - "offset" inputs (values near 1e3 in f32, 1e6 in f64, spread about 2):
//     the mean is only known to about offset·u, and PyTorch's CPU kernels
//     accumulate f32 statistics in f64 while lazy reduces f32 in f32;
//     PyTorch's LayerNorm computes x·rstd - mean·rstd, which cancels;
//   - "const" LayerNorm inputs (zero variance): rstd = 1/sqrt(eps) scales
//     the rounding of x·rstd in PyTorch's formula.
func oracleTol(c oracleCase) float64 {
	tol := 1e-5
	if c.DType == "f64" {
		tol = 1e-10
	}
	switch c.Args["edge"] {
	case "offset":
		tol *= 1e3
	case "const":
		tol /= math.Sqrt(num(c.Args, "eps"))
	}
	return tol
}

// near compares got with want elementwise: NaN matches NaN, an infinity
// itself, other values |got - want| <= tol (|want| + max |want|) + floor. A
// nil want is all zeros (PyTorch had no gradient).
func near(got *lazy.Tensor, want *lazy.Literal, tol, floor float64) string {
	if got == nil {
		return "no value"
	}
	g := got.Float64s()
	if want == nil {
		for i, v := range g {
			if v != 0 {
				return fmt.Sprintf("element %d is %.9g, want 0 (PyTorch has no gradient)", i, v)
			}
		}
		return ""
	}
	if !equalDims(got.Dims(), want.Dims) {
		return fmt.Sprintf("shape %v, want %v", got.Dims(), want.Dims)
	}
	scale := 0.0
	for i := range g {
		if w := math.Abs(want.Float(i)); !math.IsInf(w, 0) && !math.IsNaN(w) {
			scale = max(scale, w)
		}
	}
	for i := range g {
		w := want.Float(i)
		var ok bool
		switch {
		case math.IsNaN(w):
			ok = math.IsNaN(g[i])
		case math.IsInf(w, 0):
			ok = g[i] == w
		default:
			ok = math.Abs(g[i]-w) <= tol*(math.Abs(w)+scale)+floor
		}
		if !ok {
			return fmt.Sprintf("element %d is %.12g, want %.12g (|diff| %.3g, tolerance %.3g of %.3g + %.3g)", i, g[i], w, math.Abs(g[i]-w), tol, math.Abs(w)+scale, floor)
		}
	}
	return ""
}

func maxAbs(l *lazy.Literal) float64 {
	m := 0.0
	for i := 0; i < l.NumElements(); i++ {
		m = max(m, math.Abs(l.Float(i)))
	}
	return m
}

// guard reports a panic of a case's body as a failure naming the case.
func guard(t *testing.T, c oracleCase, body func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s %s %v: panic: %v", c.Name, c.DType, c.Args, r)
		}
	}()
	body()
}

func ints(a map[string]any, k string) []int64 {
	var out []int64
	for _, v := range a[k].([]any) {
		out = append(out, int64(v.(float64)))
	}
	return out
}

func TestLayersOracle(t *testing.T) {
	lits, cases := readOracle(t, "testdata/torch_nn_oracle.safetensors.gz", "layers")
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { guard(t, c, func() { layerOracleCase(t, lits, c) }) })
	}
}

func layerOracleCase(t *testing.T, lits map[string]*lazy.Literal, c oracleCase) {
	p := c.Name + "."
	var ins []*lazy.Tensor
	for i := 0; ; i++ {
		l, ok := lits[fmt.Sprintf("%sin.%d", p, i)]
		if !ok {
			break
		}
		ins = append(ins, lazy.FromLiteral(l))
	}
	layer, fwd := buildOracleLayer(t, c, ins)
	if err := AssignState(StateDict(layer), sub(lits, p+"state.")); err != nil {
		t.Fatalf("loading PyTorch's state dict: %v", err)
	}
	tol := oracleTol(c)
	out := fwd()
	if msg := near(out, lits[p+"out"], tol, 0); msg != "" {
		t.Errorf("%s %s %v: output: %s", c.Name, c.DType, c.Args, msg)
	}
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
	if len(wrt) > 0 && out.DType().IsFloat() {
		grads := lazy.GradWith(out, lazy.FromLiteral(lits[p+"seed"]), wrt...)
		for i, g := range grads {
			if msg := near(g, lits[p+"grad."+names[i]], tol, 0); msg != "" {
				t.Errorf("%s %s %v: gradient of %s: %s", c.Name, c.DType, c.Args, names[i], msg)
			}
		}
	}
	for n, want := range sub(lits, p+"after.") {
		if msg := near(StateDict(layer)[n], want, tol, 0); msg != "" {
			t.Errorf("%s %s %v: %s after the call: %s", c.Name, c.DType, c.Args, n, msg)
		}
	}
}

// buildOracleLayer makes the Go layer of a case and its forward function.
func buildOracleLayer(t *testing.T, c oracleCase, ins []*lazy.Tensor) (any, func() *lazy.Tensor) {
	a := c.Args
	dt := lazy.F32
	if c.DType == "f64" {
		dt = lazy.F64
	}
	i64 := func(k string) int64 { return int64(num(a, k)) }
	opts := []Option{DType(dt)}
	if v, ok := a["bias"].(bool); ok && !v {
		opts = append(opts, NoBias())
	}
	switch c.Kind {
	case "linear":
		l := NewLinear(i64("in"), i64("out"), opts...)
		return l, func() *lazy.Tensor { return l.Forward(ins[0]) }
	case "conv2d":
		opts = append(opts, Stride(ints(a, "stride")...), Padding(ints(a, "padding")...), Dilation(ints(a, "dilation")...), Groups(i64("groups")))
		l := NewConv2d(i64("in"), i64("out"), i64("k"), opts...)
		return l, func() *lazy.Tensor { return l.Forward(ins[0]) }
	case "conv1d":
		opts = append(opts, Stride(ints(a, "stride")...), Padding(ints(a, "padding")...), Dilation(ints(a, "dilation")...), Groups(i64("groups")))
		l := NewConv1d(i64("in"), i64("out"), i64("k"), opts...)
		return l, func() *lazy.Tensor { return l.Forward(ins[0]) }
	case "batchnorm":
		opts = append(opts, Eps(num(a, "eps")), Momentum(num(a, "momentum")))
		if !flag(a, "affine") {
			opts = append(opts, NoBias())
		}
		var l *BatchNorm
		if i64("nd") == 2 {
			l = NewBatchNorm2d(i64("c"), opts...)
		} else {
			l = NewBatchNorm1d(i64("c"), opts...)
		}
		l.SetTraining(flag(a, "train"))
		return l, func() *lazy.Tensor {
			outs := make([]*lazy.Tensor, len(ins))
			for i, x := range ins {
				outs[i] = l.Forward(x)
			}
			return lazy.Stack(0, outs...)
		}
	case "layernorm":
		l := NewLayerNorm(ints(a, "shape"), append(opts, Eps(num(a, "eps")))...)
		if !flag(a, "affine") {
			l.Weight, l.Bias = nil, nil
		}
		return l, func() *lazy.Tensor { return l.Forward(ins[0]) }
	case "embedding":
		if a["padding_idx"] != nil {
			opts = append(opts, PaddingIdx(i64("padding_idx")))
		}
		l := NewEmbedding(i64("num"), i64("dim"), opts...)
		return l, func() *lazy.Tensor { return l.Forward(ins[0]) }
	case "dropout":
		l := NewDropout(num(a, "p"))
		l.SetTraining(flag(a, "train"))
		return struct{}{}, func() *lazy.Tensor { return l.Forward(ins[0]) }
	case "mha":
		l := NewMultiHeadAttention(i64("embed"), i64("heads"), append(opts, DropoutP(num(a, "dropout")))...)
		l.SetTraining(false)
		return l, func() *lazy.Tensor {
			q, k, v := ins[0], ins[0], ins[0]
			rest := ins[1:]
			if !flag(a, "self") {
				k, v, rest = ins[1], ins[2], ins[3:]
			}
			m := AttnMask{Causal: flag(a, "causal")}
			if flag(a, "key_padding") {
				m.KeyPadding = rest[0]
			}
			if !flag(a, "need_weights") {
				return l.Forward(q, k, v, m)
			}
			out, w := l.ForwardWeights(q, k, v, m)
			return lazy.Concat(0, out.Reshape(-1), w.Reshape(-1))
		}
	case "gru":
		l := NewGRUCell(i64("in"), i64("hidden"), opts...)
		return l, func() *lazy.Tensor {
			var h *lazy.Tensor
			if flag(a, "state") {
				h = ins[1]
			}
			if flag(a, "unroll") {
				out, _ := UnrollGRU(l, ins[0], h)
				return out
			}
			return l.Forward(ins[0], h)
		}
	case "lstm":
		l := NewLSTMCell(i64("in"), i64("hidden"), opts...)
		return l, func() *lazy.Tensor {
			var h, cc *lazy.Tensor
			if flag(a, "state") {
				h, cc = ins[1], ins[2]
			}
			if flag(a, "unroll") {
				out, _, cl := UnrollLSTM(l, ins[0], h, cc)
				return lazy.Concat(1, out.Reshape(out.Dim(0), -1), cl)
			}
			hn, cn := l.Forward(ins[0], h, cc)
			return lazy.Concat(1, hn, cn)
		}
	case "pool":
		k, s, pd := i64("k"), ints(a, "stride"), ints(a, "padding")
		return struct{}{}, func() *lazy.Tensor {
			x := ins[0]
			switch a["fn"] {
			case "max2d":
				return NewMaxPool2d(k, Stride(s...), Padding(pd...)).Forward(x)
			case "avg2d":
				return NewAvgPool2d(k, Stride(s...), Padding(pd...)).Forward(x)
			case "max1d":
				return MaxPool1d(x, k, s[0], pd[0])
			case "avg1d":
				return AvgPool1d(x, k, s[0], pd[0])
			case "global":
				return GlobalAvgPool2d(x)
			}
			t.Fatalf("unknown pooling %v", a["fn"])
			return nil
		}
	case "act":
		ax := int(num(a, "axis"))
		return struct{}{}, func() *lazy.Tensor {
			x := ins[0]
			switch a["fn"] {
			case "relu":
				return x.ReLU()
			case "gelu":
				return x.GELU()
			case "sigmoid":
				return x.Sigmoid()
			case "tanh":
				return x.Tanh()
			case "softmax":
				return x.Softmax(ax)
			case "log_softmax":
				return x.LogSoftmax(ax)
			}
			t.Fatalf("unknown activation %v", a["fn"])
			return nil
		}
	}
	t.Fatalf("unknown kind %q", c.Kind)
	return nil, nil
}

func TestLossesOracle(t *testing.T) {
	lits, cases := readOracle(t, "testdata/torch_nn_oracle.safetensors.gz", "losses")
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { guard(t, c, func() { lossOracleCase(t, lits, c) }) })
	}
}

func lossOracleCase(t *testing.T, lits map[string]*lazy.Literal, c oracleCase) {
	p := c.Name + "."
	a := c.Args
	x := lazy.FromLiteral(lits[p+"x"])
	y := lazy.FromLiteral(lits[p+"y"])
	var opts []LossOption
	switch a["reduction"] {
	case "sum":
		opts = append(opts, Reduce(Sum))
	case "none":
		opts = append(opts, Reduce(None))
	case "batchmean":
		opts = append(opts, Reduce(BatchMean))
	}
	if w := lits[p+"w"]; w != nil {
		opts = append(opts, ClassWeights(lazy.FromLiteral(w)))
	}
	if pw := lits[p+"pw"]; pw != nil {
		opts = append(opts, PosWeight(lazy.FromLiteral(pw)))
	}
	if _, ok := a["ignore"]; ok {
		opts = append(opts, IgnoreIndex(int64(num(a, "ignore"))))
	}
	if s := num(a, "smoothing"); s != 0 {
		opts = append(opts, LabelSmoothing(s))
	}
	if d := num(a, "delta"); d != 0 {
		opts = append(opts, Delta(d))
	}
	if flag(a, "log_target") {
		opts = append(opts, LogTarget())
	}
	out := lossByKind(t, c.Kind, x, y, opts...)
	tol := oracleTol(c)
	if msg := near(out, lits[p+"out"], tol, 0); msg != "" {
		t.Errorf("%s %s %v: loss: %s", c.Name, c.DType, a, msg)
	}
	wrt := []*lazy.Tensor{x}
	if lits[p+"grad.y"] != nil {
		wrt = append(wrt, y)
	}
	grads := lazy.GradWith(out, lazy.FromLiteral(lits[p+"seed"]), wrt...)
	// CrossEntropy's and BCEWithLogits' input gradient is a difference of
	// terms of about |seed| (softmax or sigmoid minus the target), which
	// cancel where the target matches the prediction (label smoothing 1 on
	// logits near 0): that is the floor.
	floor := 0.0
	if c.Kind == "ce" || c.Kind == "bce" {
		floor = tol * maxAbs(lits[p+"seed"])
	}
	if msg := near(grads[0], lits[p+"grad.x"], tol, floor); msg != "" {
		t.Errorf("%s %s %v: gradient of the input: %s", c.Name, c.DType, a, msg)
	}
	if len(grads) > 1 {
		if msg := near(grads[1], lits[p+"grad.y"], tol, 0); msg != "" {
			t.Errorf("%s %s %v: gradient of the target: %s", c.Name, c.DType, a, msg)
		}
	}
}
