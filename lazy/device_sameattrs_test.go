package lazy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// SameSupportAttrs may only call two lists the same when DeviceSupports
// keys them alike (their hash without literal data), and it must call a
// list the same as itself and as a copy with other constant values.
func TestSameSupportAttrsAgreesWithKey(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	val := func() any {
		switch r.IntN(8) {
		case 0:
			return int64(r.IntN(3))
		case 1:
			return []int64{int64(r.IntN(2)), int64(r.IntN(2))}[:r.IntN(3)]
		case 2:
			return []float64{0, math.Copysign(0, -1), 1, math.NaN()}[r.IntN(4)]
		case 3:
			return r.IntN(2) == 0
		case 4:
			return []string{"a", "b"}[r.IntN(2)]
		case 5:
			return []DType{F32, I32}[r.IntN(2)]
		default:
			dt := []DType{F32, I32}[r.IntN(2)]
			dims := []int64{int64(1 + r.IntN(2))}[:r.IntN(2)]
			l := hlo.Literal{DType: dt, Dims: dims, Data: make([]byte, dt.Size()*int(hlo.NumElements(dims)))}
			l.Data[0] = byte(r.IntN(2))
			return &l
		}
	}
	list := func() Attrs {
		a := make(Attrs, r.IntN(3))
		for i := range a {
			a[i] = Attr{[]string{"x", "y"}[r.IntN(2)], val()}
		}
		return a
	}
	key := func(a Attrs) Hash {
		h := newHasher()
		a.hash(&h, false)
		return h.sum()
	}
	same := 0
	for i := 0; i < 20000; i++ {
		a, b := list(), list()
		if !SameSupportAttrs(a, a) {
			t.Fatalf("%v is not the same as itself", a)
		}
		if SameSupportAttrs(a, b) {
			same++
			if key(a) != key(b) {
				t.Fatalf("%v and %v called the same, keyed apart", a, b)
			}
		}
	}
	if same < 100 {
		t.Fatalf("only %d of 20000 pairs were the same: the generator does not test the positive case", same)
	}
	// Constants with other values ask the same question.
	one, two := scalarLiteral(F32, 1), scalarLiteral(F32, 2)
	if !SameSupportAttrs(Attrs{{"value", one}}, Attrs{{"value", two}}) {
		t.Fatal("constants of one type and other values are not the same question")
	}
}
