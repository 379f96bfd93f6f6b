package kernel

import (
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/hlo"
)

// Helpers the op families share for reading an op's attributes and
// arguments and for naming the op in their errors.

// OpErrorf returns an error of op at run time, naming it and its source
// location (OpCtx.Errorf is the compile-time form).
func OpErrorf(op *hlo.Op, format string, args ...any) error {
	return &OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf(format, args...)}
}

// wrappedError is an op error that keeps its cause for errors.Is/As
// (ErrCanceled through a loop or a parallel run).
type wrappedError struct {
	*OpError
	cause error
}

func (w wrappedError) Unwrap() error { return w.cause }

// WrapError returns err as an error of op that still matches err's chain
// (errors.Is, errors.As).
func WrapError(op *hlo.Op, err error) error {
	return wrappedError{&OpError{Op: op.Name, Loc: op.Loc, Msg: err.Error()}, err}
}

// Symbol returns the function name of a symbol attribute (@f, or a string).
func Symbol(a hlo.Attr) (string, bool) {
	switch a := a.(type) {
	case hlo.SymbolRefAttr:
		if len(a.Nested) > 0 {
			return a.Nested[len(a.Nested)-1], true
		}
		return a.Name, true
	case hlo.StringAttr:
		return strings.TrimPrefix(string(a), "@"), true
	}
	return "", false
}

// TensorArg returns args[i] as a literal, or an error naming the op.
func TensorArg(op *hlo.Op, args []Value, i int) (*hlo.Literal, error) {
	l, ok := args[i].(*hlo.Literal)
	if !ok {
		return nil, &OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("operand %d is a %T, want a tensor", i, args[i])}
	}
	return l, nil
}

// Predicate reads a tensor<i1> (or any integer scalar) as a Go bool.
func Predicate(l *hlo.Literal) bool {
	if l.NumElements() == 0 {
		return false
	}
	return l.Int(0) != 0
}

// StaticTensor returns the static tensor type of t (an operand or result
// type of the op, described by what), or an error.
func (c *OpCtx) StaticTensor(t hlo.Type, what string) (*hlo.TensorType, error) {
	tt, ok := t.(*hlo.TensorType)
	if !ok {
		return nil, c.Errorf("%s is %s, want a tensor", what, t)
	}
	if !tt.IsStatic() {
		return nil, c.Errorf("%s has dynamic shape %s", what, tt)
	}
	return tt, nil
}

// TensorArgs returns every argument as a literal, or an error naming the
// op.
func TensorArgs(op *hlo.Op, args []Value) ([]*hlo.Literal, error) {
	out := make([]*hlo.Literal, len(args))
	for i := range args {
		l, err := TensorArg(op, args, i)
		if err != nil {
			return nil, err
		}
		out[i] = l
	}
	return out, nil
}

// StaticResults returns the op's result types, each a static tensor type.
func (c *OpCtx) StaticResults() ([]*hlo.TensorType, error) {
	out := make([]*hlo.TensorType, len(c.Out))
	for i, t := range c.Out {
		tt, err := c.StaticTensor(t, fmt.Sprintf("result %d", i))
		if err != nil {
			return nil, err
		}
		out[i] = tt
	}
	return out, nil
}

// AttrText prints an attribute for an error message ("nothing" when it is
// absent).
func AttrText(a hlo.Attr) string {
	if a == nil {
		return "nothing"
	}
	return hlo.AttrString(a)
}
