package linalg

import (
	"math/bits"
	"sync"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// rng_bit_generator, bit-exact with XLA's CPU backend, which expands the op
// (RngBitGeneratorExpander, DEFAULT = PHILOX) into the generators of
// xla/hlo/builder/lib/prng.cc:
//
//   - state[0] is the key of both algorithms, passed through unchanged.
//   - THREE_FRY: Threefry-2x32 with 20 rounds; state[1] is a 64-bit counter.
//     64-bit outputs take one counter each (low word from the first output).
//     Narrower outputs split the shape in two along its first even dimension
//     (or its largest one): element 2h+c of that dimension is output c of
//     the counter of half-shape index h. The counter advances by the number
//     of counters used.
//   - PHILOX: Philox-4x32 with 10 rounds; the counter is 128 bits, (state[1],
//     state[2]) for a 3-word state and (state[1], state[0]) for a 2-word one
//     (only its low word is written back). Each counter gives four 32-bit
//     outputs (or two 64-bit ones) used in order.
//   - Outputs narrower than 32 bits keep the low bits of 32-bit values.
//   - The state is 64-bit words (ui64, or i64 with the same bits). IREE
//     also takes a state of four 32-bit elements, the only implementation
//     that does; it is read as IREE reads it: the key is s[0] | s[1]<<32,
//     the counter s[2]<<32 | s[3] (high half first), and the new counter
//     is written back low half first (s[2] low, s[3] high).

func init() {
	kernel.Register(kernel.Entry{Name: "stablehlo.rng_bit_generator", Compile: compileRngBitGenerator, Fresh: true})
}

func compileRngBitGenerator(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) != 1 || len(c.Out) != 2 {
		return nil, c.Errorf("expects 1 operand and 2 results, has %d and %d", len(c.In), len(c.Out))
	}
	st, err := tensorIn(c, 0)
	if err != nil {
		return nil, err
	}
	ost, err := tensorOut(c, 0)
	if err != nil {
		return nil, err
	}
	ot, err := tensorOut(c, 1)
	if err != nil {
		return nil, err
	}
	algo, err := enumAttr(c, "rng_algorithm", "DEFAULT")
	if err != nil {
		return nil, err
	}
	if algo == "DEFAULT" {
		algo = "PHILOX"
	}
	sw := st.DType.Bits()
	if st.Rank() != 1 || !ost.Equal(st) || !st.IsStatic() || st.DType.IsBool() || st.DType.IsComplex() || sw != 64 && sw != 32 {
		return nil, c.Errorf("initial state %s and output state %s must be the same 1-D tensor of 64-bit words (ui64), or IREE's four 32-bit elements", st.ShapeString(), ost.ShapeString())
	}
	narrow := sw == 32
	words := st.Dims[0]
	switch {
	case narrow && st.Dims[0] != 4:
		return nil, c.Errorf("a state of 32-bit elements must have 4 (two 64-bit words), got %s", st.ShapeString())
	case narrow:
		words = 2
	}
	switch algo {
	case "THREE_FRY":
		if words != 2 {
			return nil, c.Errorf("THREE_FRY needs a state of 2 words, got %s", st.ShapeString())
		}
	case "PHILOX":
		if words != 2 && words != 3 {
			return nil, c.Errorf("PHILOX needs a state of 2 or 3 words, got %s", st.ShapeString())
		}
	default:
		return nil, c.Errorf("unknown rng_algorithm %q", algo)
	}
	width := ot.DType.Bits()
	if ot.DType.IsBool() || ot.DType.IsComplex() || ot.DType == hlo.TF32 || width > 64 || width < 2 {
		return nil, c.Errorf("output %s: element type must be an integer or float of 2 to 64 bits", ot.ShapeString())
	}
	nw := int(words)
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		sl, err := argLiteral(c, args, 0)
		if err != nil {
			return err
		}
		var state [3]uint64
		if narrow {
			state[0] = sl.Bits(0) | sl.Bits(1)<<32
			state[1] = sl.Bits(2)<<32 | sl.Bits(3)
		} else {
			for k := range nw {
				state[k] = sl.Bits(k)
			}
		}
		out := x.NewLiteralUninit(ot.DType, ot.Dims)
		j := rngJobs.Get().(*rngJob)
		j.vals = grow(j.vals, int(out.NumElements()))
		if algo == "THREE_FRY" {
			state[1] = j.threeFry(state, ot.Dims, width)
		} else {
			state = j.philox(state, nw, width)
		}
		storeBits(out, j.vals)
		if cap(j.vals) > rngKeepWords {
			j.vals = nil // a pooled job keeps at most rngKeepWords
		}
		rngJobs.Put(j)
		so := x.NewLiteralUninit(ost.DType, ost.Dims)
		if narrow {
			for k := 0; k < 2; k++ {
				so.SetBits(k, sl.Bits(k))
			}
			so.SetBits(2, state[1]&0xFFFFFFFF)
			so.SetBits(3, state[1]>>32)
		} else {
			for k := range nw {
				so.SetBits(k, state[k])
			}
		}
		results[0], results[1] = so, out
		return nil
	}, nil
}

// storeBits writes raw random words into l, keeping the low bits of each
// (signed sub-byte integers sign-extend as their storage requires).
func storeBits(l *hlo.Literal, vals []uint64) {
	dt := l.DType
	w := dt.Bits()
	switch {
	case w == 64:
		copy(l.U64(), vals)
	case w == 32:
		d := l.U32()
		for i, v := range vals {
			d[i] = uint32(v)
		}
	case w == 16:
		d := l.U16()
		for i, v := range vals {
			d[i] = uint16(v)
		}
	case dt.IsInt():
		for i, v := range vals {
			l.SetInt(i, hlo.WrapInt(dt, int64(v&(1<<w-1))))
		}
	default: // 8-bit and smaller floats: the raw bit pattern
		for i, v := range vals {
			l.Data[i] = byte(v & (1<<w - 1))
		}
	}
}

func threeFry2x32(k0, k1, x0, x1 uint32) (uint32, uint32) {
	ks2 := 0x1BD11BDA ^ k0 ^ k1
	ks := [3]uint32{k0, k1, ks2}
	rot := [2][4]int{{13, 15, 26, 6}, {17, 29, 16, 24}}
	x0 += k0
	x1 += k1
	for i := 0; i < 5; i++ {
		for _, r := range rot[i%2] {
			x0 += x1
			x1 = bits.RotateLeft32(x1, r)
			x1 ^= x0
		}
		x0 += ks[(i+1)%3]
		x1 += ks[(i+2)%3] + uint32(i+1)
	}
	return x0, x1
}

// rngJob fills vals with a generator's words, in chunks on the kernel's
// workers. Jobs are pooled with their chunk function bound once and keep
// their words' storage, so that a replay allocates nothing for them.
type rngJob struct {
	isPhilox bool
	k0, k1   uint32
	// ctr is Threefry's counter; Philox's is (ctr, hi), per outputs each.
	ctr, hi uint64
	per     int
	// Threefry: wide takes one counter per (64-bit) output; otherwise the
	// output splits along a dimension of d elements (hd halves) with
	// inner elements past it (see threeFry).
	wide         bool
	inner, d, hd int
	vals         []uint64
	fn           func(lo, hi int)
}

// rngKeepWords is the most words a pooled job keeps for the next one.
const rngKeepWords = 1 << 20

var rngJobs = sync.Pool{New: func() any {
	j := new(rngJob)
	j.fn = j.run
	return j
}}

// threeFry fills j.vals (shape dims, outputs of width bits) from state and
// returns the new counter.
func (j *rngJob) threeFry(state [3]uint64, dims []int64, width int) uint64 {
	j.isPhilox, j.wide = false, width > 32
	j.k0, j.k1 = uint32(state[0]), uint32(state[0]>>32)
	j.ctr = state[1]
	vals := j.vals
	if j.wide {
		parallelRange(len(vals), j.fn)
		return j.ctr + uint64(len(vals))
	}
	if len(dims) == 0 {
		a, _ := threeFry2x32(j.k0, j.k1, uint32(j.ctr), uint32(j.ctr>>32))
		vals[0] = uint64(a)
		return j.ctr + 1
	}
	split := -1
	for i, d := range dims {
		if d%2 == 0 {
			split = i
			break
		}
	}
	if split < 0 {
		for i, d := range dims {
			if split < 0 || d > dims[split] {
				split = i
			}
		}
	}
	// Element index = (outer*d + 2h + c)*inner + j; its counter is the
	// half-shape index (outer*hd + h)*inner + j.
	j.inner = int(hlo.NumElements(dims[split+1:]))
	j.d, j.hd = int(dims[split]), int((dims[split]+1)/2)
	outer := int(hlo.NumElements(dims[:split]))
	parallelRange(len(vals), j.fn)
	return j.ctr + uint64(outer*j.hd*j.inner)
}

// philox fills j.vals (outputs of width bits) from a state of words words
// and returns the new state.
func (j *rngJob) philox(state [3]uint64, words, width int) [3]uint64 {
	j.isPhilox = true
	j.k0, j.k1 = uint32(state[0]), uint32(state[0]>>32)
	j.ctr, j.hi = state[1], state[0]
	if words >= 3 {
		j.hi = state[2]
	}
	j.per = 4 // outputs per counter
	if width > 32 {
		j.per = 2
	}
	counters := (len(j.vals) + j.per - 1) / j.per
	parallelRange(counters, j.fn)
	nl, carry := bits.Add64(j.ctr, uint64(counters), 0)
	state[1] = nl
	if words >= 3 {
		state[2] = j.hi + carry
	}
	return state
}

// run fills the chunk [lo, hi) of the job: outputs, or Philox's counters.
func (j *rngJob) run(lo, hi int) {
	k0, k1, ctr, vals := j.k0, j.k1, j.ctr, j.vals
	switch {
	case j.isPhilox:
		per := j.per
		for c := lo; c < hi; c++ {
			l, carry := bits.Add64(ctr, uint64(c), 0)
			h := j.hi + carry
			o := philox4x32([4]uint32{uint32(l), uint32(l >> 32), uint32(h), uint32(h >> 32)}, k0, k1)
			base := c * per
			if per == 4 {
				for q := 0; q < 4 && base+q < len(vals); q++ {
					vals[base+q] = uint64(o[q])
				}
			} else {
				vals[base] = uint64(o[0]) | uint64(o[1])<<32
				if base+1 < len(vals) {
					vals[base+1] = uint64(o[2]) | uint64(o[3])<<32
				}
			}
		}
	case j.wide:
		for i := lo; i < hi; i++ {
			c := ctr + uint64(i)
			a, b := threeFry2x32(k0, k1, uint32(c), uint32(c>>32))
			vals[i] = uint64(a) | uint64(b)<<32
		}
	default:
		inner, d, hd := j.inner, j.d, j.hd
		for i := lo; i < hi; i++ {
			e := i % inner
			t := i / inner
			s := t % d
			outer := t / d
			c := ctr + uint64((outer*hd+s/2)*inner+e)
			a, b := threeFry2x32(k0, k1, uint32(c), uint32(c>>32))
			if s%2 == 0 {
				vals[i] = uint64(a)
			} else {
				vals[i] = uint64(b)
			}
		}
	}
}

func philox4x32(ctr [4]uint32, k0, k1 uint32) [4]uint32 {
	for r := 0; r < 10; r++ {
		hi0, lo0 := bits.Mul32(ctr[0], 0xD2511F53)
		hi1, lo1 := bits.Mul32(ctr[2], 0xCD9E8D57)
		ctr = [4]uint32{hi1 ^ ctr[1] ^ k0, lo1, hi0 ^ ctr[3] ^ k1, lo0}
		k0 += 0x9E3779B9
		k1 += 0xBB67AE85
	}
	return ctr
}

func parallelRange(n int, fn func(lo, hi int)) {
	kernel.ParallelFor(n, 8192, fn)
}
