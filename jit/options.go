package jit

import (
	"fmt"
	"path/filepath"
	"runtime"
)

// Option configures Compile.
type Option func(*options)

type options struct {
	recompileLimit int
	fullGraph      bool
	name           string
	// err is the first invalid option (CompileE returns it).
	err error
}

// DefaultRecompileLimit is the number of traces (input signatures) a
// compiled function gets before it falls back to lazy mode.
const DefaultRecompileLimit = 8

func defaultOptions() options { return options{recompileLimit: DefaultRecompileLimit} }

// WithRecompileLimit sets how many input signatures a function may be traced
// for; past it calls run in lazy mode (one warning), or fail under FullGraph.
// 0 traces nothing (every call runs in lazy mode). A negative n is an error:
// CompileE returns it (and Compile panics with it), naming the line that
// made the option.
func WithRecompileLimit(n int) Option {
	if n < 0 {
		err := fmt.Errorf("%sWithRecompileLimit(%d): the limit must not be negative", callerLine(), n)
		return func(o *options) {
			if o.err == nil {
				o.err = err
			}
		}
	}
	return func(o *options) { o.recompileLimit = n }
}

// FullGraph makes graph breaks and going past the recompile limit errors
// instead of falling back to lazy mode.
func FullGraph() Option { return func(o *options) { o.fullGraph = true } }

// WithName names the function in warnings, Explain and dumps.
func WithName(name string) Option { return func(o *options) { o.name = name } }

// callerLine is "dir/file.go:line: " of the caller of an option
// constructor ("" when unknown).
func callerLine() string {
	_, file, line, ok := runtime.Caller(2)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s:%d: ", filepath.Join(filepath.Base(filepath.Dir(file)), filepath.Base(file)), line)
}
