package data

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/xlajit/xlajit/lazy"
)

// Spec describes one field of every example: its name, element type and
// per-example dims (a batch of B examples is [B, dims...]).
type Spec struct {
	Name  string
	DType lazy.DType
	Dims  []int64
}

func (s Spec) String() string {
	sh, err := lazy.NewShapeE(s.DType, s.Dims...)
	if err != nil { // a spec that check rejects still prints
		return fmt.Sprintf("%s %s%v", s.Name, s.DType, s.Dims)
	}
	return s.Name + " " + sh.String()
}

// check reports a negative dimension, or dims whose element count or byte
// size per example overflows int64 (size would wrap).
func (s Spec) check() error {
	if _, err := lazy.NewShapeE(s.DType, s.Dims...); err != nil {
		return fmt.Errorf("field %q: %w", s.Name, err)
	}
	return nil
}

// size is the number of elements per example (of a spec that check
// accepts).
func (s Spec) size() int {
	n := 1
	for _, d := range s.Dims {
		n *= int(d)
	}
	return n
}

// Dataset is a list of examples with fixed-shape fields.
type Dataset interface {
	// Len is the number of examples.
	Len() int
	// Specs describes the fields.
	Specs() []Spec
	// Read copies example i into dst, one slice per field of the field's
	// Go element type ([]float32 for f32, []int32 for i32, ...) and
	// per-example size. It may be called from several goroutines.
	Read(i int, dst []any) error
}

// Element types a dataset field may have.
type Element interface {
	bool | int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64
}

// Col is one field of an in-memory dataset.
type Col struct {
	spec Spec
	data any // []T of Len()*size elements
	n    int
	err  error // bad dims, reported by NewMemory
}

// Column makes a field from flat data holding every example's elements in
// order, each example of the given dims (none: a scalar per example).
func Column[T Element](name string, values []T, dims ...int64) Col {
	s := Spec{Name: name, DType: dtypeOf[T](), Dims: append([]int64(nil), dims...)}
	c := Col{spec: s, data: values, n: -1}
	if c.err = s.check(); c.err != nil {
		return c
	}
	if sz := s.size(); sz > 0 && len(values)%sz == 0 {
		c.n = len(values) / sz
	}
	return c
}

func dtypeOf[T Element]() lazy.DType {
	var z T
	switch any(z).(type) {
	case bool:
		return lazy.Bool
	case int8:
		return lazy.I8
	case int16:
		return lazy.I16
	case int32:
		return lazy.I32
	case int64:
		return lazy.I64
	case uint8:
		return lazy.U8
	case uint16:
		return lazy.U16
	case uint32:
		return lazy.U32
	case uint64:
		return lazy.U64
	case float32:
		return lazy.F32
	}
	return lazy.F64
}

// Memory is a dataset held in Go slices.
type Memory struct {
	cols []Col
	n    int
}

// NewMemory makes an in-memory dataset; every column must hold the same
// number of examples.
func NewMemory(cols ...Col) (*Memory, error) {
	if len(cols) == 0 {
		return nil, fmt.Errorf("data.NewMemory: no columns")
	}
	m := &Memory{cols: cols, n: cols[0].n}
	names := map[string]bool{}
	for _, c := range cols {
		if c.err != nil {
			return nil, fmt.Errorf("data.NewMemory: %w", c.err)
		}
		if c.n < 0 {
			return nil, fmt.Errorf("data.NewMemory: column %q: %d values do not divide into examples of %v", c.spec.Name, lenOf(c.data), c.spec.Dims)
		}
		if c.n != m.n {
			return nil, fmt.Errorf("data.NewMemory: column %q holds %d examples, column %q %d", c.spec.Name, c.n, cols[0].spec.Name, m.n)
		}
		if names[c.spec.Name] {
			return nil, fmt.Errorf("data.NewMemory: two columns named %q", c.spec.Name)
		}
		names[c.spec.Name] = true
	}
	return m, nil
}

// Len is the number of examples.
func (m *Memory) Len() int { return m.n }

// Specs describes the columns.
func (m *Memory) Specs() []Spec {
	out := make([]Spec, len(m.cols))
	for i, c := range m.cols {
		out[i] = c.spec
	}
	return out
}

// Read copies example i.
func (m *Memory) Read(i int, dst []any) error {
	if i < 0 || i >= m.n {
		return fmt.Errorf("data: example %d out of range [0, %d)", i, m.n)
	}
	if len(dst) != len(m.cols) {
		return fmt.Errorf("data: %d destinations for %d fields", len(dst), len(m.cols))
	}
	// Every destination is checked before any is written: on an error
	// dst is as it was.
	for _, write := range []bool{false, true} {
		for k, c := range m.cols {
			sz := c.spec.size()
			if err := copyRow(dst[k], c.data, i*sz, sz, write); err != nil {
				return fmt.Errorf("data: field %q: %w", c.spec.Name, err)
			}
		}
	}
	return nil
}

// Subset is the examples [from, to) of a dataset (a validation split).
func Subset(ds Dataset, from, to int) (Dataset, error) {
	if ds == nil {
		return nil, fmt.Errorf("data.Subset: nil dataset")
	}
	if from < 0 || to > ds.Len() || from > to {
		return nil, fmt.Errorf("data.Subset: [%d, %d) out of range [0, %d)", from, to, ds.Len())
	}
	return &subset{ds, from, to}, nil
}

type subset struct {
	Dataset
	from, to int
}

func (s *subset) Len() int { return s.to - s.from }
func (s *subset) Read(i int, dst []any) error {
	if i < 0 || i >= s.Len() {
		return fmt.Errorf("data: example %d out of range [0, %d)", i, s.Len())
	}
	return s.Dataset.Read(s.from+i, dst)
}

// copyRow copies src[off:off+n] to dst, a slice of n elements of src's
// type, or only checks dst (write unset).
func copyRow(dst, src any, off, n int, write bool) error {
	switch s := src.(type) {
	case []float32:
		return copyTyped(dst, s, off, n, write)
	case []float64:
		return copyTyped(dst, s, off, n, write)
	case []int32:
		return copyTyped(dst, s, off, n, write)
	case []int64:
		return copyTyped(dst, s, off, n, write)
	case []uint8:
		return copyTyped(dst, s, off, n, write)
	case []bool:
		return copyTyped(dst, s, off, n, write)
	case []int8:
		return copyTyped(dst, s, off, n, write)
	case []int16:
		return copyTyped(dst, s, off, n, write)
	case []uint16:
		return copyTyped(dst, s, off, n, write)
	case []uint32:
		return copyTyped(dst, s, off, n, write)
	case []uint64:
		return copyTyped(dst, s, off, n, write)
	}
	return fmt.Errorf("unsupported column type %T", src)
}

func copyTyped[T any](dst any, src []T, off, n int, write bool) error {
	d, ok := dst.([]T)
	if !ok || len(d) != n {
		return fmt.Errorf("destination %T of length %d, want []%T of %d", dst, lenOf(dst), *new(T), n)
	}
	if write {
		copy(d, src[off:off+n])
	}
	return nil
}

// lenOf is the length of a slice (-1 for other values).
func lenOf(v any) int {
	if r := reflect.ValueOf(v); r.Kind() == reflect.Slice {
		return r.Len()
	}
	return -1
}

// specsString lists specs ("[image f32[784] label i32[]]").
func specsString(ss []Spec) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.String()
	}
	return "[" + strings.Join(parts, " ") + "]"
}
