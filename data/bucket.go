package data

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/xlajit/xlajit/lazy"
)

// Bucket returns the smallest bucket length >= n, or, past the largest, n
// rounded up to a multiple of the largest. Bucket lengths that are not
// positive are ignored (with no positive one, Bucket is n). Padding
// variable-length sequences to a few bucket lengths keeps a compiled step
// to a few traces instead of one per length.
func Bucket(n int, buckets []int) int {
	best, largest := 0, 0
	for _, b := range buckets {
		if b <= 0 {
			continue
		}
		largest = max(largest, b)
		if n <= b && (best == 0 || b < best) {
			best = b
		}
	}
	switch {
	case best > 0:
		return best
	case largest == 0:
		return n
	}
	return (n + largest - 1) / largest * largest
}

// PadSequences packs token sequences into a [B, L] i32 tensor, L the bucket
// of the longest sequence, filling with pad; the mask [B, L] is true on real
// tokens.
func PadSequences(seqs [][]int32, buckets []int, pad int32) (tokens, mask *lazy.Tensor, err error) {
	if len(seqs) == 0 {
		return nil, nil, fmt.Errorf("data.PadSequences: no sequences")
	}
	for i, b := range buckets {
		if b <= 0 {
			return nil, nil, fmt.Errorf("data.PadSequences: bucket %d has length %d (want a positive length)", i, b)
		}
	}
	longest := 0
	for _, s := range seqs {
		longest = max(longest, len(s))
	}
	l := Bucket(max(longest, 1), buckets)
	if hi, lo := bits.Mul64(uint64(len(seqs)), uint64(l)); hi != 0 || lo > math.MaxInt/4 {
		return nil, nil, fmt.Errorf("data.PadSequences: %d sequences of length %d is more elements than a slice holds", len(seqs), l)
	}
	toks := make([]int32, len(seqs)*l)
	m := make([]bool, len(seqs)*l)
	for i, s := range seqs {
		for j := 0; j < l; j++ {
			if j < len(s) {
				toks[i*l+j], m[i*l+j] = s[j], true
			} else {
				toks[i*l+j] = pad
			}
		}
	}
	return lazy.FromSlice(toks, int64(len(seqs)), int64(l)), lazy.FromSlice(m, int64(len(seqs)), int64(l)), nil
}
