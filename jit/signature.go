package jit

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"

	"github.com/xlajit/xlajit/lazy"
)

var (
	tensorPtrType = reflect.TypeOf((*lazy.Tensor)(nil))
	errorType     = reflect.TypeOf((*error)(nil)).Elem()
)

// walker flattens arguments: the tensors in order, and the guard key that
// identifies the input signature (structure, shapes, dtypes, devices,
// static values).
type walker struct {
	key     []byte
	tensors []*lazy.Tensor
	seen    map[*lazy.Tensor]int // first positions, for long tensor lists
	depth   int
	baseLen int // the key's length before the capture aliases
	nCaps   int // the written captures known when the key was made
}

// reset empties the walker for a new call.
func (w *walker) reset() {
	w.key, w.tensors, w.depth = w.key[:0], w.tensors[:0], 0
	clear(w.seen)
}

func (w *walker) tag(b byte)     { w.key = append(w.key, b) }
func (w *walker) u64(v uint64)   { w.key = binary.LittleEndian.AppendUint64(w.key, v) }
func (w *walker) varint(v int64) { w.key = binary.AppendVarint(w.key, v) }

// appendTensorKey appends a tensor's part of the guard key: dtype, rank,
// dims and device, its client's index when not 0 and its ordinal ('n' for
// a nil tensor).
func appendTensorKey(key []byte, x *lazy.Tensor) []byte {
	if x == nil {
		return append(key, 'n')
	}
	if x.Device() == nil {
		// A zero Tensor value, which no lazy constructor made: no
		// entry has this key, and the reflective path's codec refuses
		// it (zeroTensorError).
		return append(key, 'z')
	}
	key = append(key, 'T', byte(x.DType()))
	key = appendVarint(key, int64(x.Rank()))
	for _, d := range x.Dims() {
		key = appendVarint(key, d)
	}
	if x.Device().IsSPMD() {
		key = appendShardingKey(key, x)
	}
	d := x.Device()
	if c := d.ClientIndex(); c != 0 {
		// Another client's device of the same ordinal is another
		// device: -2, -3, ... before the ordinal, which is -1 (the SPMD
		// device) or more, so the first client's keys stay as they were
		// (ahead-of-time guards keep matching).
		key = appendVarint(key, int64(-1-c))
	}
	return appendVarint(key, int64(d.Ordinal()))
}

// appendVarint is binary.AppendVarint with the one-byte case (0 <= v < 64:
// ranks, small dims, ordinals) inline; the general encoding stays out of
// line, keeping the replay path's code small.
func appendVarint(key []byte, v int64) []byte {
	if uint64(v) < 64 {
		return append(key, byte(v<<1)) // zigzag of a small non-negative v
	}
	return appendVarintSlow(key, v)
}

//go:noinline
func appendVarintSlow(key []byte, v int64) []byte { return binary.AppendVarint(key, v) }

// codec encodes values of one Go type.
type codec func(w *walker, v reflect.Value)

var codecs sync.Map // reflect.Type → codec

// checkArgType reports whether values of t can be arguments.
func checkArgType(t reflect.Type, seen map[reflect.Type]bool) error {
	if t == tensorPtrType {
		return nil
	}
	if seen[t] {
		return nil
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String, reflect.Interface:
		return nil
	case reflect.Slice, reflect.Array, reflect.Pointer:
		return checkArgType(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if err := checkArgType(t.Field(i).Type, seen); err != nil {
				return fmt.Errorf("field %s: %w", t.Field(i).Name, err)
			}
		}
		return nil
	}
	return fmt.Errorf("values of type %s cannot be jit arguments (want tensors, slices, arrays, structs, pointers and plain values)", t)
}

// codecFor returns the codec of arguments of type t, built on first use.
// Codecs are built one type at a time under codecMu and published in
// codecs only once complete: a self-referential type's codec calls a
// placeholder for itself, which another goroutine must not run before it
// is filled.
func codecFor(t reflect.Type) codec {
	if c, ok := codecs.Load(t); ok {
		return c.(codec)
	}
	codecMu.Lock()
	defer func() {
		clear(codecBuilt) // published, or half built by a build that panicked
		codecMu.Unlock()
	}()
	c := codecLocked(t)
	for u, uc := range codecBuilt {
		codecs.Store(u, uc)
	}
	return c
}

var (
	codecMu sync.Mutex
	// codecBuilt holds, while codecMu is held, the codecs built (or, for
	// a type being built, its placeholder) and not yet published.
	codecBuilt = map[reflect.Type]codec{}
)

// codecLocked is codecFor with codecMu held: buildCodec calls it for the
// types a codec is made of.
func codecLocked(t reflect.Type) codec {
	if c, ok := codecs.Load(t); ok {
		return c.(codec)
	}
	if c, ok := codecBuilt[t]; ok {
		return c
	}
	var c codec
	// A placeholder breaks recursion through self-referential types.
	codecBuilt[t] = func(w *walker, v reflect.Value) { c(w, v) }
	c = buildCodec(t)
	codecBuilt[t] = c
	return c
}

// zeroTensorError is the error of a call with a zero Tensor value (made
// by no lazy constructor, it holds nothing and has no device to guard).
func zeroTensorError() *Error {
	return &Error{Msg: "an argument holds a zero Tensor value, which holds nothing: make tensors with the lazy constructors (FromSlice, Zeros, ...)"}
}

func buildCodec(t reflect.Type) codec {
	if t == tensorPtrType {
		return func(w *walker, v reflect.Value) {
			if v.IsNil() {
				w.tag('n')
				return
			}
			x := (*lazy.Tensor)(v.UnsafePointer())
			if x.Device() == nil {
				panic(zeroTensorError())
			}
			if first := w.addTensor(x); first >= 0 {
				w.key = appendAliasKey(w.key, first)
				return
			}
			w.key = appendTensorKey(w.key, x)
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(w *walker, v reflect.Value) {
			if v.Bool() {
				w.tag('1')
			} else {
				w.tag('0')
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(w *walker, v reflect.Value) { w.tag('i'); w.varint(v.Int()) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(w *walker, v reflect.Value) { w.tag('u'); w.u64(v.Uint()) }
	case reflect.Float32, reflect.Float64:
		return func(w *walker, v reflect.Value) { w.tag('f'); w.u64(math.Float64bits(v.Float())) }
	case reflect.String:
		return func(w *walker, v reflect.Value) {
			w.tag('s')
			w.varint(int64(v.Len()))
			w.key = append(w.key, v.String()...)
		}
	case reflect.Slice, reflect.Array:
		elem := codecLocked(t.Elem())
		return func(w *walker, v reflect.Value) {
			if t.Kind() == reflect.Slice && v.IsNil() {
				w.tag('n')
				return
			}
			w.tag('L')
			w.varint(int64(v.Len()))
			if w.depth++; w.depth > maxArgDepth {
				panic(errArgTooDeep{})
			}
			for i := 0; i < v.Len(); i++ {
				elem(w, v.Index(i))
			}
			w.depth--
		}
	case reflect.Pointer:
		elem := codecLocked(t.Elem())
		return func(w *walker, v reflect.Value) {
			if v.IsNil() {
				w.tag('n')
				return
			}
			w.tag('P')
			if w.depth++; w.depth > maxArgDepth {
				panic(errArgTooDeep{})
			}
			elem(w, v.Elem())
			w.depth--
		}
	case reflect.Struct:
		fields := make([]codec, t.NumField())
		for i := range fields {
			fields[i] = codecLocked(t.Field(i).Type)
		}
		return func(w *walker, v reflect.Value) {
			w.tag('S')
			for i, f := range fields {
				f(w, v.Field(i))
			}
		}
	case reflect.Interface:
		return func(w *walker, v reflect.Value) {
			if v.IsNil() {
				w.tag('n')
				return
			}
			e := v.Elem()
			w.tag('I')
			w.key = append(w.key, typeKey(e.Type())...)
			w.tag(0)
			if err := checkArgType(e.Type(), map[reflect.Type]bool{}); err != nil {
				panic(&Error{Msg: err.Error()})
			}
			if w.depth++; w.depth > maxArgDepth {
				panic(errArgTooDeep{})
			}
			codecFor(e.Type())(w, e)
			w.depth--
		}
	}
	return func(w *walker, v reflect.Value) {
		panic(&Error{Msg: fmt.Sprintf("values of type %s cannot be jit arguments", t)})
	}
}

// describe lists the guard of an argument list for Explain: one entry per
// tensor or static value, with a path ("arg 1.W.2").
func describe(args []reflect.Value) []guardItem {
	var out []guardItem
	for i, a := range args {
		describeValue(&out, argPath(i), a, 0)
	}
	return out
}

// guardItem is one entry of a guard: kind is 't' for a tensor, 'f' for a
// float, 0 for other values.
type guardItem struct {
	path, value string
	kind        byte
	// client is a tensor's device's ClientIndex, which its value names
	// only when it alone differs (two clients' cpu:0).
	client int
}

func describeValue(out *[]guardItem, path string, v reflect.Value, depth int) {
	if depth > maxArgDepth {
		return
	}
	t := v.Type()
	if t == tensorPtrType {
		if v.IsNil() {
			*out = append(*out, guardItem{path, "nil", 0, 0})
		} else {
			x := (*lazy.Tensor)(v.UnsafePointer())
			*out = append(*out, guardItem{path, x.Shape().String() + "@" + x.Device().String() + shardingSuffix(x), 't', x.Device().ClientIndex()})
		}
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && v.IsNil() {
			*out = append(*out, guardItem{path, "nil", 0, 0})
			return
		}
		*out = append(*out, guardItem{path + ".len", fmt.Sprint(v.Len()), 0, 0})
		for i := 0; i < v.Len(); i++ {
			describeValue(out, IndexPath(path, i), v.Index(i), depth+1)
		}
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			*out = append(*out, guardItem{path, "nil", 0, 0})
			return
		}
		describeValue(out, path, v.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			describeValue(out, FieldPath(path, t.Field(i)), v.Field(i), depth+1)
		}
	case reflect.String:
		*out = append(*out, guardItem{path, fmt.Sprintf("%q", v.String()), 0, 0})
	case reflect.Bool:
		*out = append(*out, guardItem{path, fmt.Sprint(v.Bool()), 0, 0})
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		*out = append(*out, guardItem{path, fmt.Sprint(v.Int()), 0, 0})
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		*out = append(*out, guardItem{path, fmt.Sprint(v.Uint()), 0, 0})
	case reflect.Float32, reflect.Float64:
		*out = append(*out, guardItem{path, fmt.Sprint(v.Float()), 'f', 0})
	}
}

// diffGuards names the first difference between two guards ("arg 0:
// f32[2,3] -> f32[4,3]"), with a hint when the difference is a float
// argument (pass it as a tensor).
func diffGuards(old, cur []guardItem) string {
	i, ok := firstGuardDiff(old, cur)
	switch {
	case !ok:
		return "no difference"
	case i < 0:
		return "argument structure changed"
	case old[i].path != cur[i].path:
		return fmt.Sprintf("argument structure changed at %s", cur[i].path)
	}
	if d := shardingChange(old[i], cur[i]); d != "" {
		return d
	}
	if old[i].value == cur[i].value && old[i].client != cur[i].client {
		return fmt.Sprintf("%s: %s of client %d -> of client %d", cur[i].path, old[i].value, old[i].client, cur[i].client)
	}
	d := fmt.Sprintf("%s: %s -> %s", cur[i].path, old[i].value, cur[i].value)
	if cur[i].kind == 'f' {
		d += floatHint
	}
	return d
}

// floatHint is what a recompile caused by a changed Go float says.
const floatHint = " (a Go float argument is part of the signature, like a JAX static argument: pass a value that changes between calls, such as a learning rate, as a tensor)"

// firstGuardDiff returns the index of the first differing item (-1: the
// lengths differ), or ok false when the guards are equal.
func firstGuardDiff(old, cur []guardItem) (int, bool) {
	for i := 0; i < len(old) && i < len(cur); i++ {
		if old[i] != cur[i] {
			return i, true
		}
	}
	if len(old) != len(cur) {
		return -1, true
	}
	return 0, false
}

// leadingDim returns the first dimension of a tensor guard value
// ("f32[64,784]@cpu:0" → "64"), or "".
func leadingDim(value string) string {
	i := strings.IndexByte(value, '[')
	if i < 0 {
		return ""
	}
	j := strings.IndexAny(value[i+1:], ",]")
	if j <= 0 {
		return ""
	}
	return value[i+1 : i+1+j]
}

// restDims is a tensor guard value without its leading dimension.
func restDims(value string) string {
	i := strings.IndexByte(value, '[')
	if i < 0 {
		return value
	}
	j := strings.IndexAny(value[i+1:], ",]")
	if j < 0 {
		return value
	}
	return value[:i+1] + value[i+1+j:]
}
