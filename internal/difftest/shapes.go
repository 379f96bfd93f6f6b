package difftest

import (
	"fmt"

	"github.com/xlajit/xlajit/lazy"
)

// The generator checks every instruction against the shapes of every input
// variant. A dimension is a size (>= 0) or, below zero, a symbol for a size
// known only when the program runs: the result of a host op with a
// data-dependent shape (instruction k's symbol is -(k+1)). Two dimensions
// are equal when they are the same size or the same symbol.

func dynSym(k int) int64 { return -int64(k) - 1 }

func isDyn(d int64) bool { return d < 0 }

func anyDyn(dims []int64) bool {
	for _, d := range dims {
		if isDyn(d) {
			return true
		}
	}
	return false
}

func sameDimsSym(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// bcastDims is numpy broadcasting over sizes and symbols (a symbol only
// matches itself or a concrete 1).
func bcastDims(a, b []int64) ([]int64, error) {
	n := max(len(a), len(b))
	out := make([]int64, n)
	for i := 0; i < n; i++ {
		x, y := int64(1), int64(1)
		if j := i - (n - len(a)); j >= 0 {
			x = a[j]
		}
		if j := i - (n - len(b)); j >= 0 {
			y = b[j]
		}
		switch {
		case x == y:
			out[i] = x
		case x == 1:
			out[i] = y
		case y == 1:
			out[i] = x
		default:
			return nil, fmt.Errorf("dims %v and %v do not broadcast", a, b)
		}
	}
	return out, nil
}

func shp(dt lazy.DType, dims ...int64) lazy.Shape {
	return lazy.Shape{DType: dt, Dims: append([]int64{}, dims...)}
}

func numel(dims []int64) int64 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	return n
}

func isFloat(dt lazy.DType) bool { return dt == lazy.F32 || dt == lazy.F64 }

func isNumeric(dt lazy.DType) bool { return dt != lazy.Bool }

func isInt(dt lazy.DType) bool { return dt == lazy.I32 || dt == lazy.I64 }

// dtypeName is the Go spelling of a dtype constant.
func dtypeName(dt lazy.DType) string {
	switch dt {
	case lazy.F32:
		return "lazy.F32"
	case lazy.F64:
		return "lazy.F64"
	case lazy.F16:
		return "lazy.F16"
	case lazy.BF16:
		return "lazy.BF16"
	case lazy.I32:
		return "lazy.I32"
	case lazy.I64:
		return "lazy.I64"
	case lazy.Bool:
		return "lazy.Bool"
	}
	return fmt.Sprintf("lazy.DType(%d)", dt)
}
