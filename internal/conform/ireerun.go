package conform

import (
	"fmt"
	"strings"
	"time"

	"github.com/xlajit/xlajit/hlo"
)

// runIREECase runs a split part of a file whose RUN lines pipe
// iree-run-mlir into FileCheck: for each such RUN line with directives in
// the part, every exported function runs with the line's inputs, and the
// printed output must match the directives; the functions' check ops are
// judged as always. A part without directives of its own runs once with
// the first such RUN line's inputs, for its check ops.
func runIREECase(opts Options, j job, r *Result, stop *stopper) {
	var runs []fcRun
	for _, run := range j.fcRuns {
		if run.tool == toolIREERun {
			runs = append(runs, run)
		}
	}
	fcs, err := caseFileChecks(runs, j.text, j.line)
	if err != nil {
		r.Status, r.Skip, r.Reason = Skip, SkipFileCheck, SkipDoc(SkipFileCheck)+": "+err.Error()
		return
	}
	if len(fcs) == 0 {
		if runs[0].unsupported != "" {
			r.Status, r.Skip, r.Reason = Skip, SkipFileCheck, fmt.Sprintf("%s: RUN line %d: %s is not reproduced", SkipDoc(SkipFileCheck), runs[0].line, runs[0].unsupported)
			return
		}
		fcs = []caseCheck{{run: runs[0]}}
	}
	for _, fc := range fcs {
		out, ok := runIREE(opts, j, fc.run, r, stop)
		if !ok {
			return
		}
		if err := matchDirectives(out, fc.dirs); err != nil {
			r.fail(KindFileCheck, "", "RUN line %d: %v\noutput:\n%s", fc.run.line, err, out)
			return
		}
	}
	if r.Status == "" {
		r.Status = Pass
	}
}

// runIREE runs the functions of one RUN line and returns what
// iree-run-mlir prints; ok is false when a function failed (r says why).
func runIREE(opts Options, j job, run fcRun, r *Result, stop *stopper) (string, bool) {
	var names []string
	if run.function != "" {
		names = []string{run.function}
	} else {
		for _, f := range funcItems(j.text) {
			if f.public() {
				names = append(names, f.name)
			}
		}
	}
	if len(names) == 0 {
		r.fail(KindEntry, "", "RUN line %d: no exported function to run", run.line)
		return "", false
	}
	if r.Func == "" {
		r.Func = names[0]
		stop.entry.Store(&r.Func)
	}
	var out strings.Builder
	for _, name := range names {
		t0 := time.Now()
		var args []*hlo.Literal
		// again prepares the function for a run with args: dynamic
		// argument types take the inputs' shapes, which flow on.
		again := func() (*prepared, error) {
			p, err := prepare(j, name)
			if err != nil {
				return nil, err
			}
			if p.entry == nil {
				return nil, &prepError{kind: KindEntry, err: fmt.Errorf("no function @%s", name)}
			}
			if args == nil {
				if args, err = ireeArgs(run, p); err != nil {
					return nil, &prepError{kind: KindEntry, err: fmt.Errorf("RUN line %d, @%s: %v", run.line, name, err)}
				}
			}
			for i, a := range p.entry.Args {
				if t, ok := a.Type.(*hlo.TensorType); ok && !t.IsStatic() {
					a.Type = args[i].Type()
				}
			}
			refineTypes(p.m)
			return p, nil
		}
		p, err := again()
		r.Phases.Parse += time.Since(t0)
		if err != nil {
			failPrep(r, err)
			return "", false
		}
		res, _, ok := execute(opts, again, p.m, p.entry, args, r, stop)
		if !ok {
			return "", false
		}
		fmt.Fprintf(&out, "EXEC @%s\n", name)
		if len(res) != len(p.results) {
			r.fail(KindRuntime, "", "@%s returned %d values, its type lists %d", name, len(res), len(p.results))
			return "", false
		}
		for i, l := range res {
			s, err := formatIREEResult(i, l, p.results[i], run.maxElems)
			if err != nil {
				r.fail(KindRuntime, "", "@%s: %v", name, err)
				return "", false
			}
			out.WriteString(s)
		}
	}
	return out.String(), true
}

// ireeArgs reads a RUN line's inputs for the prepared function's
// arguments (every function gets all the inputs, as iree-run-mlir passes
// them).
func ireeArgs(run fcRun, p *prepared) ([]*hlo.Literal, error) {
	if len(run.inputs) != len(p.args) {
		return nil, fmt.Errorf("%d --input values for %d arguments", len(run.inputs), len(p.args))
	}
	args := make([]*hlo.Literal, len(p.args))
	for i, in := range run.inputs {
		l, err := parseIREEInput(in, p.args[i])
		if err != nil {
			return nil, fmt.Errorf("argument %d: %v", i, err)
		}
		args[i] = l
	}
	return args, nil
}
