package hlo

import (
	"errors"
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// TestSizesAgainstBigInt compares CheckedNumElements, ByteSize and
// NumElements with exact big-integer arithmetic on random shapes around
// the int64 boundary.
func TestSizesAgainstBigInt(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	dts := []DType{Bool, I8, F16, F32, F64, C128}
	maxI64 := big.NewInt(math.MaxInt64)
	for i := 0; i < 20000; i++ {
		rank := r.Intn(6)
		dims := make([]int64, rank)
		exact := big.NewInt(1)
		for k := range dims {
			switch r.Intn(4) {
			case 0:
				dims[k] = int64(r.Intn(5))
			case 1:
				dims[k] = 1 << uint(r.Intn(63))
			case 2:
				dims[k] = r.Int63()
			default:
				dims[k] = int64(r.Intn(1 << 20))
			}
			exact.Mul(exact, big.NewInt(dims[k]))
		}
		dt := dts[r.Intn(len(dts))]
		n, ok := CheckedNumElements(dims)
		fits := exact.Cmp(maxI64) <= 0
		if ok != fits || (ok && n != exact.Int64()) {
			t.Fatalf("CheckedNumElements(%v) = %d, %v; exact %s", dims, n, ok, exact)
		}
		if got := NumElements(dims); fits && got != exact.Int64() || !fits && got != math.MaxInt64 {
			t.Fatalf("NumElements(%v) = %d; exact %s", dims, got, exact)
		}
		bytes := new(big.Int).Mul(exact, big.NewInt(int64(dt.Size())))
		b, ok := ByteSize(dt, dims)
		bfits := bytes.Cmp(big.NewInt(maxByteSize)) <= 0
		if ok != bfits || (ok && b != bytes.Int64()) {
			t.Fatalf("ByteSize(%s, %v) = %d, %v; exact %s", dt, dims, b, ok, bytes)
		}
		err := CheckSize(dt, dims)
		var se *SizeError
		if bfits != (err == nil) || (err != nil && !errors.As(err, &se)) {
			t.Fatalf("CheckSize(%s, %v) = %v; exact bytes %s", dt, dims, err, bytes)
		}
		if se != nil && se.Bytes != fits {
			t.Fatalf("CheckSize(%s, %v) = %v: Bytes = %v, element count fits = %v", dt, dims, err, se.Bytes, fits)
		}
	}
}

func TestSizeErrorText(t *testing.T) {
	if err := CheckSize(F32, []int64{1 << 32, 1 << 32, 16}); err == nil || err.Error() != "tensor<4294967296x4294967296x16xf32>: element count overflows int64" {
		t.Errorf("got %v", err)
	}
	if err := CheckSize(F32, []int64{1 << 62}); err == nil || err.Error() != "tensor<4611686018427387904xf32>: byte size overflows int64" {
		t.Errorf("got %v", err)
	}
	if err := CheckSize(F32, []int64{DynamicDim, 1 << 40}); err != nil {
		t.Errorf("dynamic dimensions are skipped: %v", err)
	}
	if n, ok := TypeByteSize(&TupleType{Elems: []Type{NewTensorType(F32, 2, 3), &TokenType{}, NewTensorType(I8, 5)}}); !ok || n != 29 {
		t.Errorf("TypeByteSize(tuple) = %d, %v; want 29", n, ok)
	}
}

func TestNewLiteralSizeOverflowPanics(t *testing.T) {
	defer func() {
		r := recover()
		if e, ok := r.(*LiteralError); !ok || e.Error() != "hlo: NewLiteral: tensor<4294967296x4294967296x16xf32>: element count overflows int64" {
			t.Errorf("recovered %T %v", r, r)
		}
	}()
	NewLiteral(F32, 1<<32, 1<<32, 16)
}
