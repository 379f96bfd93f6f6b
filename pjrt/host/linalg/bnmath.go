package linalg

import (
	"math"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The float64 loops of the batch_norm ops. Sums run per feature in the
// operand's row-major order whatever the split into workers (a worker owns
// a range of features); elementwise passes run over rows of inner
// elements. The explicit float64 conversions keep products from fusing
// with the following add or subtract, as the decomposition's separate ops
// do not fuse.

// bnLayout is the operand seen as [outer, feat, inner] around the feature
// dimension.
type bnLayout struct{ outer, feat, inner int }

// n is the number of elements per feature.
func (g bnLayout) n() float64 { return float64(g.outer * g.inner) }

// segment is row o's run of features [f0, f1): (f1-f0)*inner elements,
// element k of feature f0 + k/inner.
func (g bnLayout) segment(xs []float64, o, f0, f1 int) []float64 {
	return xs[(o*g.feat+f0)*g.inner : (o*g.feat+f1)*g.inner]
}

// featureGrain is the number of features worth a worker, rowGrain the
// number of rows of inner elements.
func (g bnLayout) featureGrain() int { return max(1, bnGrain/max(1, g.outer*g.inner)) }
func (g bnLayout) rowGrain() int     { return max(1, bnGrain/max(1, g.inner)) }

// meanVar computes the batch mean and variance per feature.
func (g bnLayout) meanVar(xs, mean, variance []float64) {
	n := g.n()
	kernel.ParallelFor(g.feat, g.featureGrain(), func(f0, f1 int) {
		m, v := mean[f0:f1], variance[f0:f1]
		clear(m)
		clear(v)
		for o := range g.outer {
			seg := g.segment(xs, o, f0, f1)
			if g.inner == 1 {
				for k, x := range seg {
					m[k] += x
				}
				continue
			}
			for k := range m {
				s := m[k]
				for _, x := range seg[k*g.inner : (k+1)*g.inner] {
					s += x
				}
				m[k] = s
			}
		}
		for k := range m {
			m[k] /= n
		}
		for o := range g.outer {
			seg := g.segment(xs, o, f0, f1)
			if g.inner == 1 {
				for k, x := range seg {
					d := x - m[k]
					v[k] += float64(d * d)
				}
				continue
			}
			for k := range v {
				s, mk := v[k], m[k]
				for _, x := range seg[k*g.inner : (k+1)*g.inner] {
					d := x - mk
					s += float64(d * d)
				}
				v[k] = s
			}
		}
		for k := range v {
			v[k] /= n
		}
	})
}

// normalize writes scale * ((x - mean) / sqrt(variance + eps)) + offset.
func (g bnLayout) normalize(ys, xs, scale, offset, mean, variance []float64, eps float64) {
	sd := make([]float64, g.feat)
	for f := range sd {
		sd[f] = math.Sqrt(variance[f] + eps)
	}
	kernel.ParallelFor(g.outer*g.feat, g.rowGrain(), func(r0, r1 int) {
		f := r0 % g.feat
		for r := r0; r < r1; r++ {
			m, s, sc, off := mean[f], sd[f], scale[f], offset[f]
			if g.inner == 1 {
				ys[r] = float64(sc*((xs[r]-m)/s)) + off
			} else {
				lo := r * g.inner
				row := ys[lo : lo+g.inner]
				for k, x := range xs[lo : lo+g.inner] {
					row[k] = float64(sc*((x-m)/s)) + off
				}
			}
			if f++; f == g.feat {
				f = 0
			}
		}
	})
}

// grad computes batch_norm_grad's results (gx shaped like the operand,
// gscale and goffset per feature) from operand xs, grad_output gys and
// the per-feature scale, mean and variance, following the decomposition:
//
//	i2 = sum(grad_output) = grad_offset, i3 = sum(grad_output * centered),
//	grad_scale = sum(grad_output * (centered / stddev)),
//	grad_operand = ((scale / stddev) / N) * ((grad_output * N - i2) -
//	               (i3 * centered) / (variance + epsilon)).
func (g bnLayout) grad(gx, gscale, goffset, xs, gys, scale, mean, variance []float64, eps float64) {
	n := g.n()
	ve := make([]float64, g.feat) // variance + epsilon
	sd := make([]float64, g.feat) // stddev
	for f := range ve {
		ve[f] = variance[f] + eps
		sd[f] = math.Sqrt(ve[f])
	}
	i3 := make([]float64, g.feat)
	kernel.ParallelFor(g.feat, g.featureGrain(), func(f0, f1 int) {
		s2, s3, sg := goffset[f0:f1], i3[f0:f1], gscale[f0:f1]
		m, s := mean[f0:f1], sd[f0:f1]
		clear(s2)
		clear(s3)
		clear(sg)
		for o := range g.outer {
			seg, gseg := g.segment(xs, o, f0, f1), g.segment(gys, o, f0, f1)
			if g.inner == 1 {
				for k, x := range seg {
					c, gy := x-m[k], gseg[k]
					s2[k] += gy
					s3[k] += float64(gy * c)
					sg[k] += float64(gy * (c / s[k]))
				}
				continue
			}
			for k := range s2 {
				a2, a3, ag, mk, sk := s2[k], s3[k], sg[k], m[k], s[k]
				ys := gseg[k*g.inner : (k+1)*g.inner]
				for j, x := range seg[k*g.inner : (k+1)*g.inner] {
					c, gy := x-mk, ys[j]
					a2 += gy
					a3 += float64(gy * c)
					ag += float64(gy * (c / sk))
				}
				s2[k], s3[k], sg[k] = a2, a3, ag
			}
		}
	})
	kernel.ParallelFor(g.outer*g.feat, g.rowGrain(), func(r0, r1 int) {
		f := r0 % g.feat
		for r := r0; r < r1; r++ {
			m, i2, s3, v2 := mean[f], goffset[f], i3[f], ve[f]
			k := scale[f] / sd[f] / n
			if g.inner == 1 {
				c := xs[r] - m
				gx[r] = k * ((float64(gys[r]*n) - i2) - float64(s3*c)/v2)
			} else {
				lo := r * g.inner
				ys, row := gys[lo:lo+g.inner], gx[lo:lo+g.inner]
				for j, x := range xs[lo : lo+g.inner] {
					c := x - m
					row[j] = k * ((float64(ys[j]*n) - i2) - float64(s3*c)/v2)
				}
			}
			if f++; f == g.feat {
				f = 0
			}
		}
	})
}
