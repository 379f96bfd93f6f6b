package lazy

import (
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xlajit/xlajit/hlo"
)

// FuzzAPI decodes its input into a sequence of public lazy calls with
// random, often invalid, arguments: shapes with negative and huge dims,
// any axes, nil operands, bad dtypes and attribute values, table ops
// through Apply with perturbed attributes. Every call must either succeed
// or panic with a *lazy.Error (as Try returns it); any other panic is a
// bug. A rejected call must leave the state (IR, counters, RNG, compile
// cache, the operands) unchanged. Results join the pool of operands;
// small ones are computed now and then (a cut), which must not fail:
// graphs with more than fuzzCutLimit elements anywhere are only built.
//
//	nice go test -run '^$' -fuzz FuzzAPI -parallel 1 ./lazy
func FuzzAPI(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	// Most inputs compile new programs: a small cache keeps the worker's
	// memory flat over a long run.
	dev := DefaultDevice()
	SetCacheSize(dev, 64)
	f.Cleanup(func() { SetCacheSize(dev, cacheSizeFromEnv()) })
	f.Fuzz(func(t *testing.T, data []byte) {
		// A hang is a failure too: the input runs on its own goroutine
		// (left behind when it hangs; the fuzzer restarts its worker).
		done := make(chan string, 1)
		go func() {
			msg := ""
			defer func() { done <- msg }()
			msg = runFuzzAPI(data)
		}()
		select {
		case msg := <-done:
			if msg != "" {
				t.Fatal(msg)
			}
		case <-time.After(fuzzInputTimeout):
			t.Fatalf("input still running after %s", fuzzInputTimeout)
		}
	})
}

// fuzzVerbose (XLAJIT_FUZZ_VERBOSE=1) prints each step, to find where an
// input hangs.
var fuzzVerbose = os.Getenv("XLAJIT_FUZZ_VERBOSE") != ""

// fuzzInputTimeout bounds one input's run (each takes milliseconds).
const fuzzInputTimeout = 20 * time.Second

// fuzzSeeds start the fuzzer on a few op sequences (op byte, then its
// arguments).
var fuzzSeeds = [][]byte{
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
	{12, 0, 1, 30, 2, 2, 3, 40, 1, 1, 50, 0, 60, 1, 2},
	{1, 2, 2, 2, 3, 3, 3, 70, 0, 1, 80, 1, 2, 90, 3, 4, 100, 5, 110, 6, 120, 7},
	[]byte("MatMul Linear Conv2d pools CrossEntropy Grad"),
	{255, 254, 253, 252, 251, 250, 249, 248, 247, 246, 245, 244, 243, 242},
	{20, 1, 1, 21, 2, 2, 22, 3, 3, 23, 4, 4, 24, 5, 5, 25, 6, 6, 26, 7, 7},
}

// fuzzCutLimit is the most elements any value of a graph may have for
// the fuzzer to compute it.
const fuzzCutLimit = 1 << 12

// fz reads the fuzz input; past its end every read is 0.
type fz struct {
	b []byte
	i int
}

func (r *fz) u8() byte {
	if r.i >= len(r.b) {
		return 0
	}
	v := r.b[r.i]
	r.i++
	return v
}

func (r *fz) n(k int) int { return int(r.u8()) % k }

var fuzzDims = []int64{0, 1, 2, 3, 4, 5, 1, 2, 3, -1, -2, 1 << 20, 1 << 31, 1 << 32, 1 << 62, math.MaxInt64, math.MinInt64, 7, 2, 3}

func (r *fz) dim() int64 { return fuzzDims[r.n(len(fuzzDims))] }

// dims is a shape: mostly small valid dims, some negative or huge.
func (r *fz) dims() []int64 {
	d := make([]int64, r.n(5))
	for i := range d {
		d[i] = r.dim()
	}
	return d
}

func (r *fz) ints(k int) []int64 {
	d := make([]int64, r.n(k+1))
	for i := range d {
		d[i] = r.dim()
	}
	return d
}

func (r *fz) axis() int {
	if r.n(16) == 0 {
		return []int{math.MaxInt32, math.MinInt32, 1 << 40}[r.n(3)]
	}
	return r.n(9) - 4
}

func (r *fz) axes() []int {
	a := make([]int, r.n(4))
	for i := range a {
		a[i] = r.axis()
	}
	return a
}

var fuzzFloats = []float64{0, 1, 0.5, -1, 2, 1e-5, math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -0.25, 3}

func (r *fz) f() float64 { return fuzzFloats[r.n(len(fuzzFloats))] }

var fuzzDTypes = []DType{F32, F32, F64, I32, I64, Bool, U8, F16, BF16, C64, I8, U32, DType(0), DType(200)}

func (r *fz) dtype() DType { return fuzzDTypes[r.n(len(fuzzDTypes))] }

func (r *fz) pair() [2]int64 { return [2]int64{r.dim(), r.dim()} }

// fuzzState is one input's run: the operand pool.
type fuzzState struct {
	r    *fz
	pool []*Tensor
}

// t picks an operand (nil now and then).
func (s *fuzzState) t() *Tensor {
	k := s.r.n(len(s.pool) + 1)
	if k == len(s.pool) {
		return nil
	}
	return s.pool[k]
}

// small picks an operand that may be computed (or nil).
func (s *fuzzState) small() *Tensor {
	if t := s.t(); t != nil && fuzzCuttable(t) {
		return t
	}
	return nil
}

func (s *fuzzState) ts(max int) []*Tensor {
	out := make([]*Tensor, s.r.n(max+1))
	for i := range out {
		out[i] = s.t()
	}
	return out
}

// fuzzOp is one public call; it returns its results.
type fuzzOp struct {
	name string
	call func(s *fuzzState) []*Tensor
}

func oneT(t *Tensor) []*Tensor { return []*Tensor{t} }

func fuzzOps() []fuzzOp {
	unary := map[string]func(*Tensor) *Tensor{
		"Neg": (*Tensor).Neg, "Abs": (*Tensor).Abs, "Exp": (*Tensor).Exp, "Log": (*Tensor).Log, "Sqrt": (*Tensor).Sqrt,
		"Tanh": (*Tensor).Tanh, "Sigmoid": (*Tensor).Sigmoid, "Floor": (*Tensor).Floor, "Sign": (*Tensor).Sign,
		"Not": (*Tensor).Not, "ReLU": (*Tensor).ReLU, "Erf": (*Tensor).Erf, "IsFinite": (*Tensor).IsFinite,
		"Square": (*Tensor).Square, "Reciprocal": (*Tensor).Reciprocal, "GELU": (*Tensor).GELU, "Flatten": (*Tensor).Flatten,
		"T": (*Tensor).T, "Rsqrt": (*Tensor).Rsqrt,
	}
	binary := map[string]func(*Tensor, *Tensor) *Tensor{
		"Add": (*Tensor).Add, "Sub": (*Tensor).Sub, "Mul": (*Tensor).Mul, "Div": (*Tensor).Div, "Pow": (*Tensor).Pow,
		"Max": (*Tensor).Max, "Min": (*Tensor).Min, "Rem": (*Tensor).Rem, "Atan2": (*Tensor).Atan2, "And": (*Tensor).And,
		"Or": (*Tensor).Or, "Eq": (*Tensor).Eq, "Lt": (*Tensor).Lt, "Ge": (*Tensor).Ge, "MatMul": (*Tensor).MatMul,
	}
	scalar := map[string]func(*Tensor, float64) *Tensor{
		"AddScalar": (*Tensor).AddScalar, "MulScalar": (*Tensor).MulScalar, "DivScalar": (*Tensor).DivScalar,
		"PowScalar": (*Tensor).PowScalar, "MaxScalar": (*Tensor).MaxScalar, "EqScalar": (*Tensor).EqScalar,
		"LtScalar": (*Tensor).LtScalar,
	}
	reduce := map[string]func(*Tensor, ...int) *Tensor{
		"Sum": (*Tensor).Sum, "SumKeepDims": (*Tensor).SumKeepDims, "Prod": (*Tensor).Prod, "ReduceMax": (*Tensor).ReduceMax,
		"ReduceMinKeepDims": (*Tensor).ReduceMinKeepDims, "Mean": (*Tensor).Mean, "MeanKeepDims": (*Tensor).MeanKeepDims,
		"Squeeze": (*Tensor).Squeeze, "Flip": (*Tensor).Flip, "Permute": (*Tensor).Permute,
	}
	var ops []fuzzOp
	for _, name := range sortedKeys(unary) {
		fn := unary[name]
		ops = append(ops, fuzzOp{name, func(s *fuzzState) []*Tensor { return oneT(fn(s.t())) }})
	}
	for _, name := range sortedKeys(binary) {
		fn := binary[name]
		ops = append(ops, fuzzOp{name, func(s *fuzzState) []*Tensor { return oneT(fn(s.t(), s.t())) }})
	}
	for _, name := range sortedKeys(scalar) {
		fn := scalar[name]
		ops = append(ops, fuzzOp{name, func(s *fuzzState) []*Tensor { return oneT(fn(s.t(), s.r.f())) }})
	}
	for _, name := range sortedKeys(reduce) {
		fn := reduce[name]
		ops = append(ops, fuzzOp{name, func(s *fuzzState) []*Tensor { return oneT(fn(s.t(), s.r.axes()...)) }})
	}
	r := func(s *fuzzState) *fz { return s.r }
	ops = append(ops, []fuzzOp{
		// Host ops compute their operands: only small ones.
		{"NonZero", func(s *fuzzState) []*Tensor { return oneT(s.small().NonZero()) }},
		{"Unique", func(s *fuzzState) []*Tensor { return oneT(s.small().Unique()) }},
		{"MaskedSelect", func(s *fuzzState) []*Tensor { return oneT(s.small().MaskedSelect(s.small())) }},
		{"Zeros", func(s *fuzzState) []*Tensor { return oneT(Zeros(r(s).dtype(), r(s).dims()...)) }},
		{"Full", func(s *fuzzState) []*Tensor { return oneT(Full(r(s).dtype(), r(s).f(), r(s).dims()...)) }},
		{"Scalar", func(s *fuzzState) []*Tensor { return oneT(Scalar(r(s).dtype(), r(s).f())) }},
		{"ZerosLike", func(s *fuzzState) []*Tensor { return oneT(ZerosLike(s.t())) }},
		{"Iota", func(s *fuzzState) []*Tensor { return oneT(Iota(r(s).dtype(), r(s).axis(), r(s).dims()...)) }},
		{"Arange", func(s *fuzzState) []*Tensor { return oneT(Arange(r(s).dtype(), r(s).f(), r(s).f()*10, r(s).f())) }},
		{"FromSlice", func(s *fuzzState) []*Tensor {
			d := r(s).dims()
			n := hlo.NumElements(d)
			if n < 0 || n > fuzzCutLimit || checkDims(F32, d) != nil {
				n = int64(r(s).n(4))
			}
			return oneT(FromSlice(make([]float32, n), d...))
		}},
		{"RandN", func(s *fuzzState) []*Tensor { return oneT(RandN(r(s).dtype(), r(s).dims()...)) }},
		{"RandUniform", func(s *fuzzState) []*Tensor {
			return oneT(RandUniform(r(s).dtype(), r(s).f(), r(s).f(), r(s).dims()...))
		}},
		{"Dropout", func(s *fuzzState) []*Tensor { return oneT(s.t().Dropout(r(s).f()/4, r(s).n(2) == 0)) }},
		{"Cast", func(s *fuzzState) []*Tensor { return oneT(s.t().Cast(r(s).dtype())) }},
		{"Clamp", func(s *fuzzState) []*Tensor { return oneT(s.t().Clamp(r(s).f(), r(s).f())) }},
		{"Where", func(s *fuzzState) []*Tensor { return oneT(Where(s.t(), s.t(), s.t())) }},
		{"Var", func(s *fuzzState) []*Tensor { return oneT(s.t().Var(r(s).axes()...)) }},
		{"VarKeepDims", func(s *fuzzState) []*Tensor { return oneT(s.t().VarKeepDims(r(s).axes()...)) }},
		{"ArgMax", func(s *fuzzState) []*Tensor { return oneT(s.t().ArgMax(r(s).axis())) }},
		{"ArgMaxKeepDims", func(s *fuzzState) []*Tensor { return oneT(s.t().ArgMaxKeepDims(r(s).axis())) }},
		{"LogSumExp", func(s *fuzzState) []*Tensor { return oneT(s.t().LogSumExp(r(s).axes()...)) }},
		{"LogSumExpKeepDims", func(s *fuzzState) []*Tensor { return oneT(s.t().LogSumExpKeepDims(r(s).axes()...)) }},
		{"Reshape", func(s *fuzzState) []*Tensor { return oneT(s.t().Reshape(r(s).dims()...)) }},
		{"Transpose", func(s *fuzzState) []*Tensor { return oneT(s.t().Transpose(r(s).axis(), r(s).axis())) }},
		{"BroadcastTo", func(s *fuzzState) []*Tensor { return oneT(s.t().BroadcastTo(r(s).dims()...)) }},
		{"Expand", func(s *fuzzState) []*Tensor { return oneT(s.t().Expand(r(s).dims()...)) }},
		{"Unsqueeze", func(s *fuzzState) []*Tensor { return oneT(s.t().Unsqueeze(r(s).axis())) }},
		{"SliceStrided", func(s *fuzzState) []*Tensor {
			return oneT(s.t().SliceStrided(r(s).ints(4), r(s).ints(4), r(s).ints(4)))
		}},
		{"Narrow", func(s *fuzzState) []*Tensor { return oneT(s.t().Narrow(r(s).axis(), r(s).dim(), r(s).dim())) }},
		{"Concat", func(s *fuzzState) []*Tensor { return oneT(Concat(r(s).axis(), s.ts(3)...)) }},
		{"Stack", func(s *fuzzState) []*Tensor { return oneT(Stack(r(s).axis(), s.ts(3)...)) }},
		{"Split", func(s *fuzzState) []*Tensor { return s.t().Split(r(s).axis(), r(s).ints(3)...) }},
		{"Chunk", func(s *fuzzState) []*Tensor {
			x := s.t()
			n := []int{-1, 0, 1, 2, 3, 4, 7, 1 << 40}[r(s).n(8)]
			if x != nil && n > 64 && x.Size() > 64 {
				n = 2 // a valid huge n would make that many tensors
			}
			return x.Chunk(r(s).axis(), n)
		}},
		{"PadWith", func(s *fuzzState) []*Tensor {
			return oneT(s.t().PadWith(r(s).ints(4), r(s).ints(4), r(s).ints(4), r(s).f()))
		}},
		{"Pad", func(s *fuzzState) []*Tensor { return oneT(s.t().Pad(r(s).ints(4)...)) }},
		{"Linear", func(s *fuzzState) []*Tensor { return oneT(Linear(s.t(), s.t(), s.t())) }},
		{"Einsum", func(s *fuzzState) []*Tensor {
			specs := []string{"ij,jk->ik", "ij->ji", "ij->", "i,i->", "bij,bjk->bik", "ij->ii", "ij,kj->ik", "i->j", "ij", "->", "ij,jk"}
			return oneT(Einsum(specs[r(s).n(len(specs))], s.ts(2)...))
		}},
		{"Softmax", func(s *fuzzState) []*Tensor { return oneT(s.t().Softmax(r(s).axis())) }},
		{"LogSoftmax", func(s *fuzzState) []*Tensor { return oneT(s.t().LogSoftmax(r(s).axis())) }},
		{"LayerNorm", func(s *fuzzState) []*Tensor { return oneT(LayerNorm(s.t(), r(s).axis(), s.t(), s.t(), r(s).f())) }},
		{"Conv2d", func(s *fuzzState) []*Tensor {
			o := Conv2dOpts{Stride: r(s).pair(), Padding: r(s).pair(), Dilation: r(s).pair(), Groups: r(s).dim()}
			return oneT(Conv2d(s.t(), s.t(), s.t(), o))
		}},
		{"MaxPool2d", func(s *fuzzState) []*Tensor { return oneT(s.t().MaxPool2d(r(s).pair(), r(s).pair(), r(s).pair())) }},
		{"AvgPool2d", func(s *fuzzState) []*Tensor { return oneT(s.t().AvgPool2d(r(s).pair(), r(s).pair(), r(s).pair())) }},
		{"CrossEntropy", func(s *fuzzState) []*Tensor { return oneT(CrossEntropy(s.t(), s.t())) }},
		{"OneHot", func(s *fuzzState) []*Tensor { return oneT(OneHot(s.t(), r(s).dim(), r(s).dtype())) }},
		{"Cumsum", func(s *fuzzState) []*Tensor { return oneT(s.t().Cumsum(r(s).axis())) }},
		{"Sort", func(s *fuzzState) []*Tensor {
			v, i := s.t().Sort(r(s).axis(), r(s).n(2) == 0)
			return []*Tensor{v, i}
		}},
		{"TopK", func(s *fuzzState) []*Tensor {
			v, i := s.t().TopK(r(s).dim())
			return []*Tensor{v, i}
		}},
		{"TakeAlong", func(s *fuzzState) []*Tensor { return oneT(s.t().TakeAlong(r(s).axis(), s.t())) }},
		{"ScatterAdd", func(s *fuzzState) []*Tensor { return oneT(s.t().ScatterAdd(r(s).axis(), s.t(), s.t())) }},
		{"IndexSelect", func(s *fuzzState) []*Tensor { return oneT(s.t().IndexSelect(r(s).axis(), s.t())) }},
		{"DynamicSlice", func(s *fuzzState) []*Tensor { return oneT(s.t().DynamicSlice(s.ts(3), r(s).ints(3))) }},
		{"DynamicUpdateSlice", func(s *fuzzState) []*Tensor {
			return oneT(s.t().DynamicUpdateSlice(s.t(), s.ts(3)))
		}},
		{"Assign", func(s *fuzzState) []*Tensor {
			x := s.t()
			x.Assign(s.t())
			return oneT(x)
		}},
		{"Grad", func(s *fuzzState) []*Tensor { return fuzzGrad(s, s.t(), s.ts(2)) }},
		{"HostFunc", func(s *fuzzState) []*Tensor {
			specs := make([]Shape, r(s).n(3))
			for i := range specs {
				specs[i] = Shape{DType: r(s).dtype(), Dims: r(s).dims()}
				if checkDims(specs[i].DType, specs[i].Dims) == nil && specs[i].Size() > fuzzCutLimit {
					specs[i].Dims = []int64{2} // valid, but too large to make
				}
			}
			name, fn := fuzzHostFunc(specs)
			return HostFunc(name, fn, specs...)(s.small(), s.small())
		}},
		{"Apply", func(s *fuzzState) []*Tensor {
			all := Ops()
			op := all[r(s).n(len(all))]
			ins := s.ts(3)
			if op.Lower == nil {
				for i := range ins {
					ins[i] = s.small()
				}
			}
			return Apply(op, fuzzAttrs(op.Name, r(s)), ins...)
		}},
		{"Item", func(s *fuzzState) []*Tensor {
			x := s.t()
			if x != nil && fuzzCuttable(x) {
				x.Item()
			}
			return nil
		}},
	}...)
	return ops
}

// fuzzGrad differentiates y only when its graph is small (a gradient
// rule's own IR grows with the sizes: max pooling's visits every window
// offset).
func fuzzGrad(s *fuzzState, y *Tensor, xs []*Tensor) []*Tensor {
	if y != nil && !fuzzCuttable(y) {
		return nil
	}
	if s.r.n(2) == 0 {
		return Grad(y, xs...)
	}
	return GradWith(y, s.t(), xs...)
}

var (
	fuzzHostMu    sync.Mutex
	fuzzHostFuncs = map[string]HostFn{}
)

// fuzzHostFunc returns a host function returning zeros of specs, one per
// distinct specs (a name belongs to one Go function), named after them.
// It returns what it declares: a function that breaks its declaration
// fails only once it has run.
func fuzzHostFunc(specs []Shape) (string, HostFn) {
	name := "fuzz_zeros"
	for _, sp := range specs {
		name += fmt.Sprintf("_%d%v", sp.DType, sp.Dims)
	}
	fuzzHostMu.Lock()
	defer fuzzHostMu.Unlock()
	if fn := fuzzHostFuncs[name]; fn != nil {
		return name, fn
	}
	specs = append([]Shape(nil), specs...)
	fn := func(in []*hlo.Literal) ([]*hlo.Literal, error) {
		out := make([]*hlo.Literal, len(specs))
		for i, sp := range specs {
			out[i] = hlo.NewLiteral(sp.DType, sp.Dims...)
		}
		return out, nil
	}
	fuzzHostFuncs[name] = fn
	return name, fn
}

// fuzzAttrs makes attributes for a table op: the right keys, random values.
func fuzzAttrs(op string, r *fz) Attrs {
	ints := func() []int64 { return r.ints(4) }
	oneInt := func() int64 { return r.dim() }
	switch op {
	case "Constant":
		return Attrs{{"value", hlo.ScalarLiteral(F32, r.f())}}
	case "Splat":
		return Attrs{{"value", hlo.ScalarLiteral(F32, r.f())}, {"dims", ints()}}
	case "Iota", "RngBits":
		return Attrs{{"dtype", r.dtype()}, {"dims", ints()}, {"axis", oneInt()}}
	case "Reshape":
		return Attrs{{"dims", ints()}}
	case "Transpose":
		return Attrs{{"perm", ints()}}
	case "Broadcast":
		return Attrs{{"dims", ints()}, {"bdims", ints()}}
	case "Slice":
		return Attrs{{"start", ints()}, {"limit", ints()}, {"strides", ints()}}
	case "Concat", "ArgMax", "ArgMin", "TakeAlong", "ScatterAddAlong":
		return Attrs{{"axis", oneInt()}}
	case "Pad":
		return Attrs{{"lo", ints()}, {"hi", ints()}, {"interior", ints()}, {"value", r.f()}}
	case "Reverse", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd":
		return Attrs{{"axes", ints()}}
	case "DotGeneral":
		return Attrs{{"lhs_batch", ints()}, {"rhs_batch", ints()}, {"lhs_contract", ints()}, {"rhs_contract", ints()}}
	case "Conv":
		return Attrs{{"strides", ints()}, {"pad_lo", ints()}, {"pad_hi", ints()}, {"lhs_dilation", ints()},
			{"rhs_dilation", ints()}, {"groups", oneInt()}, {"batch_groups", oneInt()},
			{"lhs_spec", ints()}, {"rhs_spec", ints()}, {"out_spec", ints()}}
	case "DynamicSlice":
		return Attrs{{"sizes", ints()}}
	case "ReduceWindow", "SelectAndScatter":
		kinds := []string{"sum", "max", "min", "median"}
		return Attrs{{"kind", kinds[r.n(4)]}, {"window", ints()}, {"strides", ints()}, {"pad_lo", ints()}, {"pad_hi", ints()},
			{"select", []string{"GE", "LE", "XX"}[r.n(3)]}}
	case "Cumsum":
		return Attrs{{"axis", oneInt()}, {"reverse", r.n(2) == 0}}
	case "Sort":
		return Attrs{{"axis", oneInt()}, {"descending", r.n(2) == 0}}
	case "Cast":
		return Attrs{{"dtype", r.dtype()}}
	case "Clamp":
		return Attrs{{"lo", r.f()}, {"hi", r.f()}}
	case "Compare":
		return Attrs{{"dir", []string{"EQ", "LT", "GE", "XX"}[r.n(4)]}}
	case "HostFunc":
		return Attrs{{"name", "fuzz_unregistered"}, {"outs", ints()}}
	}
	return nil
}

// fuzzCuttable reports whether x may be computed: it is not symbolic and
// no value of its graph has more than fuzzCutLimit elements.
func fuzzCuttable(x *Tensor) bool {
	if x.symbolic() {
		return false
	}
	if x.val.Node == nil {
		return x.Size() <= fuzzCutLimit
	}
	for _, n := range CollectGraph([]Value{x.val}).Nodes {
		for _, s := range n.out {
			if s.Size() > fuzzCutLimit || s.Size() < 0 {
				return false
			}
		}
		// Work grows with windows, paddings and strides too (a window of
		// 2^40 over a padded input gives a small result slowly).
		for _, a := range n.attrs {
			switch v := a.Val.(type) {
			case int64:
				if v > fuzzCutLimit || v < -fuzzCutLimit {
					return false
				}
			case []int64:
				p := int64(1)
				for _, e := range v {
					if e > fuzzCutLimit || e < -fuzzCutLimit {
						return false
					}
					if p *= max(e, 1); p > fuzzCutLimit {
						return false
					}
				}
			}
		}
		if n.data != nil && n.data.buf == nil {
			return false
		}
	}
	return true
}

// fuzzCheckMessages lists the messages of the run-time checks in x's graph.
func fuzzCheckMessages(x *Tensor) []string {
	if x.val.Node == nil {
		return nil
	}
	var msgs []string
	for _, n := range CollectGraph([]Value{x.val}).Nodes {
		if n.op == table[opCheck] {
			msgs = append(msgs, n.attrs.Str("msg"))
		}
	}
	return msgs
}

// failedCheck reports whether err is one of the run-time checks failing.
func failedCheck(err error, msgs []string) bool {
	for _, m := range msgs {
		if strings.Contains(err.Error(), m) {
			return true
		}
	}
	return false
}

// failedPoolCheck reports whether err is a run-time check of an operand's
// graph failing: a host op computes its operands (a cut) before it runs, so
// its data can fail after that cut changed the state.
func failedPoolCheck(err error, pool []*Tensor) bool {
	for _, t := range pool {
		if failedCheck(err, fuzzCheckMessages(t)) {
			return true
		}
	}
	return false
}

// fuzzPool are the operands every input starts with.
func fuzzPool() []*Tensor {
	return []*Tensor{
		FromSlice([]float32{1, -2, 3, 0.5, 0, 4}, 2, 3),
		FromSlice([]float32{0.25, -1, 2}),
		FromSlice([]float64{1, 2, 3, 4}, 2, 2),
		FromSlice([]int32{0, 2, 1}),
		FromSlice([]int64{1, 0, 2, 1, 0, 0}, 2, 3),
		FromSlice([]bool{true, false, true}),
		Scalar(F32, 2),
		Zeros(F32, 1, 2, 4, 4),
		Zeros(F32, 3, 2, 2, 2),
		NewPlaceholder(NewShape(F32, 1<<30, 1<<30), DefaultDevice()),
		NewPlaceholder(NewShape(F32, 0, 5), DefaultDevice()),
	}
}

// runFuzzAPI runs one input and returns what went wrong ("" if nothing).
func runFuzzAPI(data []byte) string {
	s := &fuzzState{r: &fz{b: data}, pool: fuzzPool()}
	ops := fuzzOps()
	for step := 0; step < 32 && s.r.i < len(data); step++ {
		op := ops[s.r.n(len(ops))]
		if fuzzVerbose {
			fmt.Fprintf(os.Stderr, "step %d: %s (pool %d)\n", step, op.name, len(s.pool))
		}
		before := snapState(s.pool)
		var out []*Tensor
		err, bug := tryOrBug(func() { out = op.call(s) })
		if bug != nil {
			return fmt.Sprintf("step %d: %s panicked with %T: %v\n%s", step, op.name, bug, bug, lastBugStack)
		}
		if err != nil {
			var le *Error
			if e, ok := err.(*Error); !ok {
				return fmt.Sprintf("step %d: %s: error %T %v, want a *lazy.Error", step, op.name, err, err)
			} else {
				le = e
			}
			if !strings.Contains(le.Site, "fuzz_api_test.go:") {
				return fmt.Sprintf("step %d: %s: error site %q is not the call site (%v)", step, op.name, le.Site, le)
			}
			if d := before.diff(snapState(s.pool)); d != "" && !failedPoolCheck(err, s.pool) {
				return fmt.Sprintf("step %d: rejected %s changed the state: %s (%v)", step, op.name, d, le)
			}
			continue
		}
		for _, x := range out {
			if x == nil {
				continue
			}
			if len(s.pool) < 48 {
				s.pool = append(s.pool, x)
			}
			if s.r.n(4) == 0 && fuzzCuttable(x) {
				var vals []float64
				checks := fuzzCheckMessages(x)
				err, bug := tryOrBug(func() { vals = x.Float64s() })
				if err != nil && bug == nil && failedCheck(err, checks) {
					continue // a run-time check of the data (an index out of range)
				}
				if err != nil || bug != nil {
					return fmt.Sprintf("step %d: computing the result of %s (%s): error %v, panic %v\n%s", step, op.name, x.shape, err, bug, lastBugStack)
				}
				if int64(len(vals)) != x.Size() {
					return fmt.Sprintf("step %d: %s: %d values for %s", step, op.name, len(vals), x.shape)
				}
			}
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}
