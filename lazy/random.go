package lazy

import (
	"math"
	"sync"

	"github.com/xlajit/xlajit/hlo"
)

// DefaultSeed is the RNG seed of a device before ManualSeed.
const DefaultSeed = 0

// rngState returns the device's RNG state tensor (u64[2]: seed, counter),
// creating it from DefaultSeed on first use. Callers hold d.rngMu.
func (d *Device) rngState() *Tensor {
	if d.rng == nil {
		d.rng = uploadLiteral(d, seedLiteral(DefaultSeed))
	}
	return d.rng
}

// RNGState returns the device's RNG state tensor (the jit treats it as a
// mutated input of every traced function that draws random numbers).
func (d *Device) RNGState() *Tensor {
	needDevice("RNGState", d)
	d.rngMu.Lock()
	defer d.rngMu.Unlock()
	return d.rngState()
}

// ManualSeed resets the default device's RNG.
func ManualSeed(seed uint64) { DefaultDevice().ManualSeed(seed) }

// ManualSeed resets d's RNG to seed. The state lives on the device; each
// random op advances it there (no host round trip).
func (d *Device) ManualSeed(seed uint64) {
	needDevice("ManualSeed", d)
	d.rngMu.Lock()
	defer d.rngMu.Unlock()
	st := FromLiteralOn(d, seedLiteral(seed))
	if Tracing() {
		// Assign, so the trace records the write like any mutation (on
		// the device's state tensor, made first if the device has never
		// drawn: a tensor the traced function made would count as its
		// own, and its writes would be undone with the trace).
		d.rngState().Assign(st)
		return
	}
	if d.rng == nil {
		d.rng = st
		return
	}
	d.rng.restore(st.state())
}

// randomBits draws dims random bits of type dt (u32 or u64), advancing the
// device's RNG state. On a shadow device it only checks shapes.
func (d *Device) randomBits(dt DType, dims []int64) *Tensor {
	attrs := Attrs{{"dtype", dt}, {"dims", append([]int64(nil), dims...)}}
	if d.dryOf != nil {
		return dryApply(table[opRngBits], attrs, []Shape{{DType: U64, Dims: []int64{2}}}, d)[1]
	}
	d.rngMu.Lock()
	defer d.rngMu.Unlock()
	st := d.rngState()
	outs := apply(opRngBits, attrs, st)
	st.Assign(outs[0])
	return outs[1]
}

// RandUniform returns values uniform in [lo, hi) on the default device
// (lo == hi gives lo).
func RandUniform(dt DType, lo, hi float64, dims ...int64) *Tensor {
	checkUniform(dt, lo, hi, dims)
	return RandUniformOn(DefaultDevice(), dt, lo, hi, dims...)
}

// uniformBits is the number of random bits a uniform draw of dt uses: as
// many as dt's significand holds (f64 53, f32 24, f16 11, bf16 8), so every
// value is exact in dt and none rounds up to 1.
var uniformBits = map[DType]int{F64: 53, F32: 24, F16: 11, BF16: 8}

// checkUniform checks RandUniform's arguments before any RNG state is
// touched: a floating-point dtype it can draw, finite lo <= hi whose
// difference is finite, valid dims.
func checkUniform(dt DType, lo, hi float64, dims []int64) {
	if _, ok := uniformBits[dt]; !ok {
		throw("RandUniform", nil, "needs a floating-point dtype (f64, f32, f16, bf16), got %v", dt)
	}
	needFinite("RandUniform", nil, "lo and hi", lo, hi)
	if lo > hi {
		throw("RandUniform", nil, "lo = %v is above hi = %v", lo, hi)
	}
	if d := hi - lo; math.IsInf(d, 0) || math.IsInf(hlo.ScalarLiteral(dt, d).Float(0), 0) {
		throw("RandUniform", nil, "hi - lo = %v overflows %s", d, dt)
	}
	needDims("RandUniform", nil, dt, dims)
}

// RandUniformOn is RandUniform on dev.
func RandUniformOn(dev *Device, dt DType, lo, hi float64, dims ...int64) *Tensor {
	needDevice("RandUniform", dev)
	checkUniform(dt, lo, hi, dims)
	var u *Tensor
	if dt == F64 {
		bits := dev.randomBits(U64, dims)
		u = bits.rawBinary(opDiv, FullOn(dev, U64, 2048)).Cast(F64).MulScalar(math.Ldexp(1, -53))
	} else {
		keep := uniformBits[dt]
		bits := dev.randomBits(U32, dims)
		u = bits.rawBinary(opDiv, FullOn(dev, U32, math.Ldexp(1, 32-keep))).Cast(F32).MulScalar(math.Ldexp(1, -keep))
	}
	if lo == hi {
		return u.MulScalar(0).AddScalar(lo).Cast(dt)
	}
	if lo != 0 || hi != 1 {
		// lo + u*(hi-lo) can round up to hi: clamp to the last value below.
		u = u.MulScalar(hi - lo).AddScalar(lo).Cast(dt).MinScalar(largestBelow(dt, hi))
	}
	return u.Cast(dt)
}

// largestBelow is the largest value of dt that is < hi.
func largestBelow(dt DType, hi float64) float64 {
	l := hlo.ScalarLiteral(dt, hi)
	if v := l.Float(0); v < hi {
		return v
	}
	b, sign := l.Bits(0), uint64(1)<<(dt.Bits()-1)
	switch {
	case b == 0: // +0: the negative smallest subnormal
		b = sign | 1
	case b&sign == 0:
		b--
	default:
		b++
	}
	l.SetBits(0, b)
	return l.Float(0)
}

// RandN returns standard normal values on the default device.
func RandN(dt DType, dims ...int64) *Tensor {
	checkNormal(dt, dims)
	return RandNOn(DefaultDevice(), dt, dims...)
}

func checkNormal(dt DType, dims []int64) {
	if _, ok := uniformBits[dt]; !ok {
		throw("RandN", nil, "needs a floating-point dtype (f64, f32, f16, bf16), got %v", dt)
	}
	needDims("RandN", nil, dt, dims)
}

// RandNOn is RandN on dev (Box-Muller over two uniform draws, computed in
// f32 or f64).
func RandNOn(dev *Device, dt DType, dims ...int64) *Tensor {
	needDevice("RandN", dev)
	checkNormal(dt, dims)
	ct := F32
	if dt == F64 {
		ct = F64
	}
	u1 := RandUniformOn(dev, ct, 0, 1, dims...)
	u2 := RandUniformOn(dev, ct, 0, 1, dims...)
	r := u1.Neg().Log1p().MulScalar(-2).Sqrt() // sqrt(-2 ln(1-u1)), finite since u1 < 1
	return r.Mul(u2.MulScalar(2 * math.Pi).Cos()).Cast(dt)
}

func seedLiteral(seed uint64) *hlo.Literal { return hlo.LiteralFromSlice([]uint64{seed, 0}) }

// RNGLock returns the mutex that guards d's RNG state. A program that reads
// and writes the state (a replayed jit trace with random ops) holds it
// while it runs, so concurrent replays draw distinct numbers without a race.
func (d *Device) RNGLock() *sync.Mutex { return &d.rngMu }

// pendingRNGState returns d's RNG state tensor, with d.rngMu held, when it
// is pending and g (a cut's graph, of the tensors in cut) draws random
// numbers; else nil. Inside a trace, or while another caller holds the
// lock (a random op being recorded), it returns nil.
func (d *Device) pendingRNGState(g *Graph, cut map[*Tensor]bool) *Tensor {
	if !g.rng || Tracing() || !d.rngMu.TryLock() {
		return nil
	}
	if st := d.rng; st != nil && st.data == nil && !cut[st] {
		return st
	}
	d.rngMu.Unlock()
	return nil
}
