package data

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"unsafe"

	"github.com/xlajit/xlajit/internal/atomicfile"
	"github.com/xlajit/xlajit/lazy"
)

// A record file holds a dataset on disk as fixed-size records, read on
// demand (no need to fit in memory): the line "xlajit-records 1", a JSON
// line with the specs and the example count, then every example's fields
// in order, each as raw little-endian elements.

const recordsMagic = "xlajit-records 1\n"

type recordsHeader struct {
	N      int          `json:"n"`
	Fields []recordSpec `json:"fields"`
}

type recordSpec struct {
	Name  string  `json:"name"`
	DType string  `json:"dtype"`
	Dims  []int64 `json:"dims"`
}

// WriteRecords writes every example of ds to path, whole or not at all: a
// write that fails (an error or a panic in ds.Read) leaves what was at path
// as it was. A new file gets 0666 less the umask, as os.Create gives; a
// replaced one keeps its permissions.
func WriteRecords(path string, ds Dataset) (err error) {
	if ds == nil {
		return fmt.Errorf("data.WriteRecords: nil dataset")
	}
	specs := ds.Specs()
	h := recordsHeader{N: ds.Len()}
	bufs := make([]any, len(specs))
	for k, s := range specs {
		h.Fields = append(h.Fields, recordSpec{s.Name, s.DType.String(), s.Dims})
		if bufs[k], err = newSlice(s.DType, s.size()); err != nil {
			return fmt.Errorf("data.WriteRecords: field %q: %w", s.Name, err)
		}
	}
	err = atomicfile.Write(path, func(f io.Writer) error {
		w := bufio.NewWriter(f)
		hj, _ := json.Marshal(h)
		w.WriteString(recordsMagic)
		w.Write(hj)
		w.WriteByte('\n')
		for i := 0; i < ds.Len(); i++ {
			if err := ds.Read(i, bufs); err != nil {
				return fmt.Errorf("example %d: %w", i, err)
			}
			for _, b := range bufs {
				w.Write(rawBytes(b))
			}
		}
		return w.Flush()
	})
	if err != nil {
		return fmt.Errorf("data.WriteRecords: %w", err)
	}
	return nil
}

// Records is a dataset read from a record file.
type Records struct {
	f      *os.File
	specs  []Spec
	n      int
	start  int64
	record int64
	offs   []int64 // byte offset of each field within a record
}

// OpenRecords opens a record file and checks its header and size.
func OpenRecords(path string) (*Records, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := openRecords(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("data.OpenRecords %s: %w", path, err)
	}
	return r, nil
}

func openRecords(f *os.File) (*Records, error) {
	br := bufio.NewReader(io.LimitReader(f, 1<<20))
	magic := make([]byte, len(recordsMagic))
	if _, err := io.ReadFull(br, magic); err != nil || !bytes.Equal(magic, []byte(recordsMagic)) {
		return nil, fmt.Errorf("not a record file (want the line %q first)", recordsMagic[:len(recordsMagic)-1])
	}
	line, err := br.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	var h recordsHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if h.N < 0 || len(h.Fields) == 0 {
		return nil, fmt.Errorf("header: %d examples, %d fields", h.N, len(h.Fields))
	}
	r := &Records{f: f, n: h.N, start: int64(len(recordsMagic) + len(line))}
	for _, fs := range h.Fields {
		dt, ok := parseDType(fs.DType)
		if !ok {
			return nil, fmt.Errorf("field %q: unsupported dtype %q", fs.Name, fs.DType)
		}
		s := Spec{fs.Name, dt, fs.Dims}
		for _, d := range s.Dims {
			if d < 0 || d > 1<<31 {
				return nil, fmt.Errorf("field %q: bad dims %v", fs.Name, s.Dims)
			}
		}
		if err := s.check(); err != nil {
			return nil, err
		}
		r.specs = append(r.specs, s)
		r.offs = append(r.offs, r.record)
		// The sum and the product below are checked: wrapped, a header
		// could describe a record size that matches any file.
		b := int64(s.size()) * int64(dt.Size()) // fits: check bounds the bytes
		if r.record > math.MaxInt64-b {
			return nil, fmt.Errorf("field %q: %d bytes after %d bytes of earlier fields overflow int64", fs.Name, b, r.record)
		}
		r.record += b
	}
	if r.record == 0 && r.n > 0 {
		// The file's size would not bound the count (a loader's epoch
		// allocates one index per example).
		return nil, fmt.Errorf("header: %d examples of 0 bytes", r.n)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	// r.n >= 0 and r.record > 0 here.
	body := int64(r.n) * r.record
	if r.n > 0 && body/int64(r.n) != r.record || body > math.MaxInt64-r.start {
		return nil, fmt.Errorf("file has %d bytes, the header describes %d examples of %d bytes (over 2^63-1)", st.Size(), r.n, r.record)
	}
	if want := r.start + body; st.Size() != want {
		return nil, fmt.Errorf("file has %d bytes, the header describes %d", st.Size(), want)
	}
	return r, nil
}

func parseDType(s string) (lazy.DType, bool) {
	for _, dt := range []lazy.DType{lazy.F32, lazy.F64, lazy.I32, lazy.I64, lazy.U8, lazy.Bool, lazy.I8, lazy.I16, lazy.U16, lazy.U32, lazy.U64} {
		if dt.String() == s {
			return dt, true
		}
	}
	return 0, false
}

// Len is the number of examples.
func (r *Records) Len() int { return r.n }

// Specs describes the fields.
func (r *Records) Specs() []Spec { return r.specs }

// Read reads example i from the file into dst, one destination per
// field (safe for concurrent use). It reads the whole record and checks
// it before it writes any destination: on an error dst is as it was.
func (r *Records) Read(i int, dst []any) error {
	if i < 0 || i >= r.n {
		return fmt.Errorf("data: example %d out of range [0, %d)", i, r.n)
	}
	if len(dst) != len(r.specs) {
		return fmt.Errorf("data: %d destinations for %d fields", len(dst), len(r.specs))
	}
	for k, s := range r.specs {
		if b := rawBytes(dst[k]); b == nil || len(b) != s.size()*s.DType.Size() {
			return fmt.Errorf("data: field %q: destination %T does not hold %d %s elements", s.Name, dst[k], s.size(), s.DType)
		}
	}
	bp := recordBufs.Get().(*[]byte)
	defer recordBufs.Put(bp)
	if int64(cap(*bp)) < r.record {
		*bp = make([]byte, r.record)
	}
	rec := (*bp)[:r.record]
	if _, err := r.f.ReadAt(rec, r.start+int64(i)*r.record); err != nil {
		return fmt.Errorf("data: example %d: %w", i, err)
	}
	for k, s := range r.specs {
		if s.DType != lazy.Bool {
			continue
		}
		for j, v := range r.field(rec, k) {
			if v > 1 {
				return fmt.Errorf("data: example %d field %q: bool element %d is %d", i, s.Name, j, v)
			}
		}
	}
	for k := range r.specs {
		copy(rawBytes(dst[k]), r.field(rec, k))
	}
	return nil
}

// field is field k's bytes within record rec.
func (r *Records) field(rec []byte, k int) []byte {
	end := r.record
	if k+1 < len(r.offs) {
		end = r.offs[k+1]
	}
	return rec[r.offs[k]:end]
}

// recordBufs holds the buffers Read reads whole records into.
var recordBufs = sync.Pool{New: func() any { return new([]byte) }}

// Close closes the file.
func (r *Records) Close() error { return r.f.Close() }

// rawBytes views a typed slice as its bytes (nil for other values).
func rawBytes(v any) []byte {
	view := func(p unsafe.Pointer, n int) []byte {
		if n == 0 {
			return []byte{}
		}
		return unsafe.Slice((*byte)(p), n)
	}
	switch s := v.(type) {
	case []float32:
		return view(unsafe.Pointer(unsafe.SliceData(s)), len(s)*4)
	case []float64:
		return view(unsafe.Pointer(unsafe.SliceData(s)), len(s)*8)
	case []int32:
		return view(unsafe.Pointer(unsafe.SliceData(s)), len(s)*4)
	case []int64:
		return view(unsafe.Pointer(unsafe.SliceData(s)), len(s)*8)
	case []uint8:
		return s
	case []bool:
		return view(unsafe.Pointer(unsafe.SliceData(s)), len(s))
	case []int8:
		return view(unsafe.Pointer(unsafe.SliceData(s)), len(s))
	case []int16:
		return view(unsafe.Pointer(unsafe.SliceData(s)), len(s)*2)
	case []uint16:
		return view(unsafe.Pointer(unsafe.SliceData(s)), len(s)*2)
	case []uint32:
		return view(unsafe.Pointer(unsafe.SliceData(s)), len(s)*4)
	case []uint64:
		return view(unsafe.Pointer(unsafe.SliceData(s)), len(s)*8)
	}
	return nil
}
