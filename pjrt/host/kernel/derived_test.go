package kernel

import (
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// ForgetDerived drops a literal's entries, and costs no allocation for a
// literal without any (a donated argument's storage, every step).
func TestForgetDerived(t *testing.T) {
	kept, other := hlo.NewLiteral(hlo.F32, 4), hlo.NewLiteral(hlo.F32, 4)
	x := &Ctx{StableArgs: []*hlo.Literal{kept}}
	KeepDerived(x, kept, "kind", []float32{1}, 4)
	if DerivedCount(kept) != 1 {
		t.Fatalf("%d entries kept, want 1", DerivedCount(kept))
	}
	lit := testing.AllocsPerRun(20, func() { _ = hlo.NewLiteral(hlo.F32, 1) })
	if n := testing.AllocsPerRun(20, func() { ForgetDerived(hlo.NewLiteral(hlo.F32, 1)) }); n > lit {
		t.Errorf("ForgetDerived of a literal without entries allocates %.0f objects", n-lit)
	}
	ForgetDerived(other)
	if DerivedCount(kept) != 1 {
		t.Errorf("forgetting another literal dropped this one's entry")
	}
	ForgetDerived(kept)
	if DerivedCount(kept) != 0 || DerivedBytes() != 0 {
		t.Errorf("after ForgetDerived: %d entries, %d bytes", DerivedCount(kept), DerivedBytes())
	}
	KeepDerived(x, kept, "kind", []float32{1}, 4) // kept again after being forgotten
	if DerivedCount(kept) != 1 {
		t.Errorf("%d entries after keeping again, want 1", DerivedCount(kept))
	}
	ForgetDerived(kept)
}
