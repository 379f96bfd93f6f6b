package lazy

import (
	"fmt"
	"strings"
	"testing"
)

// A dot product of k terms of magnitude <= 1 is within about k units of
// roundoff at scale k (any summation order); tolerances allow 4k units at
// scale k.
func dotTol(dt DType, k int64) tolerance {
	return ulpsTol(dt, float64(4*k+4), float64(k))
}

func TestOpsMatMul(t *testing.T) {
	r := newRand(20)
	cases := [][2][]int64{
		{{3, 4}, {4, 5}},
		{{2, 3, 4}, {4, 5}},    // batch folded into rows
		{{2, 3, 4}, {2, 4, 5}}, // batched
		{{2, 1, 3, 4}, {3, 4, 2}},
		{{1, 3, 4}, {2, 4, 5}}, // broadcast batch
		{{4}, {4, 5}},          // vector x matrix
		{{3, 4}, {4}},          // matrix x vector
		{{4}, {4}},             // dot
		{{4}, {2, 4, 5}},
		{{2, 3, 4}, {4}},
		{{2, 1, 3, 4}, {4}},
	}
	for _, dt := range []DType{F32, F64, I32} {
		for _, c := range cases {
			name := fmt.Sprintf("MatMul/%s/%vx%v", dt, c[0], c[1])
			av, bv := randND(r, -1, 1, c[0]...), randND(r, -1, 1, c[1]...)
			if dt.IsInt() {
				av, bv = randInts(r, -3, 4, c[0]...), randInts(r, -3, 4, c[1]...)
			}
			a, ar := mk(av, dt)
			b, br := mk(bv, dt)
			// numpy: a 1-D operand is a row (left) or column (right), removed after.
			am, bm := ar, br
			if ar.rank() == 1 {
				am = nd{dims: []int64{1, ar.dims[0]}, v: ar.v}
			}
			if br.rank() == 1 {
				bm = nd{dims: []int64{br.dims[0], 1}, v: br.v}
			}
			want := refMatMul(am, bm)
			d := want.dims
			if ar.rank() == 1 {
				d = append(append([]int64{}, d[:len(d)-2]...), d[len(d)-1])
			}
			if br.rank() == 1 {
				d = d[:len(d)-1]
			}
			want.dims = d
			tl := exact
			if dt.IsFloat() {
				tl = dotTol(dt, ar.dims[ar.rank()-1])
			}
			expectT(t, name, a.MatMul(b), dt, want, tl)
		}
	}
}

func TestOpsLinear(t *testing.T) {
	r := newRand(21)
	for _, dt := range floatTypes {
		x, xv := mk(randND(r, -1, 1, 2, 3, 4), dt)
		w, wv := mk(randND(r, -1, 1, 5, 4), dt)
		b, bv := mk(randND(r, -1, 1, 5), dt)
		wt := gen([]int64{4, 5}, func(i []int64) float64 { return wv.at(i[1], i[0]) })
		want := zipND(refMatMul(xv, wt), bv, func(a, b float64) float64 { return a + b })
		expectT(t, "Linear/"+dt.String(), Linear(x, w, b), dt, want, dotTol(dt, 5))
		expectT(t, "Linear/nobias/"+dt.String(), Linear(x, w, nil), dt, refMatMul(xv, wt), dotTol(dt, 4))
	}
}

// refEinsum evaluates spec by brute force over every label assignment.
func refEinsum(spec string, ops ...nd) nd {
	lhs, out, _ := strings.Cut(spec, "->")
	ins := strings.Split(lhs, ",")
	size := map[byte]int64{}
	var labels []byte
	for i, s := range ins {
		for j := 0; j < len(s); j++ {
			if _, ok := size[s[j]]; !ok {
				labels = append(labels, s[j])
			}
			size[s[j]] = ops[i].dims[j]
		}
	}
	od := make([]int64, len(out))
	for i := range od {
		od[i] = size[out[i]]
	}
	res := newND(od...)
	all := make([]int64, len(labels))
	for i, c := range labels {
		all[i] = size[c]
	}
	pos := map[byte]int{}
	for i, c := range labels {
		pos[c] = i
	}
	n := int(hlo64(all))
	for k := 0; k < n; k++ {
		asg := unflat(all, k)
		p := 1.0
		for i, s := range ins {
			idx := make([]int64, len(s))
			for j := 0; j < len(s); j++ {
				idx[j] = asg[pos[s[j]]]
			}
			p *= ops[i].at(idx...)
		}
		oi := make([]int64, len(out))
		for j := range oi {
			oi[j] = asg[pos[out[j]]]
		}
		res.v[res.off(oi)] += p
	}
	return res
}

func hlo64(d []int64) int64 {
	n := int64(1)
	for _, x := range d {
		n *= x
	}
	return n
}

func TestOpsEinsum(t *testing.T) {
	r := newRand(22)
	cases := []struct {
		spec   string
		shapes [][]int64
		k      int64 // terms per output element
	}{
		{"ij,jk->ik", [][]int64{{3, 4}, {4, 5}}, 4},
		{"bij,bjk->bik", [][]int64{{2, 3, 4}, {2, 4, 5}}, 4},
		{"ij->ji", [][]int64{{3, 4}}, 1},
		{"ij->", [][]int64{{3, 4}}, 12},
		{"i,i->", [][]int64{{6}, {6}}, 6},
		{"ij,kj->ik", [][]int64{{3, 4}, {5, 4}}, 4},
		{"bhqd,bhkd->bhqk", [][]int64{{2, 2, 3, 4}, {2, 2, 5, 4}}, 4},
		{"ij,jk", [][]int64{{3, 4}, {4, 5}}, 4}, // implicit output: labels seen once, sorted
		{"ij->i", [][]int64{{3, 4}}, 4},
		{"i,j->ij", [][]int64{{3}, {4}}, 1},
		{"bij,jk->bki", [][]int64{{2, 3, 4}, {4, 5}}, 4},
		{"ijk,ik->j", [][]int64{{2, 3, 4}, {2, 4}}, 8},
		{"ij,ij->ij", [][]int64{{3, 4}, {3, 4}}, 1},
	}
	for _, dt := range []DType{F32, F64, I32} {
		for _, c := range cases {
			ops := make([]*Tensor, len(c.shapes))
			vals := make([]nd, len(c.shapes))
			for i, s := range c.shapes {
				a := randND(r, -1, 1, s...)
				if dt.IsInt() {
					a = randInts(r, -3, 4, s...)
				}
				ops[i], vals[i] = mk(a, dt)
			}
			tl := exact
			if dt.IsFloat() {
				tl = dotTol(dt, c.k)
			}
			spec := c.spec
			if !strings.Contains(spec, "->") {
				spec += "->ik"
			}
			want := refEinsum(spec, vals...)
			expectT(t, "Einsum/"+c.spec+"/"+dt.String(), Einsum(c.spec, ops...), dt, want, tl)
		}
	}
}
