package jit

import (
	"encoding/binary"
	"math"
	"testing"
)

// A hot entry's key matches itself only, inline or past the inline buffer.
func TestHotEntryMatch(t *testing.T) {
	long := &entry{key: string(make([]byte, hotKeyLen+5))}
	h := newHotEntry(long)
	if !h.match([]byte(long.key)) || h.match([]byte(long.key[:hotKeyLen])) {
		t.Error("a key longer than the inline buffer must match by the entry's key")
	}
	short := newHotEntry(&entry{key: "T\x05\x02\x03\x04\x00"})
	if !short.match([]byte("T\x05\x02\x03\x04\x00")) || short.match([]byte("T\x05\x02\x03\x04\x01")) {
		t.Error("an inline key must match itself only")
	}
}

func TestAppendVarintMatchesBinary(t *testing.T) {
	for _, v := range []int64{0, 1, 2, 63, 64, 65, 127, 128, 300, 1 << 20, 1<<62 + 5, -1, -2, -64, -65, math.MinInt64, math.MaxInt64} {
		if got, want := appendVarint([]byte("k"), v), binary.AppendVarint([]byte("k"), v); string(got) != string(want) {
			t.Errorf("appendVarint(%d) = %x, want %x", v, got, want)
		}
	}
}

// matchPadded compares zero-padded keys and their lengths: a key that is
// another's prefix followed by zero bytes must not match it.
func TestMatchPadded(t *testing.T) {
	h := newHotEntry(&entry{key: "T\x05\x02\x00"})
	var kb [keyBufLen]byte
	for _, c := range []struct {
		key  string
		want bool
	}{{"T\x05\x02\x00", true}, {"T\x05\x02", false}, {"T\x05\x02\x00\x00", false}, {"T\x05\x02\x01", false}, {"", false}} {
		kb = [keyBufLen]byte{}
		copy(kb[:], c.key)
		if got := h.matchPadded(&kb, len(c.key)); got != c.want {
			t.Errorf("matchPadded(%q) = %v, want %v", c.key, got, c.want)
		}
	}
	long := newHotEntry(&entry{key: string(make([]byte, hotKeyLen+1))})
	kb = [keyBufLen]byte{}
	if long.matchPadded(&kb, hotKeyLen+1) {
		t.Error("a key longer than the inline buffer must not match inline")
	}
}
