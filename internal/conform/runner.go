package conform

import (
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host/check"
)

// DefaultTimeout bounds one case (parse, compile and run): a hang becomes a
// failure instead of stalling the suite.
const DefaultTimeout = 20 * time.Second

// cancelGrace is how long a timed-out case gets to stop after its cancel.
const cancelGrace = time.Second

// Options configure a run.
type Options struct {
	// Client runs the cases through the device seam. Nil runs them on the
	// embedded device directly, which reports every check op's verdict.
	Client pjrt.Client
	// Timeout per case; 0 means DefaultTimeout.
	Timeout time.Duration
	// Workers is the number of cases run at once; 0 means GOMAXPROCS.
	Workers int
	// Root, when set, makes result file names relative to it.
	Root string
	// Done, when set, is called after each case (one call at a time).
	Done func(*Result)
}

// Phases splits a case's time, to see where the suite spends it.
type Phases struct {
	Parse, Compile, Run time.Duration
}

// job is one case: a split part of one file, or one test function of it.
type job struct {
	path     string // file as found
	name     string // file name for results
	index    int
	line     int // first line of the part
	text     string
	fn       string  // the test function, "" for the part's entry
	fnLine   int     // the test function's line
	fcRuns   []fcRun // RUN lines verified by FileCheck
	ireeRun  bool    // the file's RUN lines run iree-run-mlir (ireerun.go)
	upstream string
}

// Run runs every case of the .mlir files under paths and returns their
// results sorted by file and case. The error is only about finding and
// reading the paths; case failures are results.
func Run(opts Options, paths ...string) ([]*Result, error) {
	files, err := Files(paths...)
	if err != nil {
		return nil, err
	}
	return RunFiles(opts, files)
}

// RunFiles is Run over an explicit list of files.
func RunFiles(opts Options, files []string) ([]*Result, error) {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan job, 4*workers)
	var (
		mu  sync.Mutex
		out []*Result
	)
	emit := func(r *Result) {
		mu.Lock()
		defer mu.Unlock()
		out = append(out, r)
		if opts.Done != nil {
			opts.Done(r)
		}
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				emit(runJob(opts, j))
			}
		}()
	}
	for _, f := range files {
		name := relName(opts.Root, f)
		src, err := os.ReadFile(f)
		if err != nil {
			r := &Result{File: name}
			r.fail(KindRead, "", "%v", err)
			emit(r)
			continue
		}
		text := string(src)
		up := upstreamDisabled(text)
		fc := fileCheckRuns(text)
		ireeRun := false
		for _, r := range fc {
			ireeRun = ireeRun || r.tool == toolIREERun
		}
		index := 0
		for _, c := range splitFile(text) {
			j := job{path: f, name: name, line: c.line, text: c.text, fcRuns: fc, ireeRun: ireeRun, upstream: up}
			fns, perFunc := testFuncs(funcItems(c.text))
			if !perFunc || ireeRun {
				j.index = index
				index++
				jobs <- j
				continue
			}
			for _, fn := range fns {
				j.index, j.fn, j.fnLine = index, fn.name, c.line+fn.line
				index++
				jobs <- j
			}
		}
	}
	close(jobs)
	wg.Wait()
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Case < out[j].Case
	})
	return out, nil
}

// runJob runs one case under the timeout, turning a panic into a failure.
func runJob(opts Options, j job) *Result {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	start := time.Now()
	done := make(chan *Result, 1)
	stop := newStopper()
	go func() {
		r := newResult(j)
		defer func() {
			if p := recover(); p != nil {
				r.fail(KindPanic, r.Op, "panic: %v\n%s", p, panicSite(debug.Stack()))
			}
			done <- r
		}()
		runCase(opts, j, r, stop)
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	var r *Result
	select {
	case r = <-done:
	case <-t.C:
		stop.stop()
		r = newResult(j)
		// A goroutine cannot be killed: the executor's loops watch the
		// cancel channel; one that does not is left running.
		how := "still running: the executor ignored the cancel"
		select {
		case <-done:
			how = "stopped when cancelled"
		case <-time.After(cancelGrace):
		}
		r.fail(KindTimeout, "", "timed out after %v (%s)", timeout, how)
		if fn := stop.entry.Load(); fn != nil {
			r.Func = *fn
		}
	}
	r.Upstream = j.upstream
	r.Duration = time.Since(start)
	r.Seconds = r.Duration.Seconds()
	return r
}

// newResult is the result of job j before it ran.
func newResult(j job) *Result {
	r := &Result{File: j.name, Case: j.index, Line: j.line, Func: j.fn}
	if j.fn != "" {
		r.Line = j.fnLine
	}
	return r
}

// panicSite keeps the frames of a panic's stack that point into the
// project, so the report shows where it happened without the runtime noise.
func panicSite(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	var keep []string
	for i := 0; i+1 < len(lines) && len(keep) < 6; i++ {
		if strings.Contains(lines[i], "xlajit/") && !strings.Contains(lines[i], "internal/conform") && !strings.HasPrefix(lines[i], "\t") {
			keep = append(keep, "\t"+lines[i]+" "+strings.TrimSpace(lines[i+1]))
		}
	}
	return strings.Join(keep, "\n")
}

// runCase parses, classifies, compiles and runs one case into r.
func runCase(opts Options, j job, r *Result, stop *stopper) {
	if j.ireeRun {
		runIREECase(opts, j, r, stop)
		return
	}
	t0 := time.Now()
	p, err := prepare(j, j.fn)
	r.Phases.Parse = time.Since(t0)
	if err != nil {
		failPrep(r, err)
		return
	}
	m, entry := p.m, p.entry
	reprepare := func() (*prepared, error) { return prepare(j, j.fn) }
	if len(m.Funcs) == 0 {
		// An empty module runs trivially, as upstream's interpreter does.
		r.Status = Pass
		return
	}
	if entry != nil {
		if r.Func == "" {
			r.Func = entry.Name
		}
		stop.entry.Store(&r.Func)
	}
	if s := skipReason(m, entry, opts.Client != nil); s != "" {
		r.Status, r.Skip, r.Reason = Skip, s, SkipDoc(s)
		return
	}
	if entry == nil {
		r.fail(KindEntry, "", "no entry function: %d functions and none is @main", len(m.Funcs))
		return
	}
	fcs, err := caseFileChecks(j.fcRuns, j.text, j.line)
	if err != nil {
		r.Status, r.Skip, r.Reason = Skip, SkipFileCheck, SkipDoc(SkipFileCheck)+": "+err.Error()
		return
	}
	if len(fcs) == 0 {
		if len(entry.Args) > 0 {
			r.fail(KindEntry, "", "entry @%s takes %d arguments; a case must take none", r.Func, len(entry.Args))
			return
		}
		execute(opts, reprepare, m, entry, nil, r, stop)
	}
	// A FileCheck-verified case runs once per RUN line (each may pass
	// other --args), its check ops judged every time.
	for _, fc := range fcs {
		var args []*hlo.Literal
		if fc.run.hasArgs {
			if args, err = ParseArgs(fc.run.args); err != nil {
				r.fail(KindEntry, "", "RUN line %d: %v", fc.run.line, err)
				return
			}
		}
		if len(args) != len(entry.Args) {
			r.fail(KindEntry, "", "entry @%s takes %d arguments, RUN line %d passes %d", r.Func, len(entry.Args), fc.run.line, len(args))
			return
		}
		res, printed, ok := execute(opts, reprepare, m, entry, args, r, stop)
		if !ok || r.Status == Fail {
			return
		}
		out := printed + formatOutput(entry, res, fc.run.dense)
		if err := matchDirectives(out, fc.dirs); err != nil {
			r.fail(KindFileCheck, "", "RUN line %d: %v\noutput:\n%s", fc.run.line, err, out)
			return
		}
	}
	if r.Status == "" {
		r.Status = Pass
	}
}

// execute runs a case once with args, judging its check ops into r, and
// returns the entry's results and what the program printed; ok is false
// when the run failed (r says why). Through a client the case is prepared
// again (by again) for each run, since lifting the checks rewrites the
// module, and prints stay on the device (SkipPrint keeps such cases off the
// seam).
func execute(opts Options, again func() (*prepared, error), m *hlo.Module, entry *hlo.Func, args []*hlo.Literal, r *Result, stop *stopper) ([]*hlo.Literal, string, bool) {
	if opts.Client == nil {
		res, printed := runEmbedded(m, entry, args, r, stop)
		return res, printed, r.Status != Fail
	}
	p, err := again()
	if err != nil {
		failPrep(r, err)
		return nil, "", false
	}
	res := runOnClient(opts.Client, p.m, p.entry, args, r)
	return res, "", r.Status != Fail
}

// failPrep records why prepare failed.
func failPrep(r *Result, err error) {
	var pe *prepError
	if errors.As(err, &pe) {
		r.fail(pe.kind, pe.op, "%v", pe.err)
		return
	}
	r.fail(KindParse, "", "%v", err)
}

// formatOutput is what stablehlo-translate --interpret prints for the
// results: one per line, dense literals with --interpreter-print-dense,
// else the interpreter's layout.
func formatOutput(entry *hlo.Func, res []*hlo.Literal, dense bool) string {
	var b strings.Builder
	for i, l := range res {
		if dense {
			b.WriteString(FormatLiteral(l))
		} else {
			typ := ""
			if i < len(entry.ResultTypes) && len(res) == len(entry.ResultTypes) {
				if t, ok := entry.ResultTypes[i].(*hlo.TensorType); ok && t.Quant != nil {
					typ = t.String()
				}
			}
			b.WriteString(check.FormatTensor(l, typ))
		}
		b.WriteByte('\n')
	}
	return b.String()
}
