package plugin

import (
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

func TestBufferTypes(t *testing.T) {
	seen := map[int32]hlo.DType{}
	for _, dt := range hlo.AllDTypes() {
		b, err := bufferType(dt)
		switch dt {
		case hlo.F6E2M3FN, hlo.F6E3M2FN, hlo.TF32:
			if err == nil {
				t.Errorf("%v maps to PJRT type %d; PJRT has no such buffer type", dt, b)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", dt, err)
			continue
		}
		if prev, dup := seen[b]; dup {
			t.Errorf("%v and %v both map to PJRT type %d", prev, dt, b)
		}
		seen[b] = dt
		back, ok := elementType(b)
		if !ok || back != dt {
			t.Errorf("elementType(bufferType(%v)=%d) = %v, %v", dt, b, back, ok)
		}
	}
	if dt, ok := elementType(bufToken); !ok || dt != hlo.InvalidDType {
		t.Errorf("token maps to %v, %v", dt, ok)
	}
	if _, ok := elementType(200); ok {
		t.Errorf("unknown PJRT type accepted")
	}
}

func TestUnpackSubByte(t *testing.T) {
	// Two 4-bit values per byte, the first in the low nibble.
	dst := make([]byte, 3)
	unpackInto(dst, []byte{0xF7, 0x08}, hlo.I4)
	if want := []byte{7, 0xFF, 0xF8}; string(dst) != string(want) { // 7, -1, -8
		t.Errorf("i4 unpack = %v, want %v", dst, want)
	}
	unpackInto(dst, []byte{0xF7, 0x08}, hlo.U4)
	if want := []byte{7, 15, 8}; string(dst) != string(want) {
		t.Errorf("ui4 unpack = %v, want %v", dst, want)
	}
	d2 := make([]byte, 5)
	unpackInto(d2, []byte{0b11_10_01_00, 0b10}, hlo.I2)
	if want := []byte{0, 1, 0xFE, 0xFF, 0xFE}; string(d2) != string(want) {
		t.Errorf("i2 unpack = %v, want %v", d2, want)
	}
	if packedSize(hlo.I4, 3) != 2 || packedSize(hlo.U2, 5) != 2 || packedSize(hlo.F4E2M1FN, 2) != 1 {
		t.Errorf("packedSize wrong")
	}
	if isSubByte(hlo.Bool) || !isSubByte(hlo.I4) || isSubByte(hlo.I8) {
		t.Errorf("isSubByte wrong")
	}
}
