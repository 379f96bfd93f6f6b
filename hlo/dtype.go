package hlo

import "fmt"

// DType is a StableHLO element type.
//
// Storage (see Literal): every element occupies Size() bytes, little endian.
// Sub-byte integer types (i2, i4, ui2, ui4) use one byte per element, signed
// ones sign-extended. Small floats (f4, f6, f8) use one byte holding their raw
// bit pattern in the low bits. i1 is one byte, 0 or 1 (a Go bool).
type DType uint8

// Element types, in the order the StableHLO spec lists them.
const (
	InvalidDType DType = iota
	Bool               // i1
	I2
	I4
	I8
	I16
	I32
	I64
	U2
	U4
	U8
	U16
	U32
	U64
	F4E2M1FN
	F6E2M3FN
	F6E3M2FN
	F8E3M4
	F8E4M3
	F8E4M3FN
	F8E4M3FNUZ
	F8E4M3B11FNUZ
	F8E5M2
	F8E5M2FNUZ
	F8E8M0FNU
	BF16
	F16
	F32
	F64
	TF32
	C64  // complex<f32>
	C128 // complex<f64>
	numDTypes
)

type dtypeInfo struct {
	name  string // MLIR spelling
	size  int    // storage bytes per element
	bits  int    // logical bit width
	class dclass
}

type dclass uint8

const (
	classInvalid dclass = iota
	classBool
	classSigned
	classUnsigned
	classFloat
	classComplex
)

var dtypeTable = [numDTypes]dtypeInfo{
	InvalidDType:  {"invalid", 0, 0, classInvalid},
	Bool:          {"i1", 1, 1, classBool},
	I2:            {"i2", 1, 2, classSigned},
	I4:            {"i4", 1, 4, classSigned},
	I8:            {"i8", 1, 8, classSigned},
	I16:           {"i16", 2, 16, classSigned},
	I32:           {"i32", 4, 32, classSigned},
	I64:           {"i64", 8, 64, classSigned},
	U2:            {"ui2", 1, 2, classUnsigned},
	U4:            {"ui4", 1, 4, classUnsigned},
	U8:            {"ui8", 1, 8, classUnsigned},
	U16:           {"ui16", 2, 16, classUnsigned},
	U32:           {"ui32", 4, 32, classUnsigned},
	U64:           {"ui64", 8, 64, classUnsigned},
	F4E2M1FN:      {"f4E2M1FN", 1, 4, classFloat},
	F6E2M3FN:      {"f6E2M3FN", 1, 6, classFloat},
	F6E3M2FN:      {"f6E3M2FN", 1, 6, classFloat},
	F8E3M4:        {"f8E3M4", 1, 8, classFloat},
	F8E4M3:        {"f8E4M3", 1, 8, classFloat},
	F8E4M3FN:      {"f8E4M3FN", 1, 8, classFloat},
	F8E4M3FNUZ:    {"f8E4M3FNUZ", 1, 8, classFloat},
	F8E4M3B11FNUZ: {"f8E4M3B11FNUZ", 1, 8, classFloat},
	F8E5M2:        {"f8E5M2", 1, 8, classFloat},
	F8E5M2FNUZ:    {"f8E5M2FNUZ", 1, 8, classFloat},
	F8E8M0FNU:     {"f8E8M0FNU", 1, 8, classFloat},
	BF16:          {"bf16", 2, 16, classFloat},
	F16:           {"f16", 2, 16, classFloat},
	F32:           {"f32", 4, 32, classFloat},
	F64:           {"f64", 8, 64, classFloat},
	TF32:          {"tf32", 4, 19, classFloat},
	C64:           {"complex<f32>", 8, 64, classComplex},
	C128:          {"complex<f64>", 16, 128, classComplex},
}

var dtypeByName = func() map[string]DType {
	m := make(map[string]DType, numDTypes)
	for i := DType(1); i < numDTypes; i++ {
		m[dtypeTable[i].name] = i
	}
	// Explicitly signed spellings are accepted as aliases of the signless ones.
	for _, s := range []string{"i2", "i4", "i8", "i16", "i32", "i64"} {
		m["s"+s] = m[s]
	}
	return m
}()

// DTypeByName returns the element type spelled name in MLIR ("f32",
// "complex<f64>", "ui8", ...), or false.
func DTypeByName(name string) (DType, bool) {
	d, ok := dtypeByName[name]
	return d, ok
}

// AllDTypes lists every valid element type.
func AllDTypes() []DType {
	out := make([]DType, 0, numDTypes-1)
	for i := DType(1); i < numDTypes; i++ {
		out = append(out, i)
	}
	return out
}

func (d DType) info() *dtypeInfo {
	if d >= numDTypes {
		return &dtypeTable[InvalidDType]
	}
	return &dtypeTable[d]
}

// String returns the MLIR spelling of d.
func (d DType) String() string {
	if d >= numDTypes {
		return fmt.Sprintf("dtype(%d)", uint8(d))
	}
	return d.info().name
}

// Size is the number of storage bytes per element.
func (d DType) Size() int { return d.info().size }

// Bits is the logical bit width of one element (1 for i1, 4 for i4, 64 for
// complex<f32>).
func (d DType) Bits() int { return d.info().bits }

// Valid reports whether d is a real element type.
func (d DType) Valid() bool { return d > InvalidDType && d < numDTypes }

// IsBool reports whether d is i1.
func (d DType) IsBool() bool { return d.info().class == classBool }

// IsInt reports whether d is a signed or unsigned integer type (not i1).
func (d DType) IsInt() bool {
	c := d.info().class
	return c == classSigned || c == classUnsigned
}

// IsSigned reports whether d is a signed integer type.
func (d DType) IsSigned() bool { return d.info().class == classSigned }

// IsUnsigned reports whether d is an unsigned integer type.
func (d DType) IsUnsigned() bool { return d.info().class == classUnsigned }

// IsFloat reports whether d is a real floating-point type.
func (d DType) IsFloat() bool { return d.info().class == classFloat }

// IsComplex reports whether d is complex<f32> or complex<f64>.
func (d DType) IsComplex() bool { return d.info().class == classComplex }

// ComplexPart returns the element type of the real and imaginary parts of a
// complex type (F32 for C64, F64 for C128), or InvalidDType.
func (d DType) ComplexPart() DType {
	switch d {
	case C64:
		return F32
	case C128:
		return F64
	}
	return InvalidDType
}

// ComplexOf returns the complex type whose parts are d, or InvalidDType.
func ComplexOf(d DType) DType {
	switch d {
	case F32:
		return C64
	case F64:
		return C128
	}
	return InvalidDType
}
