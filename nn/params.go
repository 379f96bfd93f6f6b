package nn

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unsafe"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// Param is one named tensor of a model: a trainable parameter or, when
// Buffer is set, state that is saved but not trained (running statistics).
type Param struct {
	Name   string
	Tensor *lazy.Tensor
	Buffer bool
}

// ParamList is an ordered list of named tensors (field order; map keys
// sorted).
type ParamList []Param

// Tensors returns the tensors in order (the argument lazy.Grad and the
// optimizers take).
func (ps ParamList) Tensors() []*lazy.Tensor {
	out := make([]*lazy.Tensor, len(ps))
	for i, p := range ps {
		out[i] = p.Tensor
	}
	return out
}

// Names returns the names in order.
func (ps ParamList) Names() []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// Map returns the tensors keyed by name (a state dict).
func (ps ParamList) Map() map[string]*lazy.Tensor {
	out := make(map[string]*lazy.Tensor, len(ps))
	for _, p := range ps {
		out[p.Name] = p.Tensor
	}
	return out
}

// Get returns the tensor named name, or nil.
func (ps ParamList) Get(name string) *lazy.Tensor {
	for _, p := range ps {
		if p.Name == name {
			return p.Tensor
		}
	}
	return nil
}

// Count is the total number of elements.
func (ps ParamList) Count() int64 {
	var n int64
	for _, p := range ps {
		n += p.Tensor.Size()
	}
	return n
}

// String lists one "name  shape" line per entry.
func (ps ParamList) String() string {
	w := 0
	for _, p := range ps {
		w = max(w, len(p.Name))
	}
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%-*s  %s", w, p.Name, p.Tensor.Shape())
		if p.Buffer {
			b.WriteString("  (buffer)")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Params lists the trainable tensors of m (every non-nil *lazy.Tensor
// reachable through struct fields, pointers, slices, arrays, maps and
// interfaces, except buffers and fields tagged `nn:"-"`), each once, under
// the name of its first path.
func Params(m any) ParamList { return collect(m, func(p Param) bool { return !p.Buffer }, true) }

// Buffers lists the buffers of m (fields tagged `nn:",buffer"`), each once.
func Buffers(m any) ParamList { return collect(m, func(p Param) bool { return p.Buffer }, true) }

// State lists parameters and buffers in field order: what a checkpoint
// holds. A tensor reachable under two names (tied weights) appears under
// both, as in PyTorch's state_dict.
func State(m any) ParamList { return collect(m, func(Param) bool { return true }, false) }

// StateDict is State(m).Map().
func StateDict(m any) map[string]*lazy.Tensor { return State(m).Map() }

func collect(m any, keep func(Param) bool, dedupe bool) ParamList {
	var out ParamList
	seen := map[*lazy.Tensor]bool{}
	w := walker{visited: map[visitKey]bool{}}
	w.tensor = func(path string, t *lazy.Tensor, buffer bool) {
		p := Param{Name: path, Tensor: t, Buffer: buffer}
		if !keep(p) || (dedupe && seen[t]) {
			return
		}
		seen[t] = true
		out = append(out, p)
	}
	w.walk(reflect.ValueOf(m), "", false)
	return out
}

// Trainer is a layer whose behaviour differs between training and
// evaluation (BatchNorm, Dropout).
type Trainer interface{ SetTraining(on bool) }

// SetTraining switches every layer of m that implements Trainer (reached
// through pointers or addressable fields) to training (on) or evaluation
// mode, like PyTorch's module.train() and module.eval(). The mode is a Go
// bool in the layers, so a compiled step traces once per mode.
func SetTraining(m any, on bool) {
	w := walker{visited: map[visitKey]bool{}}
	w.trainer = func(t Trainer) { t.SetTraining(on) }
	w.walk(reflect.ValueOf(m), "", false)
}

var (
	tensorType  = reflect.TypeOf((*lazy.Tensor)(nil))
	trainerType = reflect.TypeOf((*Trainer)(nil)).Elem()
)

type visitKey struct {
	p unsafe.Pointer
	t reflect.Type
}

type walker struct {
	visited map[visitKey]bool
	tensor  func(path string, t *lazy.Tensor, buffer bool)
	trainer func(Trainer)
}

// fieldTag parses the options of `nn:"name,buffer"` (the name is
// jit.FieldPath's).
func fieldTag(f reflect.StructField) (buffer, skip bool) {
	tag := f.Tag.Get("nn")
	if tag == "-" {
		return false, true
	}
	_, opts, _ := strings.Cut(tag, ",")
	for _, o := range strings.Split(opts, ",") {
		if o == "buffer" {
			buffer = true
		}
	}
	return buffer, false
}

// usable returns v without the read-only flag of unexported fields, so
// methods can be called on it (nn only reads tensors and calls SetTraining).
func usable(v reflect.Value) reflect.Value {
	if v.CanInterface() || !v.CanAddr() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

func (w *walker) walk(v reflect.Value, path string, buffer bool) {
	if !v.IsValid() {
		return
	}
	t := v.Type()
	if t == tensorType {
		if !v.IsNil() && w.tensor != nil {
			w.tensor(path, (*lazy.Tensor)(v.UnsafePointer()), buffer)
		}
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		k := visitKey{v.UnsafePointer(), t}
		if w.visited[k] {
			return
		}
		w.visited[k] = true
		w.walk(v.Elem(), path, buffer)
	case reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem(), path, buffer)
		}
	case reflect.Struct:
		if w.trainer != nil && v.CanAddr() && reflect.PointerTo(t).Implements(trainerType) {
			if u := usable(v).Addr(); u.CanInterface() {
				w.trainer(u.Interface().(Trainer))
			}
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			buf, skip := fieldTag(f)
			if skip {
				continue
			}
			w.walk(v.Field(i), jit.FieldPath(path, f), buffer || buf)
		}
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && v.IsNil() {
			return
		}
		for i := 0; i < v.Len(); i++ {
			w.walk(v.Index(i), jit.IndexPath(path, i), buffer)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sortKeys(keys)
		for _, k := range keys {
			w.walk(v.MapIndex(k), jit.KeyPath(path, k), buffer)
		}
	}
}

// sortKeys orders map keys: numbers by value, everything else by its
// printed form.
func sortKeys(keys []reflect.Value) {
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		switch a.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return a.Int() < b.Int()
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			return a.Uint() < b.Uint()
		case reflect.Float32, reflect.Float64:
			return a.Float() < b.Float()
		}
		return fmt.Sprint(a) < fmt.Sprint(b)
	})
}
