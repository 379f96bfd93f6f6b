package linalg

import (
	"math"
	"math/cmplx"
	"sync"
)

// One-dimensional discrete Fourier transforms of any length, in complex128.
// Lengths whose prime factors are all <= maxDirectPrime use a recursive
// mixed-radix Cooley-Tukey decomposition (decimation in time) with exact
// twiddles; others use Bluestein's chirp-z algorithm on a power-of-two
// transform.

const maxDirectPrime = 61

type fftPlan struct {
	n       int
	w       []complex128 // w[j] = exp(-2*pi*i*j/n)
	factors []int        // radices, outermost first; nil with blue
	blue    *bluestein
}

type bluestein struct {
	m     int
	chirp []complex128 // exp(-i*pi*k^2/n), k < n
	bhat  []complex128 // DFT_m of the conjugate chirp filter
	sub   *fftPlan     // plan of length m
}

var fftPlans sync.Map // int -> *fftPlan

func planFFT(n int) *fftPlan {
	if p, ok := fftPlans.Load(n); ok {
		return p.(*fftPlan)
	}
	p := newFFTPlan(n)
	fftPlans.Store(n, p)
	return p
}

func newFFTPlan(n int) *fftPlan {
	p := &fftPlan{n: n, w: twiddles(n)}
	factors, ok := factorize(n)
	if ok {
		p.factors = factors
		return p
	}
	m := 1
	for m < 2*n-1 {
		m <<= 1
	}
	b := &bluestein{m: m, chirp: make([]complex128, n), sub: planFFT(m)}
	for k := 0; k < n; k++ {
		// k^2 mod 2n keeps the angle small and exact.
		e := (int64(k) * int64(k)) % int64(2*n)
		s, c := math.Sincos(math.Pi * float64(e) / float64(n))
		b.chirp[k] = complex(c, -s)
	}
	filt := make([]complex128, m)
	for k := 0; k < n; k++ {
		v := cmplx.Conj(b.chirp[k])
		filt[k] = v
		if k > 0 {
			filt[m-k] = v
		}
	}
	b.bhat = make([]complex128, m)
	b.sub.forward(b.bhat, filt)
	p.blue = b
	return p
}

// twiddles returns exp(-2*pi*i*j/n) for j < n, each computed from the
// smallest equivalent angle for accuracy.
func twiddles(n int) []complex128 {
	w := make([]complex128, n)
	for j := 0; j < n; j++ {
		// Reduce to the first half turn and use symmetry.
		jj := j
		neg := false
		if 2*jj > n {
			jj = n - jj
			neg = true
		}
		var s, c float64
		switch {
		case 4*jj == n:
			s, c = 1, 0
		case 2*jj == n:
			s, c = 0, -1
		case 4*jj > n: // second quadrant: angle = pi - t
			s, c = math.Sincos(2 * math.Pi * float64(n-2*jj) / float64(2*n))
			c = -c
		default:
			s, c = math.Sincos(2 * math.Pi * float64(jj) / float64(n))
		}
		if neg {
			s = -s
		}
		w[j] = complex(c, -s)
	}
	return w
}

// factorize splits n into radices (4 first, then 2, 3, 5, ... primes),
// reporting false when a prime factor exceeds maxDirectPrime.
func factorize(n int) ([]int, bool) {
	var f []int
	for n%4 == 0 {
		f = append(f, 4)
		n /= 4
	}
	for n%2 == 0 {
		f = append(f, 2)
		n /= 2
	}
	for p := 3; p*p <= n; p += 2 {
		for n%p == 0 {
			if p > maxDirectPrime {
				return nil, false
			}
			f = append(f, p)
			n /= p
		}
	}
	if n > 1 {
		if n > maxDirectPrime {
			return nil, false
		}
		f = append(f, n)
	}
	return f, true
}

// forward computes dst = DFT(src) (unnormalised, e^{-i...}); dst and src
// must not overlap.
func (p *fftPlan) forward(dst, src []complex128) {
	if p.n == 0 {
		return
	}
	if p.blue != nil {
		p.bluesteinForward(dst, src)
		return
	}
	p.rec(dst[:p.n], src, 1, p.n, 0)
}

// inverse computes dst = sum_k src[k] e^{+2 pi i jk/n} (unnormalised).
func (p *fftPlan) inverse(dst, src, tmp []complex128) {
	for i, v := range src[:p.n] {
		tmp[i] = cmplx.Conj(v)
	}
	p.forward(dst, tmp[:p.n])
	for i := range dst[:p.n] {
		dst[i] = cmplx.Conj(dst[i])
	}
}

func (p *fftPlan) rec(dst, src []complex128, stride, n, fi int) {
	if n == 1 {
		dst[0] = src[0]
		return
	}
	r := p.factors[fi]
	m := n / r
	for q := 0; q < r; q++ {
		p.rec(dst[q*m:(q+1)*m], src[q*stride:], stride*r, m, fi+1)
	}
	step := p.n / n // W_n^j = w[j*step]
	switch r {
	case 2:
		for k := 0; k < m; k++ {
			a := dst[k]
			b := dst[m+k] * p.w[k*step]
			dst[k], dst[m+k] = a+b, a-b
		}
	case 4:
		for k := 0; k < m; k++ {
			a0 := dst[k]
			a1 := dst[m+k] * p.w[k*step]
			a2 := dst[2*m+k] * p.w[2*k*step]
			a3 := dst[3*m+k] * p.w[3*k*step]
			s02, d02 := a0+a2, a0-a2
			s13, d13 := a1+a3, a1-a3
			// -i * d13
			md := complex(imag(d13), -real(d13))
			dst[k] = s02 + s13
			dst[m+k] = d02 + md
			dst[2*m+k] = s02 - s13
			dst[3*m+k] = d02 - md
		}
	default:
		var tb [maxDirectPrime]complex128
		t := tb[:r]
		wr := p.n / r // W_r^j = w[j*wr]
		for k := 0; k < m; k++ {
			for q := 0; q < r; q++ {
				t[q] = dst[q*m+k] * p.w[(q*k*step)%p.n]
			}
			for q2 := 0; q2 < r; q2++ {
				s := t[0]
				for q := 1; q < r; q++ {
					s += t[q] * p.w[((q*q2)%r)*wr]
				}
				dst[q2*m+k] = s
			}
		}
	}
}

func (p *fftPlan) bluesteinForward(dst, src []complex128) {
	b := p.blue
	a := make([]complex128, 2*b.m)
	x, y := a[:b.m], a[b.m:]
	for k := 0; k < p.n; k++ {
		x[k] = src[k] * b.chirp[k]
	}
	b.sub.forward(y, x)
	for k := range y {
		y[k] *= b.bhat[k]
	}
	// Inverse transform of y (unnormalised), then scale by 1/m.
	b.sub.inverse(x, y, y)
	scale := 1 / float64(b.m)
	for k := 0; k < p.n; k++ {
		dst[k] = x[k] * b.chirp[k] * complex(scale, 0)
	}
}
