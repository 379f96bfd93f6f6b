package chlo

import "math"

// dd is a double-double number hi+lo (|lo| <= ulp(hi)/2), for the few
// places where float64 alone loses the last bits.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return
}

func quickTwoSum(a, b float64) (s, e float64) {
	s = a + b
	e = b - (s - a)
	return
}

func twoProd(a, b float64) (p, e float64) {
	p = a * b
	e = math.FMA(a, b, -p)
	return
}

func (a dd) add(b dd) dd {
	s, e := twoSum(a.hi, b.hi)
	t, f := twoSum(a.lo, b.lo)
	e += t
	s, e = quickTwoSum(s, e)
	e += f
	s, e = quickTwoSum(s, e)
	return dd{s, e}
}

func (a dd) addFloat(b float64) dd { return a.add(dd{b, 0}) }

func (a dd) neg() dd { return dd{-a.hi, -a.lo} }

func (a dd) sub(b dd) dd { return a.add(b.neg()) }

func (a dd) mul(b dd) dd {
	p, e := twoProd(a.hi, b.hi)
	e += a.hi*b.lo + a.lo*b.hi
	p, e = quickTwoSum(p, e)
	return dd{p, e}
}

func (a dd) mulFloat(b float64) dd {
	p, e := twoProd(a.hi, b)
	e += a.lo * b
	p, e = quickTwoSum(p, e)
	return dd{p, e}
}

func (a dd) div(b dd) dd {
	q1 := a.hi / b.hi
	r := a.sub(b.mulFloat(q1))
	q2 := r.hi / b.hi
	r = r.sub(b.mulFloat(q2))
	q3 := r.hi / b.hi
	s, e := quickTwoSum(q1, q2)
	return dd{s, e}.addFloat(q3)
}

func (a dd) divFloat(b float64) dd { return a.div(dd{b, 0}) }

// sqrt of a double-double (one Newton step on the float64 root).
func (a dd) sqrt() dd {
	if a.hi <= 0 {
		return dd{math.Sqrt(a.hi), 0}
	}
	x := math.Sqrt(a.hi)
	// x + (a - x²) / 2x
	p, e := twoProd(x, x)
	r := a.sub(dd{p, e})
	s, t := quickTwoSum(x, r.hi/(2*x))
	return dd{s, t}
}

func (a dd) float() float64 { return a.hi + a.lo }
