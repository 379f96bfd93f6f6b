package nn

import "github.com/xlajit/xlajit/lazy"

// Option changes how a layer constructor builds the layer.
type Option func(*options)

type options struct {
	dtype                     lazy.DType
	noBias                    bool
	stride, padding, dilation []int64
	groups                    int64
	eps, momentum             float64
	paddingIdx                *int64
	dropout                   float64
}

func buildOptions(opts []Option) options {
	o := options{dtype: lazy.F32, groups: 1, momentum: 0.1}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// DType makes the layer's tensors of element type dt (default f32).
func DType(dt lazy.DType) Option { return func(o *options) { o.dtype = dt } }

// NoBias leaves out the additive bias (PyTorch's bias=False).
func NoBias() Option { return func(o *options) { o.noBias = true } }

// Stride sets a convolution's or pooling's stride: one value for every
// spatial axis or one per axis.
func Stride(s ...int64) Option { return func(o *options) { o.stride = s } }

// Padding sets zero padding on both sides of each spatial axis (one value
// for all or one per axis).
func Padding(p ...int64) Option { return func(o *options) { o.padding = p } }

// Dilation sets a convolution's kernel dilation (one value or one per axis).
func Dilation(d ...int64) Option { return func(o *options) { o.dilation = d } }

// Groups splits a convolution's channels into g groups.
func Groups(g int64) Option { return func(o *options) { o.groups = g } }

// Eps sets a normalisation's epsilon (default 1e-5).
func Eps(eps float64) Option { return func(o *options) { o.eps = eps } }

// Momentum sets BatchNorm's running-statistics momentum (default 0.1).
func Momentum(m float64) Option { return func(o *options) { o.momentum = m } }

// PaddingIdx makes Embedding's row i the padding entry: it starts at zero
// and receives no gradient.
func PaddingIdx(i int64) Option { return func(o *options) { o.paddingIdx = &i } }

// DropoutP sets the attention dropout probability of MultiHeadAttention.
func DropoutP(p float64) Option { return func(o *options) { o.dropout = p } }

// spatial expands a one-or-n option (named what) into n values (def when
// empty).
func spatial(op, what string, v []int64, n int, def int64) []int64 {
	out := make([]int64, n)
	switch len(v) {
	case 0:
		for i := range out {
			out[i] = def
		}
	case 1:
		for i := range out {
			out[i] = v[0]
		}
	case n:
		copy(out, v)
	default:
		if n == 1 {
			throw(op, nil, "%s: want 1 value, got %v", what, v)
		}
		throw(op, nil, "%s: want 1 or %d values, got %v", what, n, v)
	}
	least := int64(1) // a stride or a dilation
	if what == "Padding" {
		least = 0
	}
	for _, x := range out {
		if x < least {
			throw(op, nil, "%s: %v has a value below %d (PyTorch refuses it too)", what, v, least)
		}
	}
	return out
}

// sync materialises freshly initialised tensors, so that a model built
// before jit.Compile holds device data rather than pending random graphs.
func sync(ts ...*lazy.Tensor) {
	var live []*lazy.Tensor
	for _, t := range ts {
		if t != nil {
			live = append(live, t)
		}
	}
	if lazy.Tracing() {
		return
	}
	if err := lazy.Sync(live...); err != nil {
		panic(err)
	}
}
