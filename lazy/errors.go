package lazy

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/xlajit/xlajit/hlo"
)

// Error is the typed error every tensor op panics with on bad input (shape,
// dtype, device, axis, attribute range, nil tensor). Inside a traced
// function the jit recovers it and returns it; elsewhere it reaches the
// caller as a panic value (use Try to get it as an error). An op that
// panics with an *Error has changed nothing: no IR recorded, no counter
// counted, no RNG state advanced, no tensor written.
type Error struct {
	Op     string   // lazy op name ("MatMul")
	Shapes []string // operand shapes ("f32[2,3]")
	Msg    string
	Site   string // caller file:line
	Err    error  // the underlying error, when there is one (Unwrap)
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

// Unwrap returns the underlying error (nil when there is none).
func (e *Error) Unwrap() error { return e.Err }

// Try runs fn and returns the error it panicked with when AsError
// recognises it as one, or nil. Any other panic (a Go runtime error, a
// panic of fn's own code) is not caught: it continues with its original
// value.
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

// AsError converts a recovered panic value into an error when it reports
// a failure to the caller: an *Error, an error of the hlo builder
// (*hlo.BuildError, returned as an *Error naming the StableHLO op and the
// Go caller), or a ReportedError of a package built on lazy (jit.Error).
// Every other value gives nil: a Go runtime error (a nil dereference, an
// index out of range), a panic of user code, of hlo's literal accessors or
// of lazy's own invariants is a bug, and it must surface as one, not as an
// input error (capability discovery would otherwise take a buggy op for
// one the device cannot run).
func AsError(r any) error {
	switch v := r.(type) {
	case *Error:
		if v != nil {
			return v
		}
	case *hlo.BuildError:
		if v != nil {
			return buildError("", nil, v)
		}
	case ReportedError:
		if v != nil {
			return v
		}
	}
	return nil
}

// ReportedError is implemented by the error types that packages built on
// lazy panic with to report a failure to their caller, as lazy panics with
// *Error (jit.Error: an unsupported signature, a failed trace or compile):
// AsError, and so Try, convert them.
type ReportedError interface {
	error
	ReportedError()
}

// buildError turns an hlo builder error into an *Error of op (the
// StableHLO op when op is empty).
func buildError(op string, in []Shape, be *hlo.BuildError) *Error {
	site := ""
	if be.Loc.File != "" {
		site = fmt.Sprintf("%s:%d", be.Loc.File, be.Loc.Line)
	}
	if op == "" {
		op = be.Op
	}
	return &Error{Op: op, Shapes: shapeStrings(in), Msg: be.Err.Error(), Site: site, Err: be}
}

// bug is the panic value of a broken invariant inside package lazy (never
// bad input: AsError does not convert it).
type bug struct{ msg string }

func (b *bug) Error() string { return "lazy: internal error: " + b.msg }

func bugf(format string, args ...any) *bug { return &bug{fmt.Sprintf(format, args...)} }

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

// pkgPrefix starts the names of package lazy's functions.
var pkgPrefix = reflect.TypeFor[Error]().PkgPath() + "."

// sitePkgs are the import paths, each with a final ".", of the packages
// whose functions sites pass over besides lazy's own (SkipInSites).
var sitePkgs atomic.Pointer[[]string]

// SkipInSites makes sites (an error's or an IR node's file:line) pass over
// the functions of the package at import path pkg as they pass over
// lazy's own: a package built on lazy that runs user code or calls lazy on
// its behalf (the jit and its parts) registers itself in an init
// function, so that a site names the user's line, not the package's. Its
// external tests (package pkg_test) are not passed over.
func SkipInSites(pkg string) {
	for {
		old := sitePkgs.Load()
		var cur []string
		if old != nil {
			cur = *old
		}
		if slices.Contains(cur, pkg+".") {
			return
		}
		next := append(slices.Clip(cur), pkg+".")
		if sitePkgs.CompareAndSwap(old, &next) {
			return
		}
	}
}

// callerSite returns file:line of the first frame outside package lazy
// (tests of package lazy count as outside) and the packages registered
// with SkipInSites.
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
	if strings.HasPrefix(f.Function, pkgPrefix) {
		return !strings.HasSuffix(f.File, "_test.go")
	}
	if p := sitePkgs.Load(); p != nil {
		for _, pkg := range *p {
			if strings.HasPrefix(f.Function, pkg) {
				return true
			}
		}
	}
	return false
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
