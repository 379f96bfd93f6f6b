package host

import (
	"fmt"
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// checkArgs checks a run's arguments against the entry function's
// parameters: their count, and each one's kind, element type and shape (a
// dynamic dimension takes any size), and that each literal holds as many
// bytes as its shape needs. Kernels index storage by the declared shapes,
// so a mismatch would read past a buffer or only part of it.
func (p *Program) checkArgs(args []kernel.Value) error {
	fn := p.entry.fn
	if len(args) != len(fn.Args) {
		return fmt.Errorf("host: @%s takes %d arguments, got %d", fn.Name, len(fn.Args), len(args))
	}
	for i := range p.entry.params {
		s := &p.entry.params[i]
		if l, ok := args[i].(*hlo.Literal); ok && s.bytes >= 0 && l != nil && l.DType == s.dt &&
			int64(len(l.Data)) == s.bytes && slices.Equal(l.Dims, s.dims) {
			continue // a static tensor parameter: the common case, no allocation or type switch
		}
		if !valueFits(fn.Args[i].Type, args[i]) {
			return fmt.Errorf("host: argument %d of @%s: got %s, want %s", i, fn.Name, describeArg(args[i]), fn.Args[i].Type)
		}
	}
	return nil
}

// paramSpec is what checkArgs compares a static tensor parameter with
// (bytes is -1 for other parameters).
type paramSpec struct {
	dt    hlo.DType
	dims  []int64
	bytes int64
}

// paramSpecs prepares checkArgs for fn's parameters.
func paramSpecs(fn *hlo.Func) []paramSpec {
	out := make([]paramSpec, len(fn.Args))
	for i, a := range fn.Args {
		out[i].bytes = -1
		if t := a.TensorType(); t != nil && t.Quant == nil && t.IsStatic() {
			if n, ok := hlo.ByteSize(t.DType, t.Dims); ok {
				out[i] = paramSpec{dt: t.DType, dims: t.Dims, bytes: n}
			}
		}
	}
	return out
}

// valueFits reports whether v is a runtime value of type t.
func valueFits(t hlo.Type, v kernel.Value) bool {
	switch t := t.(type) {
	case *hlo.TensorType:
		l, ok := v.(*hlo.Literal)
		if !ok || l == nil || len(l.Dims) != len(t.Dims) {
			return false
		}
		dt := t.DType
		if t.Quant != nil {
			dt = t.Quant.Storage
		}
		if l.DType != dt {
			return false
		}
		for k, d := range t.Dims {
			if l.Dims[k] < 0 || d >= 0 && l.Dims[k] != d {
				return false
			}
		}
		n, ok := hlo.ByteSize(l.DType, l.Dims)
		return ok && int64(len(l.Data)) == n
	case *hlo.TupleType:
		tv, ok := v.(kernel.Tuple)
		if !ok || len(tv) != len(t.Elems) {
			return false
		}
		for k, e := range t.Elems {
			if !valueFits(e, tv[k]) {
				return false
			}
		}
		return true
	case *hlo.TokenType:
		_, ok := v.(kernel.Token)
		return ok
	}
	return false
}

// describeArg prints a runtime value for argument errors: "f32[2,3]", a
// literal whose storage does not match its shape with its byte count, a
// tuple with its elements.
func describeArg(v kernel.Value) string {
	switch v := v.(type) {
	case *hlo.Literal:
		if v == nil {
			return "nil"
		}
		s := v.ShapeString()
		if n, ok := hlo.ByteSize(v.DType, v.Dims); !ok || int64(len(v.Data)) != n {
			s += fmt.Sprintf(" holding %d bytes", len(v.Data))
		}
		return s
	case kernel.Tuple:
		s := "tuple("
		for k, e := range v {
			if k > 0 {
				s += ", "
			}
			s += describeArg(e)
		}
		return s + ")"
	case kernel.Token:
		return "token"
	case nil:
		return "nil"
	}
	return fmt.Sprintf("%T", v)
}
