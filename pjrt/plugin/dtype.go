package plugin

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
)

// PJRT_Buffer_Type values (pjrt_c_api.h; go-xla's dtypes.DType uses the
// same numbers).
const (
	bufInvalid       = 0
	bufPred          = 1
	bufS8            = 2
	bufS16           = 3
	bufS32           = 4
	bufS64           = 5
	bufU8            = 6
	bufU16           = 7
	bufU32           = 8
	bufU64           = 9
	bufF16           = 10
	bufF32           = 11
	bufF64           = 12
	bufBF16          = 13
	bufC64           = 14
	bufC128          = 15
	bufF8E5M2        = 16
	bufF8E4M3FN      = 17
	bufF8E4M3B11FNUZ = 18
	bufF8E5M2FNUZ    = 19
	bufF8E4M3FNUZ    = 20
	bufS4            = 21
	bufU4            = 22
	bufToken         = 23
	bufS2            = 24
	bufU2            = 25
	bufF8E4M3        = 26
	bufF8E3M4        = 27
	bufF8E8M0FNU     = 28
	bufF4E2M1FN      = 29
)

var toBuf = map[hlo.DType]int32{
	hlo.Bool: bufPred,
	hlo.I2:   bufS2, hlo.I4: bufS4, hlo.I8: bufS8, hlo.I16: bufS16, hlo.I32: bufS32, hlo.I64: bufS64,
	hlo.U2: bufU2, hlo.U4: bufU4, hlo.U8: bufU8, hlo.U16: bufU16, hlo.U32: bufU32, hlo.U64: bufU64,
	hlo.F4E2M1FN: bufF4E2M1FN,
	hlo.F8E3M4:   bufF8E3M4, hlo.F8E4M3: bufF8E4M3, hlo.F8E4M3FN: bufF8E4M3FN, hlo.F8E4M3FNUZ: bufF8E4M3FNUZ,
	hlo.F8E4M3B11FNUZ: bufF8E4M3B11FNUZ, hlo.F8E5M2: bufF8E5M2, hlo.F8E5M2FNUZ: bufF8E5M2FNUZ, hlo.F8E8M0FNU: bufF8E8M0FNU,
	hlo.BF16: bufBF16, hlo.F16: bufF16, hlo.F32: bufF32, hlo.F64: bufF64,
	hlo.C64: bufC64, hlo.C128: bufC128,
}

var fromBuf = func() map[int32]hlo.DType {
	m := make(map[int32]hlo.DType, len(toBuf))
	for d, b := range toBuf {
		m[b] = d
	}
	return m
}()

// bufferType maps an element type to its PJRT buffer type. f6E2M3FN,
// f6E3M2FN and tf32 have none: PJRT cannot hold them in a buffer.
func bufferType(dt hlo.DType) (int32, error) {
	if b, ok := toBuf[dt]; ok {
		return b, nil
	}
	return 0, fmt.Errorf("element type %v has no PJRT buffer type", dt)
}

// elementType maps a PJRT buffer type back. Tokens map to InvalidDType with
// ok=true (the caller represents them as empty i1 arrays, as pjrt/host does).
func elementType(b int32) (hlo.DType, bool) {
	if b == bufToken {
		return hlo.InvalidDType, true
	}
	d, ok := fromBuf[b]
	return d, ok
}

// packedSize is the byte size of n sub-byte elements stored densely, the
// layout some plugins use on the host side; hlo literals use one byte per
// element.
func packedSize(dt hlo.DType, n int) int {
	return (n*dt.Bits() + 7) / 8
}

// unpackInto expands densely packed sub-byte elements (little-endian bit
// order within a byte, as XLA packs them) into one byte per element, sign
// extending signed integer types.
func unpackInto(dst []byte, packed []byte, dt hlo.DType) {
	bits := dt.Bits()
	mask := byte(1<<bits - 1)
	per := 8 / bits
	for i := range dst {
		v := (packed[i/per] >> (uint(i%per) * uint(bits))) & mask
		if dt.IsSigned() && v&(1<<(bits-1)) != 0 {
			v |= ^mask
		}
		dst[i] = v
	}
}

// isSubByte reports whether dt is stored in fewer than 8 bits by XLA.
func isSubByte(dt hlo.DType) bool {
	return dt != hlo.Bool && dt.Bits() < 8
}
