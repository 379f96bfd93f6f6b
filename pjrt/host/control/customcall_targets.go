package control

import (
	"fmt"
	"math/cmplx"
	"strconv"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// custom_call targets that exported programs carry besides the checks.
//
//   - ProductOfElementaryHouseholderReflectors(a, taus): XLA's target for
//     jax.lax.linalg.householder_product, LAPACK's orgqr: a is [..., m, n]
//     (m >= n) holding Householder vectors below its diagonal, taus is
//     [..., k] (k <= n); the result is the first n columns of
//     Q = H_0 H_1 ... H_{k-1}, H_i = I - taus[i] v_i v_i^H, where v_i is 0
//     above row i, 1 at row i and a[r, i] below it. Computed in float64
//     (complex128) and rounded once, as triangular_solve and cholesky.
//   - shape_assertion(pred, inputs...) {error_message}: JAX's run-time
//     check of its shape assumptions: pred is a boolean scalar; when it is
//     false the program fails with error_message, its {i} placeholders
//     replaced by the integer scalar inputs.

func init() {
	kernel.RegisterTarget("ProductOfElementaryHouseholderReflectors", compileHouseholderProduct)
	kernel.RegisterTarget("shape_assertion", compileShapeAssertion)
}

func compileHouseholderProduct(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) != 2 || len(c.Out) != 1 {
		return nil, c.Errorf("target ProductOfElementaryHouseholderReflectors takes 2 operands and has 1 result, got %d and %d", len(c.In), len(c.Out))
	}
	a, taus, out := c.InTensor(0), c.InTensor(1), c.OutTensor(0)
	if a == nil || taus == nil || out == nil {
		return nil, c.Errorf("target ProductOfElementaryHouseholderReflectors takes and returns tensors")
	}
	if !a.DType.IsFloat() && !a.DType.IsComplex() || a.Quant != nil {
		return nil, c.Errorf("a %s must have float or complex elements", a.ShapeString())
	}
	if taus.DType != a.DType || out.DType != a.DType || !a.IsStatic() || !taus.IsStatic() {
		return nil, c.Errorf("a %s, taus %s and the result %s must be static and share the element type", a.ShapeString(), taus.ShapeString(), out.ShapeString())
	}
	r := a.Rank()
	if r < 2 || taus.Rank() != r-1 {
		return nil, c.Errorf("a %s must be [..., m, n] and taus %s [..., k]", a.ShapeString(), taus.ShapeString())
	}
	for i := 0; i < r-2; i++ {
		if a.Dims[i] != taus.Dims[i] {
			return nil, c.Errorf("batch dimensions of a %s and taus %s differ", a.ShapeString(), taus.ShapeString())
		}
	}
	m, n, k := int(a.Dims[r-2]), int(a.Dims[r-1]), int(taus.Dims[r-2])
	if m < n || k > n {
		return nil, c.Errorf("a %s and taus %s need m >= n >= k", a.ShapeString(), taus.ShapeString())
	}
	if !out.Equal(a) {
		return nil, c.Errorf("result %s must have the type of a %s", out.ShapeString(), a.ShapeString())
	}
	batch := int(hlo.NumElements(a.Dims[:r-2]))
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		av, ok1 := args[0].(*hlo.Literal)
		tv, ok2 := args[1].(*hlo.Literal)
		if !ok1 || !ok2 {
			return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: "operands must be tensors"}
		}
		res := x.NewLiteralUninit(a.DType, a.Dims)
		q := make([]complex128, m*n)
		w := make([]complex128, n)
		for b := 0; b < batch; b++ {
			householderProduct(av, tv, b*m*n, b*k, m, n, k, q, w)
			for i, v := range q {
				if a.DType.IsComplex() {
					res.SetComplex(b*m*n+i, v)
				} else {
					res.SetFloat(b*m*n+i, real(v))
				}
			}
		}
		results[0] = res
		return nil
	}, nil
}

// householderProduct computes q (m x n, row-major) = H_0 ... H_{k-1} E,
// E the first n columns of the identity, applying the reflectors from the
// last one: q <- q - tau v (v^H q). w is scratch of n elements.
func householderProduct(a, taus *hlo.Literal, aOff, tOff, m, n, k int, q, w []complex128) {
	for i := range q {
		q[i] = 0
	}
	for i := 0; i < n; i++ {
		q[i*n+i] = 1
	}
	v := func(r, i int) complex128 {
		switch {
		case r < i:
			return 0
		case r == i:
			return 1
		}
		return a.Complex(aOff + r*n + i)
	}
	for i := k - 1; i >= 0; i-- {
		tau := taus.Complex(tOff + i)
		for j := 0; j < n; j++ {
			var s complex128
			for r := i; r < m; r++ {
				s += cmplx.Conj(v(r, i)) * q[r*n+j]
			}
			w[j] = s
		}
		for r := i; r < m; r++ {
			f := tau * v(r, i)
			for j := 0; j < n; j++ {
				q[r*n+j] -= f * w[j]
			}
		}
	}
}

func compileShapeAssertion(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) < 1 || len(c.Out) != 0 {
		return nil, c.Errorf("target shape_assertion takes a predicate and integer inputs and has no results, got %d operands and %d results", len(c.In), len(c.Out))
	}
	if t := c.InTensor(0); t == nil || !t.DType.IsBool() || t.Rank() != 0 {
		return nil, c.Errorf("target shape_assertion: the predicate must be a boolean scalar tensor<i1>, got %s", c.In[0])
	}
	for i := 1; i < len(c.In); i++ {
		if t := c.InTensor(i); t == nil || !t.DType.IsSigned() || t.DType.Bits() != 32 && t.DType.Bits() != 64 || t.Rank() != 0 {
			return nil, c.Errorf("target shape_assertion: error message input %d must be a tensor<i32> or tensor<i64>, got %s", i-1, c.In[i])
		}
	}
	s, ok := c.Op.Attr("error_message").(hlo.StringAttr)
	if !ok {
		return nil, c.Errorf("target shape_assertion needs an error_message string attribute")
	}
	msg := string(s)
	if bad := badPlaceholder(msg, len(c.In)-1); bad != "" {
		return nil, c.Errorf("target shape_assertion: error_message placeholder %s names no input (%d inputs)", bad, len(c.In)-1)
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		vals := make([]int64, len(args))
		for i, a := range args {
			l, ok := a.(*hlo.Literal)
			if !ok {
				return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("operand %d is %T, want a tensor", i, a)}
			}
			vals[i] = l.Int(0)
		}
		if vals[0] != 0 {
			return nil
		}
		return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: "shape_assertion: " + formatAssertion(msg, vals[1:])}
	}, nil
}

// badPlaceholder returns the first placeholder {i} of msg with i outside
// [0, n), or "".
func badPlaceholder(msg string, n int) string {
	for {
		i := strings.IndexByte(msg, '{')
		if i < 0 {
			return ""
		}
		j := strings.IndexByte(msg[i:], '}')
		if j < 0 {
			return ""
		}
		if k, err := strconv.Atoi(msg[i+1 : i+j]); err == nil && (k < 0 || k >= n) {
			return msg[i : i+j+1]
		}
		msg = msg[i+j+1:]
	}
}

// formatAssertion replaces {i} in msg by inputs[i].
func formatAssertion(msg string, inputs []int64) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(msg, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(msg[i:], '}')
		if j < 0 {
			break
		}
		n, err := strconv.Atoi(msg[i+1 : i+j])
		b.WriteString(msg[:i])
		if err == nil && n >= 0 && n < len(inputs) {
			b.WriteString(strconv.FormatInt(inputs[n], 10))
		} else {
			b.WriteString(msg[i : i+j+1])
		}
		msg = msg[i+j+1:]
	}
	b.WriteString(msg)
	return b.String()
}
