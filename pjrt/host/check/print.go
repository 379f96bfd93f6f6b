package check

import (
	"fmt"
	"math"
	"os"
	"strings"
	"sync"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// interpreter.print writes its operand as the reference interpreter does:
// the operand's name as the printer numbers it in its function, " = ", and
// the tensor in the interpreter's layout (FormatTensor), then a newline.
// Output goes through the run's check log (kernel.CheckLog.Print), else
// to stdout; each print is written whole.
func init() {
	kernel.Register(kernel.Entry{Name: "interpreter.print", Compile: compilePrint})
}

// stdoutMu keeps the prints of runs without a check log whole.
var stdoutMu sync.Mutex

func compilePrint(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) != 1 || len(c.Out) != 0 {
		return nil, c.Errorf("want 1 operand and no result, got %d and %d", len(c.In), len(c.Out))
	}
	if c.InTensor(0) == nil {
		return nil, c.Errorf("prints a tensor, got %s", c.In[0])
	}
	prefix := printName(c.Module, c.Op.Operands[0])
	typ := c.In[0].String()
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		l, ok := args[0].(*hlo.Literal)
		if !ok {
			return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("prints a tensor, got %T", args[0])}
		}
		s := prefix + FormatTensor(l, typ) + "\n"
		if x != nil && x.Checks != nil {
			return x.Checks.Print(s)
		}
		stdoutMu.Lock()
		defer stdoutMu.Unlock()
		_, err := os.Stdout.WriteString(s)
		return err
	}, nil
}

// printName is what the reference interpreter writes before the tensor:
// it prints the operand (for an op result, its defining op's line) and
// keeps the text up to "= " included, so "%0 = " or "%1:2 = ". A block
// argument prints as "<block argument> of type ...", which has no "=", and
// the cut keeps its first character, "<".
func printName(m *hlo.Module, v *hlo.Value) string {
	if v.Def == nil {
		return "<"
	}
	if m != nil {
		for _, f := range m.Funcs {
			if names := f.ResultNames(v.Def); names != "" {
				return names + " = "
			}
		}
	}
	return "%" + v.Name + " = "
}

// FormatTensor prints l as the reference interpreter prints a result
// without --interpreter-print-dense: the type, then " {", the elements
// nested one bracket level per dimension, each level on its own lines
// indented two spaces deeper, and "}"; a scalar prints as `tensor<T> {v}`.
// Elements are written as in MLIR literals, a complex one as [re, im].
// typ is the type to print (the declared one of a quantized value); ""
// prints l's own. interpreter.print and conform's FileCheck runs use it.
//
//	tensor<2x2xi8> {
//	  [
//	    [1, 2],
//	    [3, 4]
//	  ]
//	}
func FormatTensor(l *hlo.Literal, typ string) string {
	if typ == "" {
		typ = l.Type().String()
	}
	var b strings.Builder
	b.WriteString(typ)
	b.WriteString(" {")
	flat := 0
	writeLevel(&b, l, nil, &flat, 1)
	b.WriteString("}")
	return b.String()
}

// writeLevel writes the elements under index prefix idx (the reference
// interpreter's recursion, separators and newlines included).
func writeLevel(b *strings.Builder, l *hlo.Literal, idx []int64, flat *int, indent int) {
	if len(idx) == len(l.Dims) {
		b.WriteString(tensorElem(l, *flat))
		*flat++
		if !lastIndex(idx, l.Dims) {
			b.WriteString(", ")
		}
		return
	}
	newlineIndent(b, indent)
	b.WriteByte('[')
	for i := int64(0); i < l.Dims[len(idx)]; i++ {
		writeLevel(b, l, append(idx, i), flat, indent+1)
	}
	b.WriteByte(']')
	if !lastIndex(idx, l.Dims) {
		b.WriteByte(',')
	} else {
		newlineIndent(b, indent-1)
	}
}

// lastIndex reports whether idx is the last index of its dimension (true
// for the empty index).
func lastIndex(idx, dims []int64) bool {
	if len(idx) == 0 {
		return true
	}
	return idx[len(idx)-1] == dims[len(idx)-1]-1
}

func newlineIndent(b *strings.Builder, n int) {
	b.WriteByte('\n')
	for i := 0; i < n; i++ {
		b.WriteString("  ")
	}
}

func tensorElem(l *hlo.Literal, i int) string {
	switch l.DType {
	case hlo.C64:
		c := l.C64()[i]
		return "[" + hlo.FormatFloatBits(hlo.F32, uint64(math.Float32bits(real(c)))) + ", " +
			hlo.FormatFloatBits(hlo.F32, uint64(math.Float32bits(imag(c)))) + "]"
	case hlo.C128:
		c := l.C128()[i]
		return "[" + hlo.FormatFloatBits(hlo.F64, math.Float64bits(real(c))) + ", " +
			hlo.FormatFloatBits(hlo.F64, math.Float64bits(imag(c))) + "]"
	}
	return l.ElemString(i)
}
