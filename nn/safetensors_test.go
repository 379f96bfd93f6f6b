package nn

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt/host"
)

func TestSafetensorsRoundTrip(t *testing.T) {
	ts := map[string]*lazy.Tensor{
		"a.f32":  lazy.FromSlice([]float32{1, -2, 3.5, 4}, 2, 2),
		"b.f64":  lazy.FromSlice([]float64{1e-300}, 1),
		"c.i64":  lazy.FromSlice([]int64{-1, 1 << 40}),
		"d.i32":  lazy.Full(lazy.I32, 7),
		"e.bool": lazy.FromSlice([]bool{true, false, true}),
		"f.u8":   lazy.FromSlice([]uint8{0, 255}),
		"g.bf16": lazy.FromSlice([]float32{1.5, -3}).Cast(lazy.BF16),
		"h.f16":  lazy.FromSlice([]float32{0.25, 1000}).Cast(lazy.F16),
		"empty":  lazy.Zeros(lazy.F32, 0, 3),
	}
	path := filepath.Join(t.TempDir(), "x.safetensors")
	if err := SaveTensors(path, ts, map[string]string{"epoch": "3"}); err != nil {
		t.Fatal(err)
	}
	lits, meta, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if meta["epoch"] != "3" || len(lits) != len(ts) {
		t.Fatalf("metadata %v, %d tensors", meta, len(lits))
	}
	dst := map[string]*lazy.Tensor{}
	for n, x := range ts {
		dst[n] = lazy.ZerosLike(x)
	}
	if err := LoadTensors(path, dst); err != nil {
		t.Fatal(err)
	}
	for n, x := range ts {
		want, _ := x.Literal()
		got, _ := dst[n].Literal()
		if !want.Equal(got) {
			t.Errorf("%s: %v after the round trip, want %v", n, dst[n], x)
		}
	}
	// The file's data section starts 8-aligned, as the format asks.
	b, _ := os.ReadFile(path)
	if n := binary.LittleEndian.Uint64(b); n%8 != 0 {
		t.Errorf("header length %d is not a multiple of 8", n)
	}
}

// TestLoadMismatchListsEverything loads a file into tensors that differ in
// every way: one error lists the missing and unexpected names and the
// shape and dtype differences, and no tensor changes.
func TestLoadMismatchListsEverything(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.safetensors")
	src := map[string]*lazy.Tensor{"w": lazy.Ones(lazy.F32, 2, 3), "b": lazy.Ones(lazy.F32, 3), "extra": lazy.Ones(lazy.F32, 1), "k": lazy.Ones(lazy.F32, 2)}
	if err := SaveTensors(path, src, nil); err != nil {
		t.Fatal(err)
	}
	dst := map[string]*lazy.Tensor{"w": lazy.Zeros(lazy.F32, 3, 2), "b": lazy.Zeros(lazy.F32, 3), "k": lazy.Zeros(lazy.F64, 2), "gone": lazy.Zeros(lazy.F32, 4)}
	err := LoadTensors(path, dst)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"missing from the file: gone f32[4]", "not in the model: extra f32[1]", "w: model f32[3,2], file f32[2,3]", "k: model f64[2], file f32[2]"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if !slices.Equal(dst["b"].Float32s(), []float32{0, 0, 0}) {
		t.Error("a failed load wrote a tensor")
	}
}

func stFile(header string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(header)))
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}

func TestReadSafetensorsRejectsBadFiles(t *testing.T) {
	cases := map[string]struct {
		file []byte
		want string
	}{
		"short":        {[]byte{1, 2}, "too short"},
		"huge header":  {stFile("{}", nil)[:8], "header length"},
		"not json":     {stFile("[1]", nil), "not a JSON object"},
		"bad dtype":    {stFile(`{"a":{"dtype":"Q8","shape":[1],"data_offsets":[0,1]}}`, []byte{0}), "unsupported dtype"},
		"size":         {stFile(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, make([]byte, 4)), "needs 8 bytes"},
		"gap":          {stFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, make([]byte, 2)), "gap or overlap"},
		"overlap":      {stFile(`{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}`, make([]byte, 3)), "gap or overlap"},
		"trailing":     {stFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, make([]byte, 2)), "cover 1 data bytes"},
		"past the end": {stFile(`{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}}`, make([]byte, 2)), "cover 4 data bytes"},
		"negative dim": {stFile(`{"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}}`, nil), "bad shape"},
		"bad bool":     {stFile(`{"a":{"dtype":"BOOL","shape":[1],"data_offsets":[0,1]}}`, []byte{7}), "bool element"},
		"unknown key":  {stFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":1}}`, []byte{1}), "unknown field"},
		"bad metadata": {stFile(`{"__metadata__":{"a":1}}`, nil), "__metadata__"},
	}
	cases["huge header"].file[0] = 0xff
	for name, c := range cases {
		_, _, err := ReadSafetensors(c.file)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
}

// FuzzReadSafetensors: any bytes give an error or tensors that write back
// and read again to the same thing; never a panic.
func FuzzReadSafetensors(f *testing.F) {
	f.Add(stFile(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"__metadata__":{"k":"v"}}`, make([]byte, 8)))
	f.Add(stFile(`{"a":{"dtype":"U8","shape":[],"data_offsets":[0,1]},"b":{"dtype":"I64","shape":[0,3],"data_offsets":[1,1]}}`, []byte{9}))
	f.Add(stFile(`{}`, nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		lits, meta, err := ReadSafetensors(b)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteSafetensors(&buf, lits, meta); err != nil {
			if _, bad := lits[""]; bad {
				return
			}
			t.Fatalf("write back: %v", err)
		}
		again, meta2, err := ReadSafetensors(buf.Bytes())
		if err != nil {
			t.Fatalf("read back: %v", err)
		}
		if len(again) != len(lits) || len(meta2) != len(meta) {
			t.Fatalf("round trip changed the contents")
		}
		for n, l := range lits {
			if !l.Equal(again[n]) {
				t.Fatalf("%s changed in the round trip", n)
			}
		}
	})
}

// TestLoadFailureChangesNothing: when the device runs out of memory while
// a checkpoint is written into a model's tensors, LoadTensors returns the
// error and every tensor holds what it held before (no pending write of
// the checkpoint, the old values readable), whether the upload of the
// second tensor fails or the final materialisation does. Before, the
// upload panicked with the first tensor's write already pending.
func TestLoadFailureChangesNothing(t *testing.T) {
	const n = 1 << 18 // 1 MiB of f32 per tensor
	fill := func(v float32) []float32 {
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = v
		}
		return xs
	}
	var buf bytes.Buffer
	if err := WriteSafetensors(&buf, map[string]*lazy.Literal{
		"a": hlo.LiteralFromSlice(fill(2), n), "b": hlo.LiteralFromSlice(fill(2), n), "c": hlo.LiteralFromSlice([]float32{2}, 1)}, nil); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "ck.safetensors")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		limit int64
		want  string
	}{
		{3<<20 + 1<<19, `tensor "b"`}, // a, b and the upload of a fit; the upload of b does not
		{4<<20 + 1<<19, "Sync"},       // every upload fits; the writes' results do not
		{16 << 20, ""},                // enough: the load succeeds
	} {
		dev := lazy.DevicesOf(host.NewClientWithLimit(1, c.limit))[0]
		dst := map[string]*lazy.Tensor{
			"a": lazy.FromLiteralOn(dev, hlo.LiteralFromSlice(fill(1), n)),
			"b": lazy.FromLiteralOn(dev, hlo.LiteralFromSlice(fill(1), n)),
			// c is pending before the load: a failure leaves it pending.
			"c": lazy.FromLiteralOn(dev, hlo.LiteralFromSlice([]float32{0.5}, 1)).MulScalar(2),
		}
		before := map[string]any{}
		for name, x := range dst {
			before[name] = x.DataID()
		}
		err := LoadTensors(p, dst)
		want := float32(1)
		if c.want == "" {
			if err != nil {
				t.Fatalf("limit %d: %v", c.limit, err)
			}
			want = 2
		} else if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "out of memory") {
			t.Errorf("limit %d: err %v, want one naming %s and out of memory", c.limit, err, c.want)
		}
		for name, x := range dst {
			if c.want != "" && x.DataID() != before[name] {
				t.Errorf("limit %d: %s holds other data (or pending state) after the failed load", c.limit, name)
			}
			if c.want != "" && x.IsPending() != (name == "c") {
				t.Errorf("limit %d: %s pending %v after the failed load", c.limit, name, x.IsPending())
			}
			if err := lazy.Try(func() {
				if v := x.Float32s(); v[0] != want || v[len(v)-1] != want {
					t.Errorf("limit %d: %s = %v..., want %v", c.limit, name, v[0], want)
				}
			}); err != nil {
				t.Errorf("limit %d: %s not readable: %v", c.limit, name, err)
			}
		}
	}
}

// TestNilLiteralsAreErrors: WriteSafetensors and AssignState refuse a nil
// literal with an error naming it (both dereferenced nil).
func TestNilLiteralsAreErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSafetensors(&buf, map[string]*lazy.Literal{"a": nil}, nil); err == nil || !strings.Contains(err.Error(), `"a" is nil`) {
		t.Errorf("WriteSafetensors of a nil literal: %v, want an error", err)
	}
	dst := map[string]*lazy.Tensor{"a": lazy.Zeros(lazy.F32, 1)}
	if err := AssignState(dst, map[string]*lazy.Literal{"a": nil}); err == nil || !strings.Contains(err.Error(), `"a" is nil`) {
		t.Errorf("AssignState of a nil literal: %v, want an error", err)
	}
}
