package host

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// litBox holds a literal and up to four dimensions in one allocation.
type litBox struct {
	lit  hlo.Literal
	dims [4]int64
}

// smallBytes is the largest payload stored inside its literal's allocation.
const smallBytes = 32

// smallLitBox is a litBox with room for a small payload. The header takes
// 88 bytes and the padding puts data at offset 96: Go allocates objects of
// this size (128 bytes) at 16-byte aligned addresses, so data keeps the
// 16-byte alignment of hlo.AlignedBytes.
type smallLitBox struct {
	litBox
	_    [8]byte
	data [smallBytes]byte
}

// allocLiteral returns a literal of dtype dt and shape dims with
// unspecified contents: recycled from the execution's pool when it has
// storage of that size, else newly allocated in one allocation (small
// payloads) or two.
func allocLiteral(x *kernel.Ctx, dt hlo.DType, dims []int64) *hlo.Literal {
	if l := x.Pool.Get(dt, dims); l != nil {
		return l
	}
	if len(dims) > 4 {
		return hlo.NewLiteral(dt, dims...)
	}
	n := int(hlo.NumElements(dims)) * dt.Size()
	var b *litBox
	if n <= smallBytes {
		s := &smallLitBox{}
		b = &s.litBox
		b.lit.Data = s.data[:n:n]
	} else {
		b = &litBox{}
		b.lit.Data = hlo.AlignedBytes(n)
	}
	k := copy(b.dims[:], dims)
	b.lit.DType = dt
	b.lit.Dims = b.dims[:k:k]
	return &b.lit
}
