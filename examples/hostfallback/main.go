package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/jit/jittest"
	"github.com/xlajit/xlajit/lazy"
)

// columnMedian is the user's Go code: the median of each column of an f32
// matrix (a sort per column, the kind of thing one would rather write in Go
// than in tensor ops). Its output shape [cols] is declared to HostFunc, so
// the trace records it as a host node without running it.
func columnMedian(in []*hlo.Literal) ([]*hlo.Literal, error) {
	x := in[0]
	if x.DType != hlo.F32 || len(x.Dims) != 2 {
		return nil, fmt.Errorf("columnMedian: want an f32 matrix, got %s", x.ShapeString())
	}
	rows, cols := int(x.Dims[0]), int(x.Dims[1])
	if rows == 0 {
		return nil, fmt.Errorf("columnMedian: the median of an empty column (%s)", x.ShapeString())
	}
	v := x.F32()
	out := hlo.NewLiteral(hlo.F32, int64(cols))
	col := make([]float32, rows)
	for c := 0; c < cols; c++ {
		for r := 0; r < rows; r++ {
			col[r] = v[r*cols+c]
		}
		slices.Sort(col)
		m := col[rows/2]
		if rows%2 == 0 {
			m = (col[rows/2-1] + col[rows/2]) / 2
		}
		out.F32()[c] = m
	}
	return []*hlo.Literal{out}, nil
}

// analyze scores x [rows, d] with w [d, cols] on the device, then
//   - active: the coordinates of scores above threshold (NonZero, host),
//   - energy: the sum of squares of those scores (MaskedSelect on the host,
//     the reduction back on the device),
//   - centered: the scores minus each column's median (HostFunc in Go, the
//     subtraction on the device).
func analyze(x, w *lazy.Tensor, threshold float64) (active, energy, centered *lazy.Tensor) {
	h := x.MatMul(w).Tanh()
	mask := h.GtScalar(threshold)
	active = mask.NonZero()
	energy = h.MaskedSelect(mask).Square().Sum()
	med := lazy.HostFunc("columnMedian", columnMedian, lazy.NewShape(lazy.F32, h.Dim(1)))(h)[0]
	centered = h.Sub(med)
	return active, energy, centered
}

type config struct {
	Rows, Dim, Cols int64
	Calls           int // calls per input (the first input is called Calls times, then a second input once)
	Threshold       float64
	Seed            uint64
	Out             io.Writer
}

// callRecord is what one call did.
type callRecord struct {
	Input     string
	Active    int   // rows of the NonZero result
	Executes  int64 // device programs executed
	Compiles  int64 // uncached compiles (the trace's own cuts included)
	JitComp   int64 // device programs the jit built for f (jit.Stats.Compiles)
	NonZero   int64 // HostFallback.NonZero
	Masked    int64 // HostFallback.MaskedSelect
	HostFunc  int64 // HostFallback.HostFunc
	MatchesEg bool  // every output equals eager mode's
}

type result struct {
	Calls   []callRecord
	Stats   jit.Stats
	Explain string
}

func run(cfg config) (*result, error) {
	if cfg.Rows < 1 || cfg.Dim < 1 || cfg.Cols < 1 {
		return nil, fmt.Errorf("-rows %d -dim %d -cols %d: every size must be positive", cfg.Rows, cfg.Dim, cfg.Cols)
	}
	lazy.ManualSeed(cfg.Seed)
	w := lazy.RandN(lazy.F32, cfg.Dim, cfg.Cols).MulScalar(1 / math.Sqrt(float64(cfg.Dim)))
	x1 := lazy.RandN(lazy.F32, cfg.Rows, cfg.Dim)
	x2 := lazy.RandN(lazy.F32, cfg.Rows, cfg.Dim).MulScalar(2) // same shape, other data: another number of active entries
	if err := lazy.Sync(w, x1, x2); err != nil {
		return nil, err
	}
	f := jit.Compile(analyze, jit.WithName("analyze"))

	type input struct {
		name string
		x    *lazy.Tensor
	}
	var inputs []input
	for range cfg.Calls {
		inputs = append(inputs, input{"x1", x1})
	}
	inputs = append(inputs, input{"x2", x2})

	res := &result{}
	fmt.Fprintf(cfg.Out, "analyze(x f32[%d,%d], w f32[%d,%d]) on %s\n", cfg.Rows, cfg.Dim, cfg.Dim, cfg.Cols, lazy.DefaultDevice())
	fmt.Fprintf(cfg.Out, "%-5s %-3s %7s %9s %9s %9s %8s %13s %9s %s\n", "call", "x", "active", "executes", "compiles", "jit progs", "NonZero", "MaskedSelect", "HostFunc", "eager")
	for i, in := range inputs {
		var active, energy, centered *lazy.Tensor
		var err error
		before := jit.StatsOf(f)
		d := jittest.Delta(func() {
			err = lazy.Try(func() {
				active, energy, centered = f(in.x, w, cfg.Threshold)
				if err := lazy.Sync(active, energy, centered); err != nil {
					panic(err)
				}
			})
		})
		if err != nil {
			return nil, err
		}
		match, err := matchesEager(in.x, w, cfg.Threshold, active, energy, centered)
		if err != nil {
			return nil, err
		}
		rec := callRecord{
			Input: in.name, Active: int(active.Dim(0)),
			Executes: d[lazy.MetricExecuteCount], Compiles: d[lazy.MetricUncachedCompile],
			JitComp:   jit.StatsOf(f).Compiles - before.Compiles,
			NonZero:   d[lazy.MetricHostFallbackPrefix+"NonZero"],
			Masked:    d[lazy.MetricHostFallbackPrefix+"MaskedSelect"],
			HostFunc:  d[lazy.MetricHostFallbackPrefix+"HostFunc"],
			MatchesEg: match,
		}
		res.Calls = append(res.Calls, rec)
		ok := "same"
		if !match {
			ok = "DIFFERENT"
		}
		fmt.Fprintf(cfg.Out, "%-5d %-3s %7d %9d %9d %9d %8d %13d %9d %s\n", i+1, rec.Input, rec.Active, rec.Executes, rec.Compiles, rec.JitComp, rec.NonZero, rec.Masked, rec.HostFunc, ok)
	}
	// Call 1 traces: the host ops run on the real data (the trace needs
	// their output shapes) after cuts that compute their inputs; the
	// recorded graph is split into two device partitions around the three
	// host nodes, both are compiled, and the stages are replayed. Later
	// calls replay: two device programs and one run of each host node. An
	// input with another number of active entries makes a host op return a
	// result of another shape than traced: the rest of the recorded graph is
	// stale (sizes may be constants in it), so that call runs lazily, and
	// Explain says so.
	res.Stats = jit.StatsOf(f)
	res.Explain = jit.Explain(f)
	fmt.Fprintf(cfg.Out, "\n%s\n%s", res.Stats, res.Explain)
	// The process-wide counter also counts the eager checks' NonZero runs.
	var compiled int64
	for _, c := range res.Calls {
		compiled += c.NonZero
	}
	fmt.Fprintf(cfg.Out, "lazy.Counter(%q) = %d (%d in the compiled calls, the rest in the eager checks)\n",
		lazy.MetricHostFallbackPrefix+"NonZero", lazy.Counter(lazy.MetricHostFallbackPrefix+"NonZero"), compiled)
	return res, nil
}

// matchesEager runs analyze in eager mode (every op its own program, host
// ops at once) and compares: coordinates exactly, values to float32
// rounding (the compiled programs may fuse and order sums differently).
func matchesEager(x, w *lazy.Tensor, threshold float64, active, energy, centered *lazy.Tensor) (bool, error) {
	lazy.SetEager(true)
	defer lazy.SetEager(false)
	var ea, ee, ec *lazy.Tensor
	if err := lazy.Try(func() { ea, ee, ec = analyze(x, w, threshold) }); err != nil {
		return false, err
	}
	lazy.SetEager(false)
	return slices.Equal(active.Int64s(), ea.Int64s()) &&
		close32(energy.Float32s(), ee.Float32s()) &&
		close32(centered.Float32s(), ec.Float32s()), nil
}

func close32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-5*(1+math.Abs(float64(b[i]))) {
			return false
		}
	}
	return true
}

func main() {
	cfg := config{Out: os.Stdout}
	flag.Int64Var(&cfg.Rows, "rows", 64, "rows of x")
	flag.Int64Var(&cfg.Dim, "dim", 16, "columns of x (rows of w)")
	flag.Int64Var(&cfg.Cols, "cols", 8, "columns of w")
	flag.IntVar(&cfg.Calls, "calls", 3, "calls with the first input (then one with a second)")
	flag.Float64Var(&cfg.Threshold, "threshold", 0.5, "activation threshold")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "RNG seed")
	flag.Parse()
	res, err := run(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostfallback:", err)
		os.Exit(1)
	}
	for _, c := range res.Calls {
		if !c.MatchesEg {
			fmt.Fprintln(os.Stderr, "hostfallback: a compiled result differs from eager mode")
			os.Exit(1)
		}
	}
}
