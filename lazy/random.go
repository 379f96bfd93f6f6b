package lazy

import (
	"math"

	"github.com/xlajit/xlajit/hlo"
)

// DefaultSeed is the RNG seed of a device before ManualSeed.
const DefaultSeed = 0

// rngState returns the device's RNG state tensor (u64[2]: seed, counter),
// creating it from DefaultSeed on first use. Callers hold d.rngMu.
func (d *Device) rngState() *Tensor {
	if d.rng == nil {
		d.rng = FromLiteralOn(d, seedLiteral(DefaultSeed))
	}
	return d.rng
}

// RNGState returns the device's RNG state tensor (the jit treats it as a
// mutated input of every traced function that draws random numbers).
func (d *Device) RNGState() *Tensor {
	d.rngMu.Lock()
	defer d.rngMu.Unlock()
	return d.rngState()
}

// ManualSeed resets the default device's RNG.
func ManualSeed(seed uint64) { DefaultDevice().ManualSeed(seed) }

// ManualSeed resets d's RNG to seed. The state lives on the device; each
// random op advances it there (no host round trip).
func (d *Device) ManualSeed(seed uint64) {
	d.rngMu.Lock()
	defer d.rngMu.Unlock()
	st := FromLiteralOn(d, seedLiteral(seed))
	if d.rng == nil {
		d.rng = st
		return
	}
	if Tracing() {
		// Assign, so the trace records the write like any mutation.
		d.rng.Assign(st)
		return
	}
	d.rng.Restore(st.State())
}

// randomBits draws dims random bits of type dt (u32 or u64), advancing the
// device's RNG state.
func (d *Device) randomBits(dt DType, dims []int64) *Tensor {
	d.rngMu.Lock()
	defer d.rngMu.Unlock()
	st := d.rngState()
	outs := apply(opRngBits, Attrs{{"dtype", dt}, {"dims", append([]int64(nil), dims...)}}, st)
	st.Assign(outs[0])
	return outs[1]
}

// RandUniform returns values uniform in [lo, hi) on the default device.
func RandUniform(dt DType, lo, hi float64, dims ...int64) *Tensor {
	return RandUniformOn(DefaultDevice(), dt, lo, hi, dims...)
}

// RandUniformOn is RandUniform on dev.
func RandUniformOn(dev *Device, dt DType, lo, hi float64, dims ...int64) *Tensor {
	var u *Tensor
	switch dt {
	case F64:
		bits := dev.randomBits(U64, dims)
		u = bits.Div(FullOn(dev, U64, 2048)).Cast(F64).MulScalar(math.Ldexp(1, -53))
	case F32, F16, BF16:
		bits := dev.randomBits(U32, dims)
		u = bits.Div(FullOn(dev, U32, 256)).Cast(F32).MulScalar(math.Ldexp(1, -24)).Cast(dt)
	default:
		throw("RandUniform", nil, "needs a floating-point dtype, got %s", dt)
	}
	if lo != 0 || hi != 1 {
		u = u.MulScalar(hi - lo).AddScalar(lo)
	}
	return u
}

// RandN returns standard normal values on the default device.
func RandN(dt DType, dims ...int64) *Tensor { return RandNOn(DefaultDevice(), dt, dims...) }

// RandNOn is RandN on dev (Box-Muller over two uniform draws, computed in
// f32 or f64).
func RandNOn(dev *Device, dt DType, dims ...int64) *Tensor {
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
