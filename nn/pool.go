package nn

import "github.com/xlajit/xlajit/lazy"

// MaxPool2d takes the maximum over windows of x [N, C, H, W] or [C, H, W].
type MaxPool2d struct{ Kernel, Stride, Padding [2]int64 }

// NewMaxPool2d pools over square windows; the stride defaults to the
// kernel (as PyTorch's). Options: Stride, Padding.
func NewMaxPool2d(kernel int64, opts ...Option) *MaxPool2d {
	o := buildOptions(opts)
	s, p := spatial("nn.NewMaxPool2d", "Stride", o.stride, 2, kernel), spatial("nn.NewMaxPool2d", "Padding", o.padding, 2, 0)
	return &MaxPool2d{Kernel: [2]int64{kernel, kernel}, Stride: [2]int64{s[0], s[1]}, Padding: [2]int64{p[0], p[1]}}
}

// Forward pools x.
func (m *MaxPool2d) Forward(x *lazy.Tensor) *lazy.Tensor {
	return x.MaxPool2d(m.Kernel, m.Stride, m.Padding)
}

// AvgPool2d averages over windows of x [N, C, H, W] (padding counts as
// zeros in the average, PyTorch's count_include_pad=True).
type AvgPool2d struct{ Kernel, Stride, Padding [2]int64 }

// NewAvgPool2d pools over square windows; the stride defaults to the kernel.
func NewAvgPool2d(kernel int64, opts ...Option) *AvgPool2d {
	o := buildOptions(opts)
	s, p := spatial("nn.NewAvgPool2d", "Stride", o.stride, 2, kernel), spatial("nn.NewAvgPool2d", "Padding", o.padding, 2, 0)
	return &AvgPool2d{Kernel: [2]int64{kernel, kernel}, Stride: [2]int64{s[0], s[1]}, Padding: [2]int64{p[0], p[1]}}
}

// Forward pools x.
func (m *AvgPool2d) Forward(x *lazy.Tensor) *lazy.Tensor {
	return x.AvgPool2d(m.Kernel, m.Stride, m.Padding)
}

// MaxPool1d takes the maximum over windows of x [N, C, L] or [C, L].
func MaxPool1d(x *lazy.Tensor, kernel, stride, padding int64) *lazy.Tensor {
	if x.Rank() != 3 && x.Rank() != 2 {
		throw("nn.MaxPool1d", []*lazy.Tensor{x}, "want input [N, C, L] or [C, L]")
	}
	if stride == 0 {
		stride = kernel
	}
	defer relabel("nn.MaxPool1d", x)()
	h := x.Rank() - 1 // the height-1 axis before L
	return x.Unsqueeze(h).MaxPool2d([2]int64{1, kernel}, [2]int64{1, stride}, [2]int64{0, padding}).Squeeze(h)
}

// AvgPool1d averages over windows of x [N, C, L] or [C, L].
func AvgPool1d(x *lazy.Tensor, kernel, stride, padding int64) *lazy.Tensor {
	if x.Rank() != 3 && x.Rank() != 2 {
		throw("nn.AvgPool1d", []*lazy.Tensor{x}, "want input [N, C, L] or [C, L]")
	}
	if stride == 0 {
		stride = kernel
	}
	defer relabel("nn.AvgPool1d", x)()
	h := x.Rank() - 1 // the height-1 axis before L
	return x.Unsqueeze(h).AvgPool2d([2]int64{1, kernel}, [2]int64{1, stride}, [2]int64{0, padding}).Squeeze(h)
}

// GlobalAvgPool2d averages x [N, C, H, W] over H and W to [N, C]
// (AdaptiveAvgPool2d(1) followed by a flatten).
func GlobalAvgPool2d(x *lazy.Tensor) *lazy.Tensor {
	if x.Rank() != 4 {
		throw("nn.GlobalAvgPool2d", []*lazy.Tensor{x}, "want input [N, C, H, W]")
	}
	return x.Mean(2, 3)
}
