package jit

import (
	"encoding/binary"
	"math"
	"testing"
)

// find matches the last entry used by its whole key, never a prefix of it
// or a key it is a prefix of, and makes each entry it finds the last one.
func TestFindMatchesWholeKeys(t *testing.T) {
	short, long := &entry{key: "T\x05\x02"}, &entry{key: "T\x05\x02\x00"}
	s := &fnState{entries: map[string]*entry{short.key: short, long.key: long}}
	for i, c := range []struct {
		key  string
		want *entry
	}{{"T\x05\x02", short}, {"T\x05\x02\x00", long}, {"T\x05\x02", short}, {"T\x05", nil}, {"T\x05\x02\x00\x00", nil}, {"T\x05\x02\x00", long}} {
		if got := s.find([]byte(c.key)); got != c.want {
			t.Errorf("find %d (%q) = %v, want %v", i, c.key, got, c.want)
		}
		if c.want != nil && s.last.Load() != c.want {
			t.Errorf("find %d (%q) did not make its entry the last one", i, c.key)
		}
	}
}

func TestAppendVarintMatchesBinary(t *testing.T) {
	for _, v := range []int64{0, 1, 2, 63, 64, 65, 127, 128, 300, 1 << 20, 1<<62 + 5, -1, -2, -64, -65, math.MinInt64, math.MaxInt64} {
		if got, want := appendVarint([]byte("k"), v), binary.AppendVarint([]byte("k"), v); string(got) != string(want) {
			t.Errorf("appendVarint(%d) = %x, want %x", v, got, want)
		}
	}
}
