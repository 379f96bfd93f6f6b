package nn

import (
	"slices"

	"github.com/xlajit/xlajit/lazy"
)

// Reduction says how a loss combines its per-element values.
type Reduction int

const (
	// Mean averages (the default; weighted losses divide by the weight sum,
	// as PyTorch does).
	Mean Reduction = iota
	// Sum adds.
	Sum
	// None returns the per-element losses.
	None
	// BatchMean sums and divides by the batch size (KLDiv's recommended
	// reduction).
	BatchMean
)

// LossOption configures a loss.
type LossOption func(*lossOpts)

type lossOpts struct {
	reduction      Reduction
	weight         *lazy.Tensor
	posWeight      *lazy.Tensor
	ignore         int64
	hasIgnore      bool
	labelSmoothing float64
	delta          float64
	logTarget      bool
}

func lossOptions(opts []LossOption) lossOpts {
	// PyTorch's losses ignore targets of -100 unless told another index.
	o := lossOpts{delta: 1, ignore: defaultIgnore, hasIgnore: true}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// Reduce selects the reduction (default Mean).
func Reduce(r Reduction) LossOption { return func(o *lossOpts) { o.reduction = r } }

// ClassWeights rescales each class's loss (a [C] tensor), or, for
// BCEWithLogits, each element's (a tensor broadcasting to the input).
func ClassWeights(w *lazy.Tensor) LossOption { return func(o *lossOpts) { o.weight = w } }

// defaultIgnore is the target index NLL and CrossEntropy ignore without an
// IgnoreIndex option (PyTorch's default ignore_index).
const defaultIgnore = -100

// IgnoreIndex makes targets equal to i contribute nothing (not even to the
// mean's denominator). Without it targets of -100 are ignored, as in
// PyTorch.
func IgnoreIndex(i int64) LossOption { return func(o *lossOpts) { o.ignore, o.hasIgnore = i, true } }

// LabelSmoothing mixes the target with the uniform distribution: eps of
// the target mass spread over all classes.
func LabelSmoothing(eps float64) LossOption { return func(o *lossOpts) { o.labelSmoothing = eps } }

// PosWeight weights the positive term of BCEWithLogits (a [C] tensor).
func PosWeight(w *lazy.Tensor) LossOption { return func(o *lossOpts) { o.posWeight = w } }

// Delta sets Huber's threshold (default 1).
func Delta(d float64) LossOption { return func(o *lossOpts) { o.delta = d } }

// LogTarget says KLDiv's target is given as log-probabilities.
func LogTarget() LossOption { return func(o *lossOpts) { o.logTarget = true } }

func reduce(op string, l *lazy.Tensor, r Reduction, batch int64) *lazy.Tensor {
	switch r {
	case Mean:
		return l.Mean()
	case Sum:
		return l.Sum()
	case None:
		return l
	case BatchMean:
		// An empty batch is 0/0, NaN, as in PyTorch.
		return l.Sum().DivScalar(float64(batch))
	}
	throw(op, []*lazy.Tensor{l}, "unknown reduction %d", int(r))
	return nil
}

// classLayout checks logits [N, C, d...] against integer targets [N, d...]
// and returns C.
func classLayout(op string, logits, target *lazy.Tensor) int64 {
	ok := logits.Rank() >= 1 && target.Rank() == max(logits.Rank()-1, 0)
	if ok && logits.Rank() >= 2 {
		ok = target.Dim(0) == logits.Dim(0)
		for i := 2; ok && i < logits.Rank(); i++ {
			ok = target.Dim(i-1) == logits.Dim(i)
		}
	}
	if !ok {
		throw(op, []*lazy.Tensor{logits, target}, "want input [N, C, d...] (or [C]) and integer targets [N, d...]")
	}
	if logits.Rank() == 1 {
		return logits.Dim(0)
	}
	return logits.Dim(1)
}

// classAxis is the class axis of an input (0 for an unbatched [C]).
func classAxis(x *lazy.Tensor) int {
	if x.Rank() == 1 {
		return 0
	}
	return 1
}

// pick gathers x[n, target[n, ...], ...] along the class axis; ignored
// targets read class 0 (their loss is masked out by the caller).
func pick(x, target *lazy.Tensor, valid *lazy.Tensor) *lazy.Tensor {
	ax := classAxis(x)
	t := target.Cast(lazy.I64)
	if valid != nil {
		t = lazy.Where(valid, t, lazy.ZerosLike(t))
	}
	return x.TakeAlong(ax, t.Unsqueeze(ax)).Squeeze(ax)
}

// nll is the per-element loss -w[y] logp[y] and the per-element weight
// w[y] (0 for ignored targets).
func nll(op string, logp, target *lazy.Tensor, o lossOpts) (loss, w *lazy.Tensor) {
	c := classLayout(op, logp, target)
	if !target.DType().IsInt() {
		throw(op, []*lazy.Tensor{logp, target}, "targets must be integer class indices")
	}
	var valid *lazy.Tensor
	if o.hasIgnore {
		valid = target.Cast(lazy.I64).NeScalar(float64(o.ignore))
	}
	loss = pick(logp, target, valid).Neg()
	w = lazy.OnesLike(loss)
	if o.weight != nil {
		if o.weight.Rank() != 1 || o.weight.Dim(0) != c {
			throw(op, []*lazy.Tensor{logp, o.weight}, "class weights must be [%d]", c)
		}
		t := target.Cast(lazy.I64)
		if valid != nil {
			t = lazy.Where(valid, t, lazy.ZerosLike(t))
		}
		w = o.weight.IndexSelect(0, t.Reshape(t.Size())).Reshape(t.Dims()...)
	}
	loss = loss.Mul(w)
	if valid != nil {
		// A select, not a product with a zero weight: when every target is
		// ignored the mean is 0/0 and its gradient infinite, which the
		// ignored elements must not turn into NaN (PyTorch's gradient is 0).
		w = lazy.Where(valid, w, lazy.ZerosLike(w))
		loss = lazy.Where(valid, loss, lazy.ZerosLike(loss))
	}
	return loss, w
}

// NLL is the negative log-likelihood of integer targets [N, d...] under
// log-probabilities [N, C, d...] (PyTorch's nll_loss; options ClassWeights,
// IgnoreIndex, Reduce).
func NLL(logp, target *lazy.Tensor, opts ...LossOption) *lazy.Tensor {
	o := lossOptions(opts)
	l, w := nll("nn.NLL", logp, target, o)
	if o.reduction == Mean {
		return l.Sum().Div(w.Sum())
	}
	return reduce("nn.NLL", l, o.reduction, batchOf(logp))
}

func batchOf(x *lazy.Tensor) int64 {
	if x.Rank() == 0 {
		return 1
	}
	return x.Dim(0)
}

// CrossEntropy is PyTorch's cross_entropy over logits [N, C, d...] (or
// [C]). Integer targets [N, d...] are class indices (options ClassWeights,
// IgnoreIndex, LabelSmoothing, Reduce); float targets of the logits' shape
// are class probabilities (ClassWeights, LabelSmoothing, Reduce; the mean
// is over the N*d... positions).
func CrossEntropy(logits, target *lazy.Tensor, opts ...LossOption) *lazy.Tensor {
	const op = "nn.CrossEntropy"
	o := lossOptions(opts)
	if logits.Rank() < 1 || !logits.DType().IsFloat() {
		throw(op, []*lazy.Tensor{logits, target}, "logits must be floating point [N, C, d...] or [C]")
	}
	ax := classAxis(logits)
	c := logits.Dim(ax)
	logp := logits.LogSoftmax(ax)
	var wb *lazy.Tensor // class weights broadcast along the class axis
	if o.weight != nil {
		if o.weight.Rank() != 1 || o.weight.Dim(0) != c {
			throw(op, []*lazy.Tensor{logits, o.weight}, "class weights must be [%d]", c)
		}
		shape := make([]int64, logits.Rank())
		for i := range shape {
			shape[i] = 1
		}
		shape[ax] = c
		wb = o.weight.Reshape(shape...)
	}
	eps := o.labelSmoothing
	if !(eps >= 0 && eps <= 1) { // NaN too
		throw(op, []*lazy.Tensor{logits}, "label smoothing %v must be in [0, 1]", eps)
	}
	if target.DType().IsFloat() {
		// Of any float type: the loss is in the promoted type, as in
		// PyTorch.
		if !slices.Equal(target.Dims(), logits.Dims()) {
			throw(op, []*lazy.Tensor{logits, target}, "probability targets must have the logits' shape")
		}
		if o.hasIgnore && o.ignore >= 0 {
			// PyTorch refuses only an index that could name a class.
			throw(op, []*lazy.Tensor{logits, target}, "IgnoreIndex(%d) needs class-index targets", o.ignore)
		}
		p := target
		if eps > 0 {
			p = p.MulScalar(1 - eps).AddScalar(eps / float64(c))
		}
		prod := logp.Mul(p)
		if wb != nil {
			prod = prod.Mul(wb)
		}
		per := prod.Sum(ax).Neg()
		if o.reduction == Mean {
			return per.Sum().DivScalar(float64(logits.Size() / c))
		}
		return reduce(op, per, o.reduction, batchOf(logits))
	}
	l, w := nll(op, logp, target, o)
	var nllRed *lazy.Tensor
	if o.reduction == Mean {
		nllRed = l.Sum().Div(w.Sum())
	} else {
		nllRed = reduce(op, l, o.reduction, batchOf(logits))
	}
	if eps == 0 {
		return nllRed
	}
	sm := logp
	if wb != nil {
		sm = sm.Mul(wb)
	}
	smooth := sm.Sum(ax).Neg()
	if o.hasIgnore {
		valid := target.Cast(lazy.I64).NeScalar(float64(o.ignore))
		smooth = lazy.Where(valid, smooth, lazy.ZerosLike(smooth))
	}
	var smoothRed *lazy.Tensor
	if o.reduction == Mean {
		// PyTorch divides by the weight sum (or the count) of the kept targets.
		smoothRed = smooth.Sum().Div(w.Sum())
	} else {
		smoothRed = reduce(op, smooth, o.reduction, batchOf(logits))
	}
	return nllRed.MulScalar(1 - eps).Add(smoothRed.MulScalar(eps / float64(c)))
}

// BCEWithLogits is binary cross-entropy on logits x and targets y in [0, 1]
// of the same shape, computed stably: (1-y) x + (1 + (pw-1) y) softplus(-x)
// (options ClassWeights per element, PosWeight per class, Reduce).
func BCEWithLogits(x, y *lazy.Tensor, opts ...LossOption) *lazy.Tensor {
	const op = "nn.BCEWithLogits"
	o := lossOptions(opts)
	sameShape(op, x, y)
	broadcastsTo(op, "ClassWeights", o.weight, x)
	broadcastsTo(op, "PosWeight", o.posWeight, x)
	// softplus(-x) = log(1 + exp(-x)) = max(-x, 0) + log1p(exp(-|x|)),
	// written as a select so that the gradient at x = 0 is the one-sided
	// -sigmoid(0) = -1/2 of PyTorch (max and |x| would pass a tie slope
	// there); the values are the same bits as the max/abs form.
	pos := x.GeScalar(0)
	lp := lazy.Where(pos, x.Neg(), x).Exp().Log1p()
	sp := lazy.Where(pos, lp, lp.Sub(x))
	coef := lazy.OnesLike(y)
	if o.posWeight != nil {
		coef = o.posWeight.SubScalar(1).Mul(y).AddScalar(1)
	}
	l := lazy.OnesLike(y).Sub(y).Mul(x).Add(coef.Mul(sp))
	if o.weight != nil {
		l = l.Mul(o.weight)
	}
	return reduce(op, l, o.reduction, batchOf(x))
}

// sameShape checks a regression loss's input and target: the same shape
// and a floating-point type (PyTorch has no integer kernels for them).
func sameShape(op string, x, y *lazy.Tensor) {
	if !x.Shape().Equal(y.Shape()) {
		throw(op, []*lazy.Tensor{x, y}, "input and target must have the same shape and type")
	}
	if !x.DType().IsFloat() {
		throw(op, []*lazy.Tensor{x, y}, "input and target must be floating point, got %s", x.DType())
	}
}

// broadcastsTo checks that the optional weight w of a loss broadcasts to
// the input x's shape and is floating point.
func broadcastsTo(op, what string, w, x *lazy.Tensor) {
	if w == nil {
		return
	}
	ok := w.Rank() <= x.Rank() && w.DType().IsFloat()
	for i := 1; ok && i <= w.Rank(); i++ {
		d := w.Dim(w.Rank() - i)
		ok = d == 1 || d == x.Dim(x.Rank()-i)
	}
	if !ok {
		throw(op, []*lazy.Tensor{x, w}, "%s must be floating point and broadcast to the input's shape %v", what, x.Dims())
	}
}

// MSE is the squared error (x - y)^2.
func MSE(x, y *lazy.Tensor, opts ...LossOption) *lazy.Tensor {
	sameShape("nn.MSE", x, y)
	o := lossOptions(opts)
	return reduce("nn.MSE", x.Sub(y).Square(), o.reduction, batchOf(x))
}

// L1 is the absolute error |x - y|.
func L1(x, y *lazy.Tensor, opts ...LossOption) *lazy.Tensor {
	sameShape("nn.L1", x, y)
	o := lossOptions(opts)
	return reduce("nn.L1", x.Sub(y).Abs(), o.reduction, batchOf(x))
}

// Huber is 0.5 d^2 where |d| < delta and delta (|d| - 0.5 delta) elsewhere,
// d = x - y (PyTorch's HuberLoss; option Delta, default 1).
func Huber(x, y *lazy.Tensor, opts ...LossOption) *lazy.Tensor {
	const op = "nn.Huber"
	sameShape(op, x, y)
	o := lossOptions(opts)
	if !(o.delta > 0) {
		throw(op, []*lazy.Tensor{x}, "delta %v must be positive", o.delta)
	}
	d := x.Sub(y)
	a := d.Abs()
	quad := d.Square().MulScalar(0.5)
	lin := a.SubScalar(0.5 * o.delta).MulScalar(o.delta)
	return reduce(op, lazy.Where(a.LtScalar(o.delta), quad, lin), o.reduction, batchOf(x))
}

// KLDiv is the Kullback-Leibler divergence of target from the input's
// distribution, input given as log-probabilities: target (log target -
// input), 0 where target is 0 (PyTorch's kl_div; options LogTarget and
// Reduce, where BatchMean gives the true divergence per sample).
func KLDiv(logp, target *lazy.Tensor, opts ...LossOption) *lazy.Tensor {
	const op = "nn.KLDiv"
	sameShape(op, logp, target)
	o := lossOptions(opts)
	var l *lazy.Tensor
	if o.logTarget {
		l = target.Exp().Mul(target.Sub(logp))
	} else {
		// target log target as PyTorch's xlogy(target, target): 0 where
		// the target is 0, NaN where it is negative or NaN. The select
		// keeps log(0) out of the product (and its gradient).
		zero := target.EqScalar(0)
		safe := lazy.Where(zero, lazy.OnesLike(target), target)
		l = target.Mul(safe.Log()).Sub(target.Mul(logp))
	}
	return reduce(op, l, o.reduction, batchOf(logp))
}

// SmoothL1 is PyTorch's smooth_l1_loss: 0.5 d^2 / beta where |d| < beta,
// |d| - 0.5 beta elsewhere (option Delta sets beta, default 1; beta 0 is
// the L1 loss).
func SmoothL1(x, y *lazy.Tensor, opts ...LossOption) *lazy.Tensor {
	const op = "nn.SmoothL1"
	sameShape(op, x, y)
	o := lossOptions(opts)
	if !(o.delta >= 0) {
		throw(op, []*lazy.Tensor{x}, "beta %v must not be negative", o.delta)
	}
	d := x.Sub(y)
	a := d.Abs()
	if o.delta == 0 {
		// PyTorch's smooth_l1_loss is l1_loss at beta 0 (the quadratic
		// branch would divide by zero).
		return reduce(op, a, o.reduction, batchOf(x))
	}
	return reduce(op, lazy.Where(a.LtScalar(o.delta), d.Square().MulScalar(0.5/o.delta), a.SubScalar(0.5*o.delta)), o.reduction, batchOf(x))
}
