package lazy

import (
	"fmt"
	"runtime"
	"strings"
)

// Error is the typed error every tensor op panics with on bad input (shape,
// dtype, device, axis). Inside a traced function the jit recovers it and
// returns it; elsewhere it reaches the caller as a panic value (use Try to
// get it as an error).
type Error struct {
	Op     string   // lazy op name ("MatMul")
	Shapes []string // operand shapes ("f32[2,3]")
	Msg    string
	Site   string // caller file:line
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Site != "" {
		b.WriteString(e.Site)
		b.WriteString(": ")
	}
	b.WriteString(e.Op)
	if len(e.Shapes) > 0 {
		b.WriteString("(" + strings.Join(e.Shapes, ", ") + ")")
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Try runs fn and returns the *Error (or other panic turned into an error)
// it panicked with, or nil.
func Try(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = AsError(r)
			if err == nil {
				panic(r)
			}
		}
	}()
	fn()
	return nil
}

// AsError converts a recovered panic value into an error when it is one of
// ours (an *Error or any error); other values give nil.
func AsError(r any) error {
	switch v := r.(type) {
	case *Error:
		return v
	case error:
		return v
	}
	return nil
}

func shapeStrings(in []Shape) []string {
	s := make([]string, len(in))
	for i, x := range in {
		s[i] = x.String()
	}
	return s
}

// throw panics with an *Error naming op, the operand shapes and the first
// caller outside this package.
func throw(op string, in []Shape, format string, args ...any) {
	panic(&Error{Op: op, Shapes: shapeStrings(in), Msg: fmt.Sprintf(format, args...), Site: callerSite()})
}

const pkgPrefix = "github.com/xlajit/xlajit/lazy."

// callerSite returns file:line of the first frame outside package lazy
// (tests of package lazy count as outside).
func callerSite() string {
	var pcs [32]uintptr
	n := runtime.Callers(2, pcs[:])
	return siteFromPCs(pcs[:n])
}

func siteFromPCs(pcs []uintptr) string {
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if !internalFrame(f) {
			return shortFile(f.File) + ":" + fmt.Sprint(f.Line)
		}
		if !more {
			return ""
		}
	}
}

func internalFrame(f runtime.Frame) bool {
	if strings.HasPrefix(f.Function, "runtime.") || strings.HasPrefix(f.Function, "reflect.") {
		return true
	}
	if !strings.HasPrefix(f.Function, pkgPrefix) {
		return strings.Contains(f.Function, "xlajit/xlajit/jit.") || strings.Contains(f.Function, "xlajit/xlajit/bridge.") ||
			strings.Contains(f.Function, "xlajit/xlajit/fx.") || strings.Contains(f.Function, "xlajit/xlajit/partitioner.")
	}
	return !strings.HasSuffix(f.File, "_test.go")
}

// shortFile keeps the last two path elements ("mnist/main.go").
func shortFile(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return p
	}
	j := strings.LastIndexByte(p[:i], '/')
	return p[j+1:]
}
