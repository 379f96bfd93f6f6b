package lazy

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/bits"
)

// Hash is a 128-bit hash, stable across processes and machines: it keys the
// compile cache, the persistent cache and ahead-of-time traces.
type Hash struct{ Hi, Lo uint64 }

// String returns 32 hex digits.
func (h Hash) String() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], h.Hi)
	binary.BigEndian.PutUint64(b[8:], h.Lo)
	return hex.EncodeToString(b[:])
}

// ParseHash parses the String form.
func ParseHash(s string) (Hash, bool) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 16 {
		return Hash{}, false
	}
	return Hash{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}, true
}

// hasher folds values into a 128-bit state (two lanes mixed with 64x64→128
// multiplication, in the style of wyhash/xxh3). It allocates nothing.
type hasher struct{ a, b uint64 }

const (
	k0 = 0xa0761d6478bd642f
	k1 = 0xe7037ed1a0b428db
	k2 = 0x8ebc6af09c88c6e3
	k3 = 0x589965cc75374cc3
)

func newHasher() hasher { return hasher{a: k0, b: k1} }

func mix(x, y uint64) uint64 {
	hi, lo := bits.Mul64(x, y)
	return hi ^ lo
}

func (h *hasher) u64(v uint64) {
	h.a = mix(h.a^v, k2)
	h.b = mix(h.b^bits.RotateLeft64(v, 31)^h.a, k3)
}

func (h *hasher) i64(v int64)   { h.u64(uint64(v)) }
func (h *hasher) int(v int)     { h.u64(uint64(v)) }
func (h *hasher) f64(v float64) { h.u64(math.Float64bits(v)) }
func (h *hasher) hash(x Hash)   { h.u64(x.Hi); h.u64(x.Lo) }
func (h *hasher) bool(v bool) {
	if v {
		h.u64(1)
	} else {
		h.u64(2)
	}
}

func (h *hasher) str(s string) {
	h.int(len(s))
	for len(s) >= 8 {
		h.u64(binary.LittleEndian.Uint64([]byte(s[:8])))
		s = s[8:]
	}
	h.u64(tailWord(s))
}

func (h *hasher) bytes(p []byte) {
	h.int(len(p))
	for len(p) >= 8 {
		h.u64(binary.LittleEndian.Uint64(p))
		p = p[8:]
	}
	h.u64(tailWord(p))
}

// tailWord packs the bytes of s (fewer than 8) little-endian into a word:
// byte i at bits 8i. Two overlapping loads cover 4 to 7 bytes (a byte
// both hold lands at one place), one or two bytes more the rest.
func tailWord[S string | []byte](s S) uint64 {
	switch n := len(s); {
	case n >= 4:
		lo := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
		hi := uint64(s[n-4]) | uint64(s[n-3])<<8 | uint64(s[n-2])<<16 | uint64(s[n-1])<<24
		return lo | hi<<(8*(n-4))
	case n >= 2:
		return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[n-1])<<(8*(n-1))
	case n == 1:
		return uint64(s[0])
	}
	return 0
}

func (h *hasher) ints(xs []int64) {
	h.int(len(xs))
	for _, x := range xs {
		h.i64(x)
	}
}

func (h *hasher) sum() Hash {
	a := mix(h.a^k3, h.b^k0)
	b := mix(h.b^k2, a^k1)
	return Hash{Hi: a, Lo: b}
}
