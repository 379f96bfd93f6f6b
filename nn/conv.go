package nn

import (
	"github.com/xlajit/xlajit/lazy"
)

// Conv2d is a 2-D convolution over x [N, C, H, W] with a weight
// [out, in/groups, kH, kW] (PyTorch's layout).
type Conv2d struct {
	Weight   *lazy.Tensor `nn:"weight"`
	Bias     *lazy.Tensor `nn:"bias"` // [out], or nil
	Stride   [2]int64
	Padding  [2]int64
	Dilation [2]int64
	Groups   int64
}

// NewConv2d makes a square-kernel convolution initialised as PyTorch does
// (weight and bias from U(-1/sqrt(fanIn), 1/sqrt(fanIn)), fanIn =
// in/groups*k*k). Options: Stride, Padding, Dilation, Groups, NoBias, DType.
func NewConv2d(in, out, kernel int64, opts ...Option) *Conv2d {
	o := buildOptions(opts)
	const op = "nn.NewConv2d"
	if in <= 0 || out <= 0 || kernel <= 0 || o.groups <= 0 || in%o.groups != 0 || out%o.groups != 0 {
		throw(op, nil, "want positive sizes with channels (in %d, out %d) divisible by groups %d, kernel %d", in, out, o.groups, kernel)
	}
	s, p, d := spatial(op, "Stride", o.stride, 2, 1), spatial(op, "Padding", o.padding, 2, 0), spatial(op, "Dilation", o.dilation, 2, 1)
	c := &Conv2d{Stride: [2]int64{s[0], s[1]}, Padding: [2]int64{p[0], p[1]}, Dilation: [2]int64{d[0], d[1]}, Groups: o.groups}
	fanIn := in / o.groups * kernel * kernel
	c.Weight = fanInUniform(o.dtype, fanIn, out, in/o.groups, kernel, kernel)
	if !o.noBias {
		c.Bias = fanInUniform(o.dtype, fanIn, out)
	}
	sync(c.Weight, c.Bias)
	return c
}

// Forward convolves x [N, C, H, W] or an unbatched [C, H, W] (as
// PyTorch's).
func (c *Conv2d) Forward(x *lazy.Tensor) *lazy.Tensor {
	g := max(c.Groups, 1)
	if (x.Rank() != 4 || x.Dim(1) != c.Weight.Dim(1)*g) && (x.Rank() != 3 || x.Dim(0) != c.Weight.Dim(1)*g) {
		throw("nn.Conv2d", []*lazy.Tensor{x, c.Weight}, "want input [N, %d, H, W] or [%[1]d, H, W]", c.Weight.Dim(1)*g)
	}
	return lazy.Conv2d(x, c.Weight, c.Bias, lazy.Conv2dOpts{Stride: c.Stride, Padding: c.Padding, Dilation: c.Dilation, Groups: g})
}

// Conv1d is a 1-D convolution over x [N, C, L] with a weight
// [out, in/groups, k] (PyTorch's layout).
type Conv1d struct {
	Weight   *lazy.Tensor `nn:"weight"`
	Bias     *lazy.Tensor `nn:"bias"`
	Stride   int64
	Padding  int64
	Dilation int64
	Groups   int64
}

// NewConv1d makes a 1-D convolution initialised as PyTorch does.
func NewConv1d(in, out, kernel int64, opts ...Option) *Conv1d {
	o := buildOptions(opts)
	const op = "nn.NewConv1d"
	if in <= 0 || out <= 0 || kernel <= 0 || o.groups <= 0 || in%o.groups != 0 || out%o.groups != 0 {
		throw(op, nil, "want positive sizes with channels (in %d, out %d) divisible by groups %d, kernel %d", in, out, o.groups, kernel)
	}
	c := &Conv1d{Stride: spatial(op, "Stride", o.stride, 1, 1)[0], Padding: spatial(op, "Padding", o.padding, 1, 0)[0],
		Dilation: spatial(op, "Dilation", o.dilation, 1, 1)[0], Groups: o.groups}
	fanIn := in / o.groups * kernel
	c.Weight = fanInUniform(o.dtype, fanIn, out, in/o.groups, kernel)
	if !o.noBias {
		c.Bias = fanInUniform(o.dtype, fanIn, out)
	}
	sync(c.Weight, c.Bias)
	return c
}

// Forward convolves x [N, C, L] or an unbatched [C, L] (as a 2-D
// convolution of height 1).
func (c *Conv1d) Forward(x *lazy.Tensor) *lazy.Tensor {
	g := max(c.Groups, 1)
	if (x.Rank() != 3 || x.Dim(1) != c.Weight.Dim(1)*g) && (x.Rank() != 2 || x.Dim(0) != c.Weight.Dim(1)*g) {
		throw("nn.Conv1d", []*lazy.Tensor{x, c.Weight}, "want input [N, %d, L] or [%[1]d, L]", c.Weight.Dim(1)*g)
	}
	defer relabel("nn.Conv1d", x, c.Weight, c.Bias)()
	h := x.Rank() - 1 // the height-1 axis before L
	y := lazy.Conv2d(x.Unsqueeze(h), c.Weight.Unsqueeze(2), c.Bias, lazy.Conv2dOpts{
		Stride: [2]int64{1, max(c.Stride, 1)}, Padding: [2]int64{0, c.Padding},
		Dilation: [2]int64{1, max(c.Dilation, 1)}, Groups: g})
	return y.Squeeze(h)
}
