package nn

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"unsafe"

	"github.com/xlajit/xlajit/internal/atomicfile"
	"github.com/xlajit/xlajit/lazy"
)

// The safetensors format (the Hugging Face ecosystem's tensor file): an
// 8-byte little-endian header length N, N bytes of JSON mapping each name
// to {"dtype", "shape", "data_offsets": [begin, end]} (offsets into the
// data section; an optional "__metadata__" maps strings to strings), then
// the data section: every tensor's elements, row-major, little-endian,
// packed without gaps.

var stDTypes = map[string]lazy.DType{
	"BOOL": lazy.Bool, "U8": lazy.U8, "I8": lazy.I8, "I16": lazy.I16, "U16": lazy.U16,
	"F16": lazy.F16, "BF16": lazy.BF16, "I32": lazy.I32, "U32": lazy.U32, "F32": lazy.F32,
	"F64": lazy.F64, "I64": lazy.I64, "U64": lazy.U64, "C64": lazy.C64,
}

func stName(dt lazy.DType) (string, bool) {
	for k, v := range stDTypes {
		if v == dt {
			return k, true
		}
	}
	return "", false
}

// maxHeader bounds the JSON header (the reference implementation's limit).
const maxHeader = 100 << 20

type stEntry struct {
	DType   string  `json:"dtype"`
	Shape   []int64 `json:"shape"`
	Offsets []int64 `json:"data_offsets"`
}

// WriteSafetensors writes literals under their names, sorted by name, with
// optional metadata.
func WriteSafetensors(w io.Writer, tensors map[string]*lazy.Literal, metadata map[string]string) error {
	names := make([]string, 0, len(tensors))
	for n := range tensors {
		if n == "" || n == "__metadata__" {
			return fmt.Errorf("safetensors: invalid tensor name %q", n)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	header := map[string]any{}
	if len(metadata) > 0 {
		header["__metadata__"] = metadata
	}
	var off int64
	for _, n := range names {
		l := tensors[n]
		if l == nil {
			return fmt.Errorf("safetensors: tensor %q is nil", n)
		}
		dt, ok := stName(l.DType)
		if !ok {
			return fmt.Errorf("safetensors: tensor %q: element type %s has no safetensors name", n, l.DType)
		}
		size := int64(len(l.Data))
		if want := int64(l.NumElements()) * int64(l.DType.Size()); size != want {
			return fmt.Errorf("safetensors: tensor %q: %d data bytes for %s", n, size, l.ShapeString())
		}
		shape := l.Dims
		if shape == nil {
			shape = []int64{}
		}
		header[n] = stEntry{DType: dt, Shape: shape, Offsets: []int64{off, off + size}}
		off += size
	}
	hj, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	// Pad the header with spaces so the data section starts 8-aligned.
	for len(hj)%8 != 0 {
		hj = append(hj, ' ')
	}
	var lenBuf [8]byte
	binary.LittleEndian.PutUint64(lenBuf[:], uint64(len(hj)))
	if _, err := w.Write(lenBuf[:]); err != nil {
		return err
	}
	if _, err := w.Write(hj); err != nil {
		return err
	}
	for _, n := range names {
		if _, err := w.Write(tensors[n].Data); err != nil {
			return err
		}
	}
	return nil
}

// ReadSafetensors parses a safetensors file's bytes. It checks the header
// length, the JSON, every dtype and shape, and that the data offsets tile
// the data section exactly (no gaps, overlaps or bytes past the end).
func ReadSafetensors(b []byte) (tensors map[string]*lazy.Literal, metadata map[string]string, err error) {
	if len(b) < 8 {
		return nil, nil, fmt.Errorf("safetensors: %d bytes is too short for a header", len(b))
	}
	n := binary.LittleEndian.Uint64(b[:8])
	if n > maxHeader || n > uint64(len(b)-8) {
		return nil, nil, fmt.Errorf("safetensors: header length %d exceeds the file (%d bytes) or the %d-byte limit", n, len(b), maxHeader)
	}
	hdr := b[8 : 8+n]
	data := b[8+n:]
	if !bytes.HasPrefix(bytes.TrimLeft(hdr, " \t\r\n"), []byte("{")) {
		return nil, nil, fmt.Errorf("safetensors: header is not a JSON object")
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(hdr))
	if err := dec.Decode(&raw); err != nil {
		return nil, nil, fmt.Errorf("safetensors: header: %w", err)
	}
	type span struct {
		name     string
		lo, hi   int64
		lit      *lazy.Literal
		declared string
	}
	var spans []span
	for name, msg := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(msg, &metadata); err != nil {
				return nil, nil, fmt.Errorf("safetensors: __metadata__ must map strings to strings: %w", err)
			}
			continue
		}
		var e stEntry
		d := json.NewDecoder(bytes.NewReader(msg))
		d.DisallowUnknownFields()
		if err := d.Decode(&e); err != nil {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		dt, ok := stDTypes[e.DType]
		if !ok {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: unsupported dtype %q", name, e.DType)
		}
		if len(e.Offsets) != 2 || e.Offsets[0] < 0 || e.Offsets[1] < e.Offsets[0] || e.Shape == nil {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: want a shape and data_offsets [begin, end], got %v", name, e.Offsets)
		}
		count := int64(1)
		for _, dim := range e.Shape {
			if dim < 0 || (dim > 0 && count > math.MaxInt64/int64(dt.Size())/dim) {
				return nil, nil, fmt.Errorf("safetensors: tensor %q: bad shape %v", name, e.Shape)
			}
			count *= dim
		}
		if got := e.Offsets[1] - e.Offsets[0]; got != count*int64(dt.Size()) {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: %s%v needs %d bytes, data_offsets span %d", name, e.DType, e.Shape, count*int64(dt.Size()), got)
		}
		spans = append(spans, span{name: name, lo: e.Offsets[0], hi: e.Offsets[1],
			lit: &lazy.Literal{DType: dt, Dims: append([]int64{}, e.Shape...)}})
	}
	sort.Slice(spans, func(i, j int) bool {
		return spans[i].lo < spans[j].lo || (spans[i].lo == spans[j].lo && spans[i].hi < spans[j].hi)
	})
	var at int64
	for _, s := range spans {
		if s.lo != at {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: data starts at %d, want %d (gap or overlap)", s.name, s.lo, at)
		}
		at = s.hi
	}
	if at != int64(len(data)) {
		return nil, nil, fmt.Errorf("safetensors: tensors cover %d data bytes, the file has %d", at, len(data))
	}
	tensors = make(map[string]*lazy.Literal, len(spans))
	for _, s := range spans {
		s.lit.Data = alignedCopy(data[s.lo:s.hi])
		if s.lit.DType == lazy.Bool {
			for i, v := range s.lit.Data {
				if v > 1 {
					return nil, nil, fmt.Errorf("safetensors: tensor %q: bool element %d is %d", s.name, i, v)
				}
			}
		}
		tensors[s.name] = s.lit
	}
	return tensors, metadata, nil
}

// alignedCopy copies b into 16-byte aligned storage (what literals need).
func alignedCopy(b []byte) []byte {
	if len(b) == 0 {
		return []byte{}
	}
	words := make([]complex128, (len(b)+15)/16)
	out := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(b))
	copy(out, b)
	return out
}

// SaveTensors writes tensors to a safetensors file, whole or not at all (a
// temporary file renamed into place: a failed save or a crash never leaves
// half a checkpoint). A new file gets 0666 less the umask, as os.Create
// gives (torch.save's); a replaced one keeps its permissions.
func SaveTensors(path string, tensors map[string]*lazy.Tensor, metadata map[string]string) error {
	lits := make(map[string]*lazy.Literal, len(tensors))
	list := make([]*lazy.Tensor, 0, len(tensors))
	for _, t := range tensors {
		if t != nil {
			list = append(list, t)
		}
	}
	if err := lazy.Sync(list...); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	for n, t := range tensors {
		if t == nil {
			return fmt.Errorf("save %s: tensor %q is nil", path, n)
		}
		l, err := t.Literal()
		if err != nil {
			return fmt.Errorf("save %s: tensor %q: %w", path, n, err)
		}
		lits[n] = l
	}
	var buf bytes.Buffer
	if err := WriteSafetensors(&buf, lits, metadata); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
	if err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	return nil
}

// ReadFile reads a safetensors file into host literals.
func ReadFile(path string) (map[string]*lazy.Literal, map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	t, m, err := ReadSafetensors(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, m, nil
}

// LoadTensors reads a safetensors file into existing tensors, by name. It
// first compares the file with dst and, on any difference, returns one
// error listing every missing name, unexpected name, shape and dtype
// mismatch, changing nothing; otherwise it writes every tensor (Assign) and
// materialises them, as AssignState (a failure there changes nothing
// either).
func LoadTensors(path string, dst map[string]*lazy.Tensor) error {
	lits, _, err := ReadFile(path)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	if err := AssignState(dst, lits); err != nil {
		return fmt.Errorf("load %s: %w", path, err)
	}
	return nil
}

// AssignState writes host literals into existing tensors by name, after
// checking that names, shapes and dtypes agree exactly (a *StateMismatch
// otherwise, and nothing written). Every literal is uploaded before any
// tensor is written, and the writes are then materialised together; when
// an upload, a write or that materialisation fails (the device runs out of
// memory), every tensor of dst is put back to what it held before (its
// buffer, or its pending value), and the error names the tensor or the
// step that failed.
func AssignState(dst map[string]*lazy.Tensor, src map[string]*lazy.Literal) error {
	if err := checkState(dst, src); err != nil {
		return err
	}
	names := make([]string, 0, len(dst))
	for n := range dst {
		names = append(names, n)
	}
	sort.Strings(names) // a failure names the same tensor every time
	ups := make([]*lazy.Tensor, len(names))
	for i, n := range names {
		if err := lazy.Try(func() { ups[i] = lazy.FromLiteralOn(dst[n].Device(), src[n]) }); err != nil {
			return fmt.Errorf("tensor %q: %w", n, err)
		}
	}
	// Snapshots to put back on failure. Nothing executed below takes the
	// old buffers (only the uploads are operands), so transient snapshots
	// suffice and keep them donatable afterwards.
	old := make([]lazy.TensorState, len(names))
	list := make([]*lazy.Tensor, len(names))
	for i, n := range names {
		list[i] = dst[n]
		old[i] = list[i].TransientState()
	}
	err := lazy.Try(func() {
		for i, t := range list {
			t.Assign(ups[i]) // syncs at once in eager mode
		}
	})
	if err == nil {
		err = lazy.Sync(list...)
	}
	if err != nil {
		for i, t := range list {
			t.Restore(old[i])
		}
		return err
	}
	return nil
}

// StateMismatch lists how a checkpoint differs from the tensors it is
// loaded into.
type StateMismatch struct {
	Missing    []string // in the model, not in the file
	Unexpected []string // in the file, not in the model
	Shape      []string // "name: model f32[16], file f32[32]"
}

func (e *StateMismatch) Error() string {
	var parts []string
	if len(e.Missing) > 0 {
		parts = append(parts, "missing from the file: "+strings.Join(e.Missing, ", "))
	}
	if len(e.Unexpected) > 0 {
		parts = append(parts, "not in the model: "+strings.Join(e.Unexpected, ", "))
	}
	if len(e.Shape) > 0 {
		parts = append(parts, "different shape or dtype: "+strings.Join(e.Shape, "; "))
	}
	return "checkpoint does not match the model: " + strings.Join(parts, "; ")
}

func checkState(dst map[string]*lazy.Tensor, lits map[string]*lazy.Literal) error {
	var e StateMismatch
	for n, l := range lits {
		if l == nil {
			return fmt.Errorf("literal %q is nil", n)
		}
	}
	for n, t := range dst {
		l, ok := lits[n]
		if t == nil {
			return fmt.Errorf("tensor %q is nil", n)
		}
		switch {
		case !ok:
			e.Missing = append(e.Missing, n+" "+t.Shape().String())
		case l.DType != t.DType() || !equalDims(l.Dims, t.Dims()):
			e.Shape = append(e.Shape, fmt.Sprintf("%s: model %s, file %s", n, t.Shape(), l.ShapeString()))
		}
	}
	for n, l := range lits {
		if _, ok := dst[n]; !ok {
			e.Unexpected = append(e.Unexpected, n+" "+l.ShapeString())
		}
	}
	if len(e.Missing)+len(e.Unexpected)+len(e.Shape) == 0 {
		return nil
	}
	sort.Strings(e.Missing)
	sort.Strings(e.Unexpected)
	sort.Strings(e.Shape)
	return &e
}

func equalDims(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Save writes m's state (parameters and buffers, State) to a safetensors
// file.
func Save(path string, m any) error { return SaveTensors(path, StateDict(m), nil) }

// Load reads m's state from a safetensors file written by Save or by
// PyTorch for the same architecture (same names, shapes and dtypes).
func Load(path string, m any) error { return LoadTensors(path, StateDict(m)) }

// WithPrefix returns sd with every name prefixed (to keep a model's and an
// optimizer's state in one file: nn.Merge(nn.StateDict(m),
// nn.WithPrefix("optim.", opt.StateDict()))).
func WithPrefix(prefix string, sd map[string]*lazy.Tensor) map[string]*lazy.Tensor {
	out := make(map[string]*lazy.Tensor, len(sd))
	for n, t := range sd {
		out[prefix+n] = t
	}
	return out
}

// Merge joins state dicts; a name in two of them is an error.
func Merge(sds ...map[string]*lazy.Tensor) (map[string]*lazy.Tensor, error) {
	out := map[string]*lazy.Tensor{}
	for _, sd := range sds {
		for n, t := range sd {
			if _, dup := out[n]; dup {
				return nil, fmt.Errorf("state dicts both hold %q", n)
			}
			out[n] = t
		}
	}
	return out, nil
}
