package nn

import (
	"math"
	"slices"
	"testing"

	"github.com/xlajit/xlajit/lazy"
)

// nearTorch reports got differing from want (PyTorch 1.13) by more than
// tol relative (and tol absolute near zero).
func nearTorch(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", what, len(got), len(want))
		return
	}
	for i := range want {
		if !(math.Abs(got[i]-want[i]) <= tol*(1+math.Abs(want[i]))) {
			t.Errorf("%s: got %v, want (PyTorch 1.13) %v", what, got, want)
			return
		}
	}
}

// TestBCEWithLogitsEdgesMatchPyTorch checks BCEWithLogits' values and
// input gradients where softplus has its kink-free but select-sensitive
// points: logits of exactly 0 (a zero-initialised head, where the gradient
// must be sigmoid(0) - y and not a tie slope), ±1e-30, ±3, ±100 and ±1e30,
// with and without pos_weight and weight, for every reduction. Expected
// values from PyTorch 1.13:
//
//	x = torch.tensor(xs, requires_grad=True)
//	l = F.binary_cross_entropy_with_logits(x, torch.tensor(ys), reduction=red, pos_weight=..., weight=...)
//	l.sum().backward(); x.grad
func TestBCEWithLogitsEdgesMatchPyTorch(t *testing.T) {
	xs := []float32{0, 0, 0, 1e-30, -1e-30, 3, -3, 100, -100, 1e30, -1e30, 0}
	ys := []float32{0, 0.5, 1, 0, 1, 0.25, 0.75, 0, 1, 1, 0, 0.3}
	pw := []float32{2, 2, 2, 0.5, 0.5, 3, 3, 2, 2, 1.5, 1.5, 0}
	w := []float32{1, 2, 0.5, 1, 1, 1, 2, 1, 1, 1, 1, 3}
	n := int64(len(xs))
	for _, c := range []struct {
		opt       string
		red       Reduction
		loss      []float64
		gradInput []float64
	}{
		{"", None, []float64{0.6931471824645996, 0.6931471824645996, 0.6931471824645996, 0.6931471824645996, 0.6931471824645996, 2.2985873222351074, 2.2985873222351074, 100, 100, 0, 0, 0.6931471824645996},
			[]float64{0.5, 0, -0.5, 0.5, -0.5, 0.7025741338729858, -0.7025741338729858, 1, -1, 0, 0, 0.19999998807907104}},
		{"", Sum, []float64{208.75604248046875},
			[]float64{0.5, 0, -0.5, 0.5, -0.5, 0.7025741338729858, -0.7025741338729858, 1, -1, 0, 0, 0.19999998807907104}},
		{"", Mean, []float64{17.396337509155273},
			[]float64{0.0416666679084301, 0, -0.0416666679084301, 0.0416666679084301, -0.0416666679084301, 0.058547843247652054, -0.058547843247652054, 0.0833333358168602, -0.0833333358168602, 0, 0, 0.01666666567325592}},
		{"pos_weight", None, []float64{0.6931471824645996, 1.0397207736968994, 1.3862943649291992, 0.6931471824645996, 0.3465735912322998, 2.322880983352661, 6.871468544006348, 100, 200, 0, 0, 0.4852030277252197},
			[]float64{0.5, -0.25, -1, 0.5, -0.25, 0.678861141204834, -2.1314353942871094, 1, -2, 0, 0, 0.3499999940395355}},
		{"pos_weight", Sum, []float64{313.83843994140625},
			[]float64{0.5, -0.25, -1, 0.5, -0.25, 0.678861141204834, -2.1314353942871094, 1, -2, 0, 0, 0.3499999940395355}},
		{"pos_weight", Mean, []float64{26.1532039642334},
			[]float64{0.0416666679084301, -0.02083333395421505, -0.0833333358168602, 0.0416666679084301, -0.02083333395421505, 0.05657176300883293, -0.17761962115764618, 0.0833333358168602, -0.1666666716337204, 0, 0, 0.02916666679084301}},
		{"weight", None, []float64{0.6931471824645996, 1.3862943649291992, 0.3465735912322998, 0.6931471824645996, 0.6931471824645996, 2.2985873222351074, 4.597174644470215, 100, 100, 0, 0, 2.079441547393799},
			[]float64{0.5, 0, -0.25, 0.5, -0.5, 0.7025741338729858, -1.4051482677459717, 1, -1, 0, 0, 0.5999999642372131}},
		{"weight", Sum, []float64{212.78750610351562},
			[]float64{0.5, 0, -0.25, 0.5, -0.5, 0.7025741338729858, -1.4051482677459717, 1, -1, 0, 0, 0.5999999642372131}},
		{"weight", Mean, []float64{17.73229217529297},
			[]float64{0.0416666679084301, 0, -0.02083333395421505, 0.0416666679084301, -0.0416666679084301, 0.058547843247652054, -0.11709568649530411, 0.0833333358168602, -0.0833333358168602, 0, 0, 0.04999999701976776}},
	} {
		x := lazy.FromSlice(xs, n)
		opts := []LossOption{Reduce(c.red)}
		switch c.opt {
		case "pos_weight":
			opts = append(opts, PosWeight(lazy.FromSlice(pw, n)))
		case "weight":
			opts = append(opts, ClassWeights(lazy.FromSlice(w, n)))
		}
		l := BCEWithLogits(x, lazy.FromSlice(ys, n), opts...)
		what := c.opt + " reduction " + []string{"mean", "sum", "none", "batchmean"}[c.red]
		nearTorch(t, what+" loss", l.Float64s(), c.loss, 1e-6)
		nearTorch(t, what+" grad", lazy.Grad(l.Sum(), x)[0].Float64s(), c.gradInput, 1e-6)
	}
}

// TestEmbeddingPaddingRowAsStored checks that Embedding's padding row
// reads as stored (PyTorch only keeps its gradient zero), e.g. a PyTorch
// checkpoint whose padding row was changed, while it still gets no
// gradient. PyTorch 1.13:
//
//	e = nn.Embedding(4, 2, padding_idx=1); e.weight.data = torch.arange(1., 9).reshape(4, 2)
//	out = e(torch.tensor([0, 1, 2, 1]))  # [[1, 2], [3, 4], [5, 6], [3, 4]]
//	(out * torch.tensor([1., 2.])).sum().backward(); e.weight.grad  # [[1, 2], [0, 0], [1, 2], [0, 0]]
func TestEmbeddingPaddingRowAsStored(t *testing.T) {
	e := NewEmbedding(4, 2, PaddingIdx(1))
	lit, err := lazy.FromSlice([]float32{1, 2, 3, 4, 5, 6, 7, 8}, 4, 2).Literal()
	if err != nil {
		t.Fatal(err)
	}
	if err := AssignState(StateDict(e), map[string]*lazy.Literal{"weight": lit}); err != nil {
		t.Fatal(err)
	}
	out := e.Forward(lazy.FromSlice([]int64{0, 1, 2, 1}, 4))
	nearTorch(t, "forward", out.Float64s(), []float64{1, 2, 3, 4, 5, 6, 3, 4}, 0)
	g := lazy.Grad(out.Mul(lazy.FromSlice([]float32{1, 2}, 2)).Sum(), e.Weight)[0]
	nearTorch(t, "weight gradient", g.Float64s(), []float64{1, 2, 0, 0, 1, 2, 0, 0}, 0)
}

// TestMHAWeightsAfterDropout checks that MultiHeadAttention.ForwardWeights
// in training mode with dropout returns the head average of the weights
// after dropout, as PyTorch 1.13 (rows no longer sum to 1):
//
//	a = nn.MultiheadAttention(8, 2, dropout=0.5, batch_first=True); a.train()
//	_, w = a(x, x, x, need_weights=True); w.sum(-1)  # e.g. [0.3155, 1.0, 0.5447, 0.8701]
func TestMHAWeightsAfterDropout(t *testing.T) {
	a := NewMultiHeadAttention(8, 2, DropoutP(0.5))
	v := make([]float32, 32)
	for i := range v {
		v[i] = float32(math.Sin(0.7 * float64(i)))
	}
	x := lazy.FromSlice(v, 1, 4, 8)
	lazy.ManualSeed(3)
	_, w := a.ForwardWeights(x, x, x, AttnMask{})
	sums := w.Sum(-1).Float64s()
	allOne := true
	for _, s := range sums {
		allOne = allOne && math.Abs(s-1) < 1e-6
		if s < 0 || s > 2+1e-6 {
			t.Errorf("row sum %v outside [0, 2]", s)
		}
	}
	if allOne {
		t.Errorf("row sums %v: the weights are from before dropout", sums)
	}
	a.Training = false
	_, w = a.ForwardWeights(x, x, x, AttnMask{})
	nearTorch(t, "eval row sums", w.Sum(-1).Float64s(), []float64{1, 1, 1, 1}, 1e-6)
}

// TestAllIgnoredTargetsGiveZeroGradient checks a batch whose every target
// is the ignore index (a batch of padding): the mean is 0/0 = NaN and the
// gradient 0, as in PyTorch 1.13, not NaN (which would reach the
// parameters); with class weights of 0 for every kept target PyTorch's
// gradient is NaN, and so is ours:
//
//	x = torch.randn(3, 4, requires_grad=True)
//	F.cross_entropy(x, torch.tensor([1, 1, 1]), ignore_index=1).backward()  # nan, x.grad zeros
//	F.cross_entropy(x, torch.tensor([1, 1, 2]), weight=torch.tensor([1., 0, 0, 1])).backward()  # nan, x.grad nan
func TestAllIgnoredTargetsGiveZeroGradient(t *testing.T) {
	x := lazy.FromSlice([]float32{0.5, -1, 2, 0, 1, 1, -3, 0.25, 0, 0, 0, 0}, 3, 4)
	ones := lazy.FromSlice([]int64{1, 1, 1}, 3)
	for _, c := range []struct {
		what string
		loss func() *lazy.Tensor
		nan  bool
	}{
		{"CrossEntropy", func() *lazy.Tensor { return CrossEntropy(x, ones, IgnoreIndex(1)) }, false},
		{"CrossEntropy with label smoothing", func() *lazy.Tensor { return CrossEntropy(x, ones, IgnoreIndex(1), LabelSmoothing(0.2)) }, false},
		{"NLL", func() *lazy.Tensor { return NLL(x.LogSoftmax(1), ones, IgnoreIndex(1)) }, false},
		{"CrossEntropy with zero weights", func() *lazy.Tensor {
			return CrossEntropy(x, lazy.FromSlice([]int64{1, 1, 2}, 3), ClassWeights(lazy.FromSlice([]float32{1, 0, 0, 1}, 4)))
		}, true},
	} {
		l := c.loss()
		if v := l.Item(); !math.IsNaN(v) {
			t.Errorf("%s: loss %v, want NaN", c.what, v)
		}
		for i, g := range lazy.Grad(l, x)[0].Float64s() {
			if math.IsNaN(g) != c.nan || (!c.nan && g != 0) {
				t.Errorf("%s: gradient element %d is %v, want %v", c.what, i, g, map[bool]string{true: "NaN", false: "0"}[c.nan])
				break
			}
		}
	}
}

// TestDefaultIgnoreIndexMatchesPyTorch: without an IgnoreIndex option,
// CrossEntropy and NLL ignore targets of -100, PyTorch's default
// ignore_index (they used to fail the read with an index out of range),
// for every reduction, with and without label smoothing, with the
// gradient. Expected values from PyTorch 1.13 in float64:
//
//	x = torch.tensor([[1., 2., .5], [3., 1., -1.], [0., 0., 2.]], dtype=torch.float64, requires_grad=True)
//	l = F.cross_entropy(x, torch.tensor([-100, 0, 2]), reduction=red, label_smoothing=ls)
//	l.sum().backward(); x.grad
func TestDefaultIgnoreIndexMatchesPyTorch(t *testing.T) {
	xs := []float64{1, 2, 0.5, 3, 1, -1, 0, 0, 2}
	gMean := []float64{0, 0, 0, -0.06659333390133265, 0.05865521391309918, 0.00793811998823338, 0.05325348945960037, 0.05325348945960037, -0.10650697891920075}
	gMeanLS := []float64{0, 0, 0, 7.33327653339999e-05, 0.025321880579765844, -0.025395213345099955, 0.01992015612626704, 0.01992015612626704, -0.039840312252534094}
	gSum := []float64{0, 0, 0, -0.1331866678026653, 0.11731042782619835, 0.01587623997646676, 0.10650697891920075, 0.10650697891920075, -0.2130139578384015}
	gSumLS := []float64{0, 0, 0, 0.0001466655306679998, 0.05064376115953169, -0.05079042669019991, 0.03984031225253408, 0.03984031225253408, -0.07968062450506819}
	for _, c := range []struct {
		red        Reduction
		ls         float64
		loss, grad []float64
	}{
		{Mean, 0, []float64{0.1912381973608921}, gMean},
		{Mean, 0.2, []float64{0.5245715306942255}, gMeanLS},
		{Sum, 0, []float64{0.3824763947217842}, gSum},
		{Sum, 0.2, []float64{1.049143061388451}, gSumLS},
		{None, 0, []float64{0, 0.14293162849989968, 0.23954476622188453}, gSum},
		{None, 0.2, []float64{0, 0.5429316284998997, 0.5062114328885512}, gSumLS},
	} {
		x := lazy.FromSlice(xs, 3, 3)
		y := lazy.FromSlice([]int64{-100, 0, 2}, 3)
		var l *lazy.Tensor
		if err := lazy.Try(func() { l = CrossEntropy(x, y, Reduce(c.red), LabelSmoothing(c.ls)) }); err != nil {
			t.Fatalf("CrossEntropy(%v, ls %v): %v", c.red, c.ls, err)
		}
		g := lazy.Grad(l.Sum(), x)[0]
		var got, grad []float64
		if err := lazy.Try(func() { got, grad = l.Float64s(), g.Float64s() }); err != nil {
			t.Fatalf("CrossEntropy(%v, ls %v): %v", c.red, c.ls, err)
		}
		nearTorch(t, "CrossEntropy loss", got, c.loss, 1e-12)
		nearTorch(t, "CrossEntropy gradient", grad, c.grad, 1e-12)
	}
	x := lazy.FromSlice(xs, 3, 3)
	var got []float64
	if err := lazy.Try(func() { got = NLL(x, lazy.FromSlice([]int64{-100, 0, 2}, 3)).Float64s() }); err != nil {
		t.Fatalf("NLL: %v", err)
	}
	nearTorch(t, "NLL", got, []float64{-2.5}, 1e-12)
	// Another ignore index makes -100 an index out of range again, and a
	// negative one may go with probability targets, as in PyTorch.
	err := lazy.Try(func() { NLL(x, lazy.FromSlice([]int64{-100, 0, 2}, 3), IgnoreIndex(1)).Float64s() })
	if !errorContains(err, "out of range") {
		t.Errorf("NLL with IgnoreIndex(1) and a target -100: %v, want an index out of range", err)
	}
	p := lazy.FromSlice([]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, 3, 3)
	if err := lazy.Try(func() { CrossEntropy(x, p, IgnoreIndex(-5)).Float64s() }); err != nil {
		t.Errorf("CrossEntropy of probabilities with IgnoreIndex(-5): %v", err)
	}
	if err := lazy.Try(func() { CrossEntropy(x, p, IgnoreIndex(0)) }); !errorContains(err, "needs class-index targets") {
		t.Errorf("CrossEntropy of probabilities with IgnoreIndex(0): %v, want an error", err)
	}
}

// TestSmoothL1BetaZero: SmoothL1 with beta 0 is PyTorch's l1_loss (it was
// refused as "must be positive"; a negative beta is still an error).
// Expected values from PyTorch 1.13:
//
//	F.smooth_l1_loss(torch.tensor([1., -2., .5, 0.]), torch.zeros(4), beta=0., reduction=red)
//
// The gradient is the L1 loss's away from d = 0 (PyTorch's at d = 0 is an
// artefact of its kernel, -1).
func TestSmoothL1BetaZero(t *testing.T) {
	for _, c := range []struct {
		red        Reduction
		loss, grad []float64
	}{
		{None, []float64{1, 2, 0.5, 0}, []float64{1, -1, 1}},
		{Mean, []float64{0.875}, []float64{0.25, -0.25, 0.25}},
	} {
		x := lazy.FromSlice([]float64{1, -2, 0.5, 0}, 4)
		var got, grad []float64
		err := lazy.Try(func() {
			l := SmoothL1(x, lazy.Zeros(lazy.F64, 4), Delta(0), Reduce(c.red))
			got, grad = l.Float64s(), lazy.Grad(l.Sum(), x)[0].Float64s()[:3]
		})
		if err != nil {
			t.Fatalf("SmoothL1 with beta 0: %v", err)
		}
		nearTorch(t, "SmoothL1 beta 0", got, c.loss, 1e-15)
		nearTorch(t, "SmoothL1 beta 0 gradient", grad, c.grad, 1e-15)
	}
	if err := lazy.Try(func() { SmoothL1(lazy.Zeros(lazy.F32, 2), lazy.Zeros(lazy.F32, 2), Delta(-1)) }); !errorContains(err, "must not be negative") {
		t.Errorf("SmoothL1 with beta -1: %v, want an error", err)
	}
}

// TestKLDivNegativeTargets: KLDiv computes target·log(target) as PyTorch's
// xlogy, NaN for a negative or NaN target (a negative one gave a finite
// loss). Expected values from PyTorch 1.13:
//
//	F.kl_div(torch.tensor([-1., -2., -inf, -.5, -1.]), torch.tensor([-.5, 0., 0., .3, nan]), reduction="none")
func TestKLDivNegativeTargets(t *testing.T) {
	logp := lazy.FromSlice([]float64{-1, -2, math.Inf(-1), -0.5, -1}, 5)
	target := lazy.FromSlice([]float64{-0.5, 0, 0, 0.3, math.NaN()}, 5)
	var got []float64
	if err := lazy.Try(func() { got = KLDiv(logp, target, Reduce(None)).Float64s() }); err != nil {
		t.Fatal(err)
	}
	want := []float64{math.NaN(), 0, math.NaN(), -0.21119184129778082, math.NaN()}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-15 {
			t.Fatalf("KLDiv: got %v, want (PyTorch 1.13) %v", got, want)
		}
	}
}

// TestKLDivBatchMeanEmptyBatch: the batch mean of no samples is 0/0, NaN,
// as PyTorch 1.13's F.kl_div(torch.zeros(0, 2), torch.zeros(0, 2),
// reduction="batchmean") (it was 0); a 0-d input is not divided.
func TestKLDivBatchMeanEmptyBatch(t *testing.T) {
	var empty, scalar float64
	err := lazy.Try(func() {
		empty = KLDiv(lazy.Zeros(lazy.F32, 0, 2), lazy.Zeros(lazy.F32, 0, 2), Reduce(BatchMean)).Item()
		scalar = KLDiv(lazy.Scalar(lazy.F32, -1), lazy.Scalar(lazy.F32, 0.5), Reduce(BatchMean)).Item()
	})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(empty) {
		t.Errorf("KLDiv batch mean of an empty batch: %v, want NaN", empty)
	}
	nearTorch(t, "KLDiv batch mean of a 0-d input", []float64{scalar}, []float64{0.1534264087677002}, 1e-6)
}

// TestCrossEntropyLabelSmoothingNaN: a NaN label smoothing is refused, as
// one outside [0, 1] is (it gave a NaN loss; PyTorch 1.13 skips smoothing
// for NaN, which hides the mistake).
func TestCrossEntropyLabelSmoothingNaN(t *testing.T) {
	lg := lazy.FromSlice([]float32{1, 2, 3, 1}, 2, 2)
	err := lazy.Try(func() { CrossEntropy(lg, lazy.FromSlice([]int64{1, 0}, 2), LabelSmoothing(math.NaN())) })
	if !errorContains(err, "label smoothing NaN must be in [0, 1]") {
		t.Errorf("CrossEntropy with label smoothing NaN: %v, want an error", err)
	}
}

// TestCrossEntropyProbabilityTargetTypes: probability targets of another
// float type than the logits are taken, the loss in the promoted type, as
// PyTorch 1.13 does (they were refused as not having "the logits' shape").
// Expected values:
//
//	lg = torch.tensor([[1., 2.], [3., 1.]], requires_grad=True)
//	p = torch.tensor([[.3, .7], [1., 0.]], dtype=torch.float64)
//	l = F.cross_entropy(lg, p, label_smoothing=ls); l.backward(); lg.grad
func TestCrossEntropyProbabilityTargetTypes(t *testing.T) {
	for _, c := range []struct {
		ls   float64
		loss float64
		grad []float64
	}{
		{0, 0.3700948476791382, []float64{-0.015529289841651917, 0.01552930474281311, -0.05960148572921753, 0.05960145592689514}},
		{0.1, 0.43009484849870205, []float64{-0.025529280304908752, 0.025529295206069946, -0.03460147976875305, 0.03460145741701126}},
	} {
		lg := lazy.FromSlice([]float32{1, 2, 3, 1}, 2, 2)
		p := lazy.FromSlice([]float64{0.3, 0.7, 1, 0}, 2, 2)
		var loss float64
		var grad []float64
		var dt lazy.DType
		err := lazy.Try(func() {
			l := CrossEntropy(lg, p, LabelSmoothing(c.ls))
			dt, loss, grad = l.DType(), l.Item(), lazy.Grad(l, lg)[0].Float64s()
		})
		if err != nil {
			t.Fatalf("label smoothing %v: %v", c.ls, err)
		}
		if dt != lazy.F64 {
			t.Errorf("label smoothing %v: loss of type %v, want f64", c.ls, dt)
		}
		nearTorch(t, "CrossEntropy f32 logits, f64 probabilities", []float64{loss}, []float64{c.loss}, 1e-6)
		nearTorch(t, "its gradient", grad, c.grad, 1e-5)
	}
}

// TestFlattenEmptyBatch: Flatten of an empty batch keeps the feature count,
// as torch.nn.Flatten()(torch.zeros(0, 3, 2)) is [0, 6] (it failed in
// Reshape, which cannot infer -1 from no elements); an empty feature axis
// gives [2, 0].
func TestFlattenEmptyBatch(t *testing.T) {
	for _, c := range []struct{ in, want []int64 }{{[]int64{0, 3, 2}, []int64{0, 6}}, {[]int64{2, 0, 3}, []int64{2, 0}}, {[]int64{2, 3, 2}, []int64{2, 6}}} {
		var got []int64
		if err := lazy.Try(func() { got = Flatten(lazy.Zeros(lazy.F32, c.in...)).Dims() }); err != nil {
			t.Errorf("Flatten of %v: %v", c.in, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Flatten of %v: %v, want %v", c.in, got, c.want)
		}
	}
	// torch.nn.Flatten()(torch.zeros(3)) raises (start_dim 1 out of range);
	// a [3] was made [3, 1].
	if err := lazy.Try(func() { Flatten(lazy.Zeros(lazy.F32, 3)) }); !errorContains(err, "rank 2 or more") {
		t.Errorf("Flatten of [3]: %v, want an error", err)
	}
}

// TestBatchNormEmptyBatch: in training, an empty batch gives an empty
// output, leaves the running statistics as they were and counts one more
// batch, and the weight and bias get zero gradients, as PyTorch 1.13's
// BatchNorm1d(2, momentum=0.5)(torch.zeros(0, 2)) (it was refused as
// "expected more than one value per channel"; one value still is).
func TestBatchNormEmptyBatch(t *testing.T) {
	for _, dims := range [][]int64{{0, 2}, {3, 2, 0}} {
		b := NewBatchNorm1d(2, Momentum(0.5))
		var y *lazy.Tensor
		if err := lazy.Try(func() { y = b.Forward(lazy.Zeros(lazy.F32, dims...)) }); err != nil {
			t.Fatalf("BatchNorm1d of %v: %v", dims, err)
		}
		if !slices.Equal(y.Dims(), dims) {
			t.Errorf("BatchNorm1d of %v: output %v", dims, y.Dims())
		}
		g := lazy.Grad(y.Sum(), b.Weight, b.Bias)
		var mean, variance, wg, bg []float64
		var count int64
		err := lazy.Try(func() {
			mean, variance, count = b.RunningMean.Float64s(), b.RunningVar.Float64s(), b.NumBatchesTracked.Int64s()[0]
			wg, bg = g[0].Float64s(), g[1].Float64s()
		})
		if err != nil {
			t.Fatal(err)
		}
		nearTorch(t, "running mean", mean, []float64{0, 0}, 0)
		nearTorch(t, "running var", variance, []float64{1, 1}, 0)
		nearTorch(t, "weight gradient", wg, []float64{0, 0}, 0)
		nearTorch(t, "bias gradient", bg, []float64{0, 0}, 0)
		if count != 1 {
			t.Errorf("num_batches_tracked %d, want 1", count)
		}
	}
	err := lazy.Try(func() { NewBatchNorm1d(2).Forward(lazy.Zeros(lazy.F32, 1, 2)) })
	if !errorContains(err, "more than one value per channel") {
		t.Errorf("BatchNorm1d of one value per channel: %v, want an error", err)
	}
}

// TestUnbatchedConvAndPool: Conv1d, Conv2d, MaxPool1d and AvgPool1d take
// unbatched inputs ([C, L], [C, H, W]) as PyTorch 1.13's layers do (they
// were refused), and an error of the 2-d op a 1-d layer runs is named by
// the layer and the caller's shapes. Expected values:
//
//	x = torch.arange(10.).reshape(2, 5)
//	c = torch.nn.Conv1d(2, 3, 2, padding=1)  # weight arange(12)/10 as [3, 2, 2], bias [1, 2, 3]
//	c(x); F.max_pool1d(x, 3, 2, 1); F.avg_pool1d(x, 2)
//	torch.nn.Conv2d(2, 1, 2, bias=False)(torch.arange(18.).reshape(2, 3, 3))  # weight ones
func TestUnbatchedConvAndPool(t *testing.T) {
	x := lazy.Iota(lazy.F32, 0, 10).Reshape(2, 5)
	c := NewConv1d(2, 3, 2, Padding(1))
	c.Weight = lazy.Iota(lazy.F32, 0, 12).DivScalar(10).Reshape(3, 2, 2)
	c.Bias = lazy.FromSlice([]float32{1, 2, 3}, 3)
	c2 := NewConv2d(2, 1, 2, NoBias())
	c2.Weight = lazy.Ones(lazy.F32, 1, 2, 2, 2)
	for _, k := range []struct {
		name string
		f    func() *lazy.Tensor
		dims []int64
		want []float64
	}{
		{"Conv1d", func() *lazy.Tensor { return c.Forward(x) }, []int64{3, 6},
			[]float64{2.5, 3.9000000953674316, 4.5, 5.100000381469727, 5.700000286102295, 2.8000001907348633, 5.5, 9.699999809265137, 11.899999618530273, 14.100000381469727, 16.299999237060547, 9.0, 8.5, 15.5, 19.30000114440918, 23.100000381469727, 26.899999618530273, 15.199999809265137}},
		{"MaxPool1d", func() *lazy.Tensor { return MaxPool1d(x, 3, 2, 1) }, []int64{2, 3}, []float64{1, 3, 4, 6, 8, 9}},
		{"AvgPool1d", func() *lazy.Tensor { return AvgPool1d(x, 2, 0, 0) }, []int64{2, 2}, []float64{0.5, 2.5, 5.5, 7.5}},
		{"Conv2d", func() *lazy.Tensor { return c2.Forward(lazy.Iota(lazy.F32, 0, 18).Reshape(2, 3, 3)) }, []int64{1, 2, 2}, []float64{52, 60, 76, 84}},
	} {
		var y *lazy.Tensor
		var got []float64
		if err := lazy.Try(func() { y = k.f(); got = y.Float64s() }); err != nil {
			t.Errorf("%s: %v", k.name, err)
			continue
		}
		if !slices.Equal(y.Dims(), k.dims) {
			t.Errorf("%s: dims %v, want %v", k.name, y.Dims(), k.dims)
		}
		nearTorch(t, k.name, got, k.want, 1e-6)
	}
	err := lazy.Try(func() { NewConv1d(2, 1, 7).Forward(x) })
	if !errorContains(err, "nn.Conv1d(f32[2,5], f32[1,2,7], f32[1]): Conv2d: kernel") {
		t.Errorf("Conv1d with a kernel longer than the input: %v, want an nn.Conv1d error", err)
	}
	err = lazy.Try(func() { MaxPool1d(x, 6, 1, 0) })
	if !errorContains(err, "nn.MaxPool1d(f32[2,5]): MaxPool2d: kernel") {
		t.Errorf("MaxPool1d with a window longer than the input: %v, want an nn.MaxPool1d error", err)
	}
}

// TestUnbatchedRecurrentCells: GRUCell and LSTMCell take an unbatched input
// [I] with states [H], as PyTorch 1.13's cells do (they were refused).
// Expected values (every parameter arange(numel)/10 - 0.5 in its shape):
//
//	x, h = torch.tensor([.5, -1., 2.]), torch.tensor([.1, -.2])
//	torch.nn.GRUCell(3, 2)(x, h); torch.nn.GRUCell(3, 2)(x); torch.nn.LSTMCell(3, 2)(x, (h, 2*h))
func TestUnbatchedRecurrentCells(t *testing.T) {
	set := func(ps ...*lazy.Tensor) {
		for _, p := range ps {
			p.Assign(lazy.Iota(lazy.F32, 0, p.Size()).DivScalar(10).SubScalar(0.5).Reshape(p.Dims()...))
		}
	}
	g, l := NewGRUCell(3, 2), NewLSTMCell(3, 2)
	set(g.WeightIH, g.WeightHH, g.BiasIH, g.BiasHH, l.WeightIH, l.WeightHH, l.BiasIH, l.BiasHH)
	x, h := lazy.FromSlice([]float32{0.5, -1, 2}, 3), lazy.FromSlice([]float32{0.1, -0.2}, 2)
	var gh, g0, lh, lc []float64
	err := lazy.Try(func() {
		gh, g0 = g.Forward(x, h).Float64s(), g.Forward(x, nil).Float64s()
		hn, cn := l.Forward(x, h, h.MulScalar(2))
		lh, lc = hn.Float64s(), cn.Float64s()
	})
	if err != nil {
		t.Fatal(err)
	}
	nearTorch(t, "GRUCell", gh, []float64{0.4994777739048004, 0.2401915192604065}, 1e-6)
	nearTorch(t, "GRUCell without a state", g0, []float64{0.45298299193382263, 0.3574577569961548}, 1e-6)
	nearTorch(t, "LSTMCell h", lh, []float64{0.2219352275133133, 0.0447075329720974}, 1e-6)
	nearTorch(t, "LSTMCell c", lc, []float64{0.2478434294462204, 0.04699032008647919}, 1e-6)
	if err := lazy.Try(func() { g.Forward(x, lazy.Zeros(lazy.F32, 1, 2)) }); !errorContains(err, "nn.GRUCell(f32[3], f32[1,2]): want state [2] for an unbatched input") {
		t.Errorf("GRUCell of [3] with a state [1, 2]: %v, want an error", err)
	}
}

// TestUnbatchedAttention: MultiHeadAttention takes an unbatched query
// [L, E], key and value [S, E] and key padding mask [S], as PyTorch 1.13's
// does (it was refused). Expected values (every parameter
// arange(numel)/50 - 0.3 in its shape, batch_first=True):
//
//	q, k = torch.arange(12.).reshape(3, 4)/10, torch.arange(8.).reshape(2, 4)/7 - .5
//	m(q, k, k, key_padding_mask=torch.tensor([False, True])); m(q, k, k)
func TestUnbatchedAttention(t *testing.T) {
	m := NewMultiHeadAttention(4, 2)
	for _, p := range []*lazy.Tensor{m.InProjWeight, m.InProjBias, m.OutProj.Weight, m.OutProj.Bias} {
		p.Assign(lazy.Iota(lazy.F32, 0, p.Size()).DivScalar(50).SubScalar(0.3).Reshape(p.Dims()...))
	}
	q := lazy.Iota(lazy.F32, 0, 12).Reshape(3, 4).DivScalar(10)
	k := lazy.Iota(lazy.F32, 0, 8).Reshape(2, 4).DivScalar(7).SubScalar(0.5)
	var masked, out, w []float64
	var dims []int64
	err := lazy.Try(func() {
		masked = m.Forward(q, k, k, AttnMask{KeyPadding: lazy.FromSlice([]bool{false, true}, 2)}).Float64s()
		o, ws := m.ForwardWeights(q, k, k, AttnMask{})
		out, w, dims = o.Float64s(), ws.Float64s(), ws.Dims()
	})
	if err != nil {
		t.Fatal(err)
	}
	row := []float64{0.401028573513031, 0.2112000286579132, 0.021371424198150635, -0.16845712065696716}
	nearTorch(t, "masked", masked, slices.Concat(row, row, row), 1e-5)
	nearTorch(t, "out", out, []float64{-0.1426279991865158, -0.16924422979354858, -0.19586050510406494, -0.2224767506122589, -0.11622267961502075,
		-0.15072651207447052, -0.18523037433624268, -0.21973422169685364, -0.09012027084827423, -0.13242068886756897, -0.1747211366891861, -0.21702155470848083}, 1e-5)
	nearTorch(t, "weights", w, []float64{0.5424555540084839, 0.4575444459915161, 0.5648161172866821, 0.43518394231796265, 0.5869219303131104, 0.4130781292915344}, 1e-5)
	if !slices.Equal(dims, []int64{3, 2}) {
		t.Errorf("weights of dims %v, want [3 2]", dims)
	}
	err = lazy.Try(func() { m.Forward(q, k, k, AttnMask{KeyPadding: lazy.FromSlice([]bool{false, true}, 1, 2)}) })
	if !errorContains(err, "key padding mask must be bool [2]") {
		t.Errorf("unbatched attention with a [1, 2] mask: %v, want an error", err)
	}
}
