package jit

import (
	"encoding/binary"
)

// hotKeyLen is the longest guard key a hotEntry holds inline (a multiple
// of 8); longKey marks a longer one (no key buffer is that long).
const (
	hotKeyLen = 40
	longKey   = 0xff
)

// Compile-time checks: whole words, and no real key length equals longKey.
var (
	_ [-(hotKeyLen % 8)]struct{}
	_ [longKey - keyBufLen - 1]struct{}
)

// hotEntry is the entry a call used last with its guard key inline, so a
// replay of it compares the key without reaching the entry's string.
type hotEntry struct {
	key [hotKeyLen]byte
	n   uint8 // key length; longKey: longer than hotKeyLen, compare e.key
	e   *entry
}

func newHotEntry(e *entry) *hotEntry {
	h := &hotEntry{e: e, n: longKey}
	if len(e.key) <= hotKeyLen {
		h.n = uint8(copy(h.key[:], e.key))
	}
	return h
}

// matchPadded reports whether the first n bytes of kb, zero past n, are
// the entry's guard key: word compares, no call (a key longer than
// hotKeyLen never matches here; match compares it).
func (h *hotEntry) matchPadded(kb *[keyBufLen]byte, n int) bool {
	var d uint64
	for i := 0; i < hotKeyLen; i += 8 {
		d |= binary.LittleEndian.Uint64(h.key[i:]) ^ binary.LittleEndian.Uint64(kb[i:])
	}
	return d == 0 && int(h.n) == n
}

// match reports whether key is the entry's guard key.
func (h *hotEntry) match(key []byte) bool {
	if h.n <= hotKeyLen {
		return string(h.key[:h.n]) == string(key)
	}
	return h.e.key == string(key)
}
