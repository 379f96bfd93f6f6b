package jit

import (
	"encoding/binary"

	"github.com/xlajit/xlajit/lazy"
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

// hotEntry is what a call reads to replay the entry it used last: its
// guard key inline, and the direct executable and result slot, in one
// 64-byte object (one cache line, so a replay after a large execution has
// evicted the caches waits for one line here, not for the entry and its
// key's bytes separately).
type hotEntry struct {
	key    [hotKeyLen]byte
	n      uint8 // key length; longKey: longer than hotKeyLen, compare e.key
	mixed  bool  // direct's parameters are not the arguments in order: e.params
	slot   int32
	direct *lazy.Executable
	e      *entry
}

func newHotEntry(e *entry) *hotEntry {
	h := &hotEntry{direct: e.direct, mixed: e.params != nil, slot: int32(e.slot), e: e, n: longKey}
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

// gather appends the direct executable's parameters to ins: the arguments
// and captured tensors in e.params order (the arguments when it is nil).
func (e *entry) gather(ins, args []*lazy.Tensor) []*lazy.Tensor {
	if e.params == nil {
		return args
	}
	for _, p := range e.params {
		if p >= 0 {
			ins = append(ins, args[p])
		} else {
			ins = append(ins, e.captures[-p-1])
		}
	}
	return ins
}
