package nn

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/xlajit/xlajit/lazy"
)

// Sites of lazy's errors and IR nodes pass over this package's frames to
// the user's line: a label out of range found by the TakeAlong inside
// CrossEntropy names the line that called CrossEntropy, not loss.go.
func init() { lazy.SkipInSites(strings.TrimSuffix(pkgPrefix, ".")) }

// throw panics with a *lazy.Error naming the layer or function, the shapes
// involved and the first caller outside this package, as lazy ops do (the
// jit boundary recovers it; lazy.Try turns it into an error).
func throw(op string, ts []*lazy.Tensor, format string, args ...any) {
	var shapes []string
	for _, t := range ts {
		if t == nil {
			shapes = append(shapes, "nil")
		} else {
			shapes = append(shapes, t.Shape().String())
		}
	}
	panic(&lazy.Error{Op: op, Shapes: shapes, Msg: fmt.Sprintf(format, args...), Site: callerSite()})
}

const pkgPrefix = "github.com/xlajit/xlajit/nn."

// callerSite is file:line of the first frame outside package nn (its tests
// count as outside).
func callerSite() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, pkgPrefix) || strings.HasSuffix(f.File, "_test.go") {
			return fmt.Sprintf("%s:%d", shortFile(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}

func shortFile(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		if j := strings.LastIndex(p[:i], "/"); j >= 0 {
			return p[j+1:]
		}
	}
	return p
}

// relabel returns a deferred handler for a layer built on a lazy op of
// another shape (a 1-d convolution as a 2-d one of height 1): an error of
// that op becomes the layer's, with the caller's shapes, the inner op kept
// in the message. Use it as
//
//	defer relabel("nn.Conv1d", x, w)()
func relabel(op string, ts ...*lazy.Tensor) func() {
	return func() {
		r := recover()
		if r == nil {
			return
		}
		e, ok := r.(*lazy.Error)
		if !ok || e.Op == op {
			panic(r)
		}
		var shapes []string
		for _, t := range ts {
			if t != nil {
				shapes = append(shapes, t.Shape().String())
			}
		}
		panic(&lazy.Error{Op: op, Shapes: shapes, Msg: e.Op + ": " + e.Msg, Site: e.Site})
	}
}
