package jit

// Option configures Compile.
type Option func(*options)

type options struct {
	recompileLimit int
	fullGraph      bool
	name           string
}

// DefaultRecompileLimit is the number of traces (input signatures) a
// compiled function gets before it falls back to lazy mode.
const DefaultRecompileLimit = 8

func defaultOptions() options { return options{recompileLimit: DefaultRecompileLimit} }

// WithRecompileLimit sets how many input signatures a function may be traced
// for; past it calls run in lazy mode (one warning), or fail under FullGraph.
func WithRecompileLimit(n int) Option { return func(o *options) { o.recompileLimit = n } }

// FullGraph makes graph breaks and going past the recompile limit errors
// instead of falling back to lazy mode.
func FullGraph() Option { return func(o *options) { o.fullGraph = true } }

// WithName names the function in warnings, Explain and dumps.
func WithName(name string) Option { return func(o *options) { o.name = name } }
