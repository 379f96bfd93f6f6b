package refs

import "testing"

func TestDrop(t *testing.T) {
	a, b := new(int), new(int)
	s := []*int{a, b, a}
	Drop(s[:2])
	if s[0] != nil || s[1] != nil || s[2] != a {
		t.Fatalf("Drop(s[:2]) left %v", s)
	}
	v := []any{1, "x"}
	Drop(v)
	if v[0] != nil || v[1] != nil {
		t.Fatalf("Drop on interfaces left %v", v)
	}
	Drop[*int](nil) // no elements: nothing to do
	long := make([]*int, 40)
	for i := range long {
		long[i] = a
	}
	Drop(long[:39])
	if long[0] != nil || long[38] != nil || long[39] != a {
		t.Fatalf("Drop on a long slice: first %v, last dropped %v, kept %v", long[0], long[38], long[39])
	}
}

func BenchmarkDropOne(b *testing.B) {
	s := make([]*int, 1)
	p := new(int)
	for range b.N {
		s[0] = p
		Drop(s)
	}
}
