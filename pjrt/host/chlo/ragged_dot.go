package chlo

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

func init() {
	kernel.Register(kernel.Entry{Name: "chlo.ragged_dot", Compile: compileRaggedDot, Fresh: true})
}

// raggedDims is #chlo.ragged_dot<...>.
type raggedDims struct {
	lhsBatch, rhsBatch, lhsContract, rhsContract, lhsRagged, rhsGroup []int64
}

var dimListRE = regexp.MustCompile(`(\w+)\s*=\s*\[([^\]]*)\]`)

// parseRaggedDims reads the dimension numbers from the attribute's text
// (the attribute is kept opaque by the IR).
func parseRaggedDims(a hlo.Attr) (*raggedDims, bool) {
	if a == nil {
		return nil, false
	}
	text := hlo.AttrString(a)
	rd := &raggedDims{}
	fields := map[string]*[]int64{
		"lhs_batching_dimensions": &rd.lhsBatch, "rhs_batching_dimensions": &rd.rhsBatch,
		"lhs_contracting_dimensions": &rd.lhsContract, "rhs_contracting_dimensions": &rd.rhsContract,
		"lhs_ragged_dimensions": &rd.lhsRagged, "rhs_group_dimensions": &rd.rhsGroup,
	}
	for _, m := range dimListRE.FindAllStringSubmatch(text, -1) {
		dst, ok := fields[m[1]]
		if !ok {
			continue
		}
		for _, f := range strings.Split(m[2], ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return nil, false
			}
			*dst = append(*dst, v)
		}
	}
	return rd, true
}

// free lists the dimensions of a rank-r operand not named in any list.
func free(rank int, lists ...[]int64) []int {
	var out []int
	for d := 0; d < rank; d++ {
		used := false
		for _, l := range lists {
			used = used || slices.Contains(l, int64(d))
		}
		if !used {
			out = append(out, d)
		}
	}
	return out
}

// compileRaggedDot implements the three modes of chlo.ragged_dot: the lhs
// ragged dimension is split into consecutive groups of group_sizes; mode 1
// (ragged non-contracting dim m) multiplies each row group by its own rhs
// group slice, mode 2 (ragged contracting dim k) contracts each group
// separately into a leading group dimension, mode 3 (ragged batch dim) is a
// batched dot. Rows past the last group are zero. Products accumulate in
// float64 (complex128, int64) and round once.
func compileRaggedDot(c *kernel.OpCtx) (kernel.RunFn, error) {
	rd, ok := parseRaggedDims(c.Op.Attr("ragged_dot_dimension_numbers"))
	if !ok || len(rd.lhsRagged) != 1 || len(c.In) != 3 {
		return nil, c.Errorf("needs lhs, rhs, group_sizes and ragged_dot_dimension_numbers with one lhs ragged dimension")
	}
	lt, err := c.StaticTensor(c.In[0], "lhs")
	if err != nil {
		return nil, err
	}
	rt, err := c.StaticTensor(c.In[1], "rhs")
	if err != nil {
		return nil, err
	}
	gt, err := c.StaticTensor(c.In[2], "group_sizes")
	if err != nil {
		return nil, err
	}
	ot, err := c.StaticTensor(c.Out[0], "result")
	if err != nil {
		return nil, err
	}
	if len(rd.lhsBatch) != len(rd.rhsBatch) || len(rd.lhsContract) != len(rd.rhsContract) || len(rd.rhsGroup) > 1 {
		return nil, c.Errorf("mismatched batching/contracting dimension lists or several rhs group dimensions")
	}
	ragged := int(rd.lhsRagged[0])
	mode := 1
	switch {
	case slices.Contains(rd.lhsContract, int64(ragged)):
		mode = 2
	case slices.Contains(rd.lhsBatch, int64(ragged)):
		mode = 3
	}
	if (mode == 1) != (len(rd.rhsGroup) == 1) {
		return nil, c.Errorf("mode %d ragged dot needs %s rhs group dimension", mode, map[bool]string{true: "one", false: "no"}[mode == 1])
	}
	lfree := free(lt.Rank(), rd.lhsBatch, rd.lhsContract)
	rfree := free(rt.Rank(), rd.rhsBatch, rd.rhsContract, rd.rhsGroup)
	ng := int(gt.Dims[gt.Rank()-1])
	// Output index layout: [group (mode 2)], batch..., lhs free..., rhs free...
	var outDims []int64
	if mode == 2 {
		outDims = append(outDims, int64(ng))
	}
	for _, d := range rd.lhsBatch {
		outDims = append(outDims, lt.Dims[d])
	}
	for _, d := range lfree {
		outDims = append(outDims, lt.Dims[d])
	}
	for _, d := range rfree {
		outDims = append(outDims, rt.Dims[d])
	}
	if !slices.Equal(outDims, ot.Dims) {
		return nil, c.Errorf("result %s, want dimensions %v", ot, outDims)
	}
	if gt.Rank() > 1 && gt.Rank()-1 != len(rd.lhsBatch) {
		return nil, c.Errorf("group_sizes %s must be [g] or [batch..., g]", gt)
	}
	ls, rs := kernel.Strides(lt.Dims), kernel.Strides(rt.Dims)
	var cdims []int64
	for _, d := range rd.lhsContract {
		cdims = append(cdims, lt.Dims[d])
	}
	ncontract := int(hlo.NumElements(cdims))
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		lhs, err := kernel.TensorArg(op, args, 0)
		if err != nil {
			return err
		}
		rhs, err := kernel.TensorArg(op, args, 1)
		if err != nil {
			return err
		}
		gs, err := kernel.TensorArg(op, args, 2)
		if err != nil {
			return err
		}
		out := kernel.Alloc(ot)
		oidx := make([]int64, len(outDims))
		lidx := make([]int64, lt.Rank())
		ridx := make([]int64, rt.Rank())
		cidx := make([]int64, len(cdims))
		n := out.NumElements()
		acc := newAccumulator(ot.DType)
		for flat := 0; flat < n; flat++ {
			unflatten(flat, outDims, oidx)
			p := 0
			group := -1
			if mode == 2 {
				group = int(oidx[0])
				p = 1
			}
			batchStart := p
			for i, d := range rd.lhsBatch {
				lidx[d] = oidx[p]
				ridx[rd.rhsBatch[i]] = oidx[p]
				p++
			}
			for _, d := range lfree {
				lidx[d] = oidx[p]
				p++
			}
			for _, d := range rfree {
				ridx[d] = oidx[p]
				p++
			}
			// Group boundaries along the ragged dimension (per batch when
			// group_sizes has batch dimensions).
			gbase := 0
			if len(gs.Dims) > 1 {
				gbase = int(flatIndex(oidx[batchStart:batchStart+len(rd.lhsBatch)], gs.Dims[:len(gs.Dims)-1])) * ng
			}
			lo, hi := int64(0), int64(0)
			switch mode {
			case 1, 3:
				// Find the group holding the ragged index.
				pos := lidx[ragged]
				start := int64(0)
				group = -1
				for g := 0; g < ng; g++ {
					sz := gs.Int(gbase + g)
					if pos >= start && pos < start+sz {
						group = g
						break
					}
					start += sz
				}
				if group < 0 {
					continue // past the last group: zero
				}
				if mode == 1 {
					ridx[rd.rhsGroup[0]] = int64(group)
				}
			case 2:
				for g := 0; g < group; g++ {
					lo += gs.Int(gbase + g)
				}
				hi = lo + gs.Int(gbase+group)
			}
			acc.reset()
			for k := 0; k < ncontract; k++ {
				unflatten(k, cdims, cidx)
				skip := false
				for i, d := range rd.lhsContract {
					lidx[d] = cidx[i]
					ridx[rd.rhsContract[i]] = cidx[i]
					if mode == 2 && int(d) == ragged && (cidx[i] < lo || cidx[i] >= hi) {
						skip = true
					}
				}
				if skip {
					continue
				}
				acc.add(lhs, int(dot(lidx, ls)), rhs, int(dot(ridx, rs)))
			}
			acc.store(out, flat)
		}
		results[0] = out
		return nil
	}, nil
}

func unflatten(flat int, dims []int64, idx []int64) {
	for d := len(dims) - 1; d >= 0; d-- {
		if dims[d] > 0 {
			idx[d] = int64(flat) % dims[d]
			flat /= int(dims[d])
		}
	}
}

func flatIndex(idx, dims []int64) int64 {
	var f int64
	for i := range idx {
		f = f*dims[i] + idx[i]
	}
	return f
}

func dot(a, b []int64) int64 {
	var s int64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// accumulator sums products in the widest type of the result's kind.
type accumulator struct {
	kind int // 0 float, 1 complex, 2 int
	f    float64
	c    complex128
	i    int64
}

func newAccumulator(dt hlo.DType) *accumulator {
	switch {
	case dt.IsComplex():
		return &accumulator{kind: 1}
	case dt.IsInt() || dt.IsBool():
		return &accumulator{kind: 2}
	}
	return &accumulator{}
}

func (a *accumulator) reset() { a.f, a.c, a.i = 0, 0, 0 }

func (a *accumulator) add(l *hlo.Literal, i int, r *hlo.Literal, j int) {
	switch a.kind {
	case 0:
		a.f += l.Float(i) * r.Float(j)
	case 1:
		a.c += l.Complex(i) * r.Complex(j)
	default:
		a.i += l.Int(i) * r.Int(j)
	}
}

func (a *accumulator) store(out *hlo.Literal, i int) {
	switch a.kind {
	case 0:
		out.SetFloat(i, a.f)
	case 1:
		out.SetComplex(i, a.c)
	default:
		out.SetInt(i, a.i)
	}
}
