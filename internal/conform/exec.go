package conform

import (
	"fmt"
	"os"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Exec runs the entry function of m with args and returns its results,
// tuples flattened. With a nil client it runs on the embedded device with a
// check log, returned so the caller can report failed checks (a failed
// check does not stop the program). With a client the module goes through
// the device seam unchanged and the log is nil.
func Exec(c pjrt.Client, m *hlo.Module, args []*hlo.Literal) ([]*hlo.Literal, *kernel.CheckLog, error) {
	entry := m.Entry()
	if entry == nil {
		return nil, nil, fmt.Errorf("no entry function: %d functions and none is @main", len(m.Funcs))
	}
	if len(args) != len(entry.Args) {
		return nil, nil, fmt.Errorf("@%s takes %d arguments, got %d", entry.Name, len(entry.Args), len(args))
	}
	for i, a := range entry.Args {
		t, ok := a.Type.(*hlo.TensorType)
		if !ok {
			return nil, nil, fmt.Errorf("@%s argument %d has type %s; only tensors can be passed", entry.Name, i, a.Type)
		}
		if !argFits(t, args[i]) {
			return nil, nil, fmt.Errorf("@%s argument %d: got %s, want %s", entry.Name, i, args[i].ShapeString(), t)
		}
	}
	if c == nil {
		prog, err := host.Compile(m)
		if err != nil {
			return nil, nil, err
		}
		log := &kernel.CheckLog{}
		in := make([]kernel.Value, len(args))
		for i, a := range args {
			in[i] = a
		}
		res, err := prog.Run(&kernel.Ctx{NumReplicas: 1, NumPartitions: 1, Checks: log}, in)
		if err != nil {
			return nil, log, err
		}
		var out []*hlo.Literal
		for _, v := range res {
			out = flatten(out, v)
		}
		return out, log, nil
	}
	exe, err := c.Compile(m, pjrt.CompileOptions{})
	if err != nil {
		return nil, nil, err
	}
	defer exe.Close()
	bufs := make([]pjrt.Buffer, len(args))
	for i, a := range args {
		b, err := c.BufferFromHost(a, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("argument %d: %w", i, err)
		}
		defer b.Delete()
		bufs[i] = b
	}
	outs, err := exe.Execute(bufs, pjrt.ExecuteOptions{})
	if err != nil {
		return nil, nil, err
	}
	res := make([]*hlo.Literal, len(outs))
	for i, b := range outs {
		l, err := b.ToHost()
		b.Delete()
		if err != nil {
			return nil, nil, fmt.Errorf("result %d: %w", i, err)
		}
		res[i] = l
	}
	return res, nil, nil
}

func argFits(t *hlo.TensorType, l *hlo.Literal) bool {
	if t.DType != l.DType || len(t.Dims) != len(l.Dims) {
		return false
	}
	for i, d := range t.Dims {
		if d >= 0 && d != l.Dims[i] {
			return false
		}
	}
	return true
}

func flatten(out []*hlo.Literal, v kernel.Value) []*hlo.Literal {
	switch v := v.(type) {
	case *hlo.Literal:
		return append(out, v)
	case kernel.Tuple:
		for _, e := range v {
			out = flatten(out, e)
		}
	}
	return out
}

// FormatLiteral prints l in MLIR literal syntax, `dense<...> : tensor<...>`,
// always element by element (never the hex form MLIR uses for large
// tensors), with a splat written once.
func FormatLiteral(l *hlo.Literal) string {
	if l.NumElements() <= hlo.HexThreshold {
		return l.String()
	}
	var b strings.Builder
	b.WriteString("dense<")
	n := l.NumElements()
	splat := true
	for i := 1; i < n && splat; i++ {
		splat = l.ElemString(i) == l.ElemString(0)
	}
	if splat {
		b.WriteString(l.ElemString(0))
	} else {
		writeNested(&b, l, 0, 0)
	}
	b.WriteString("> : ")
	b.WriteString(l.Type().String())
	return b.String()
}

func writeNested(b *strings.Builder, l *hlo.Literal, dim, off int) int {
	if dim == len(l.Dims) {
		b.WriteString(l.ElemString(off))
		return off + 1
	}
	b.WriteByte('[')
	for i := int64(0); i < l.Dims[dim]; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		off = writeNested(b, l, dim+1, off)
	}
	b.WriteByte(']')
	return off
}

// LoadCase reads a file and parses one of its cases: the only one when
// index < 0, else the index-th split part. IREE's test helpers are lowered
// to StableHLO (lower.go).
func LoadCase(path string, index int) (*hlo.Module, error) { return LoadFunc(path, index, "") }

// LoadFunc is LoadCase with the function fn as the entry ("" keeps the
// case's entry: its only function, else @main).
func LoadFunc(path string, index int, fn string) (*hlo.Module, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	parts := splitFile(string(src))
	switch {
	case index < 0 && len(parts) != 1:
		return nil, fmt.Errorf("%s has %d cases (split at \"// -----\"); choose one with --case", path, len(parts))
	case index < 0:
		index = 0
	case index >= len(parts):
		return nil, fmt.Errorf("%s has %d cases; case %d does not exist", path, len(parts), index)
	}
	p, err := prepare(job{name: path, text: parts[index].text, line: parts[index].line}, fn)
	if err != nil {
		return nil, err
	}
	return p.m, nil
}
