package conform

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// stopper is closed when a case times out, so that the executor's loops
// stop (kernel.Ctx.Cancel) instead of spinning after the runner has given
// up on the case.
type stopper struct {
	once  sync.Once
	ch    chan struct{}
	entry atomic.Pointer[string] // the case's entry, once known
}

func newStopper() *stopper { return &stopper{ch: make(chan struct{})} }
func (s *stopper) stop()   { s.once.Do(func() { close(s.ch) }) }

// runEmbedded compiles and runs m on the embedded device with a check log,
// so that every check op's verdict is known, and returns the entry's
// results (tuples flattened; nil when it failed) and what the program
// printed (interpreter.print).
func runEmbedded(m *hlo.Module, entry *hlo.Func, args []*hlo.Literal, r *Result, stop *stopper) ([]*hlo.Literal, string) {
	t0 := time.Now()
	prog, err := host.Compile(m)
	r.Phases.Compile += time.Since(t0)
	if err != nil {
		classifyCompileError(m, err, r)
		return nil, ""
	}
	log := &kernel.CheckLog{}
	var printed strings.Builder
	log.SetOutput(&printed)
	x := &kernel.Ctx{NumReplicas: 1, NumPartitions: 1, Checks: log, Cancel: stop.ch}
	in := make([]kernel.Value, len(args))
	for i, a := range args {
		in[i] = a
	}
	t1 := time.Now()
	res, err := prog.Run(x, in)
	r.Phases.Run += time.Since(t1)
	if err != nil {
		classifyRunError(err, r)
		return nil, printed.String()
	}
	judge(m, entry, log, res, r)
	var out []*hlo.Literal
	for _, v := range res {
		out = flatten(out, v)
	}
	return out, printed.String()
}

// judge decides a case that ran: every check op reported and held, and
// every verdict the entry returns is true.
func judge(m *hlo.Module, entry *hlo.Func, log *kernel.CheckLog, res []kernel.Value, r *Result) {
	checks := unconditionalChecks(entry)
	r.Checks = log.Passed + len(log.Failed) + len(verdictResults(entry))
	if n := len(log.Failed); n > 0 {
		msg := log.Failed[0]
		op := "check"
		if c := checkAt(allChecks(entry), msg); c != nil {
			op = subjectOp(m, c)
		}
		if n > 1 {
			msg += fmt.Sprintf(" (and %d more failed checks)", n-1)
		}
		r.fail(KindCheck, op, "%s", msg)
		return
	}
	if ran := log.Passed; ran < len(checks) {
		name := r.Func
		if name == "" {
			name = entry.Name
		}
		r.fail(KindNoCheck, checkName(checks[0]), "only %d of the %d check ops at the top of @%s reported a verdict", ran, len(checks), name)
		return
	}
	for _, i := range verdictResults(entry) {
		if i >= len(res) {
			r.fail(KindRuntime, "", "entry returned %d values, verdict %d missing", len(res), i)
			return
		}
		ok, err := allTrue(res[i])
		def := entry.Body.Blocks[len(entry.Body.Blocks)-1]
		ret := def.Ops[len(def.Ops)-1]
		c := ret.Operands[i].Def
		if err != nil {
			r.fail(KindCheck, subjectOp(m, c), "%s: %s: %v", c.Loc, checkName(c), err)
			return
		}
		if !ok {
			r.fail(KindCheck, subjectOp(m, c), "%s: %s returned false", c.Loc, checkName(c))
			return
		}
	}
}

// allChecks lists every check op of f, nested ones included.
func allChecks(f *hlo.Func) []*hlo.Op {
	var out []*hlo.Op
	f.Body.Walk(func(op *hlo.Op) bool {
		if isCheckOp(op) {
			out = append(out, op)
		}
		return true
	})
	return out
}

// classifyCompileError sorts a compile error into unsupported op (no kernel
// at all) or compile error (a kernel rejected the op).
func classifyCompileError(m *hlo.Module, err error, r *Result) {
	var oe *kernel.OpError
	if errors.As(err, &oe) {
		if kernel.Lookup(oe.Op) == nil {
			r.Missing = missingOps(m)
			r.fail(KindUnsupported, oe.Op, "unsupported op %s (%s)", oe.Op, err)
			if len(r.Missing) > 1 {
				r.Reason += "; the case also needs " + strings.Join(without(r.Missing, oe.Op), ", ")
			}
			return
		}
		r.fail(KindCompile, oe.Op, "%v", err)
		return
	}
	r.fail(KindCompile, "", "%v", err)
}

func classifyRunError(err error, r *Result) {
	var oe *kernel.OpError
	if errors.As(err, &oe) {
		if strings.HasPrefix(oe.Op, "check.") || strings.HasPrefix(oe.Op, "iree_check.") {
			r.fail(KindCheck, oe.Op, "%v", err)
			return
		}
		r.fail(KindRuntime, oe.Op, "%v", err)
		return
	}
	r.fail(KindRuntime, "", "%v", err)
}

// missingOps lists the op names of m that have no kernel (terminators are
// handled by the planner and never looked up).
func missingOps(m *hlo.Module) []string {
	seen := map[string]bool{}
	for _, f := range m.Funcs {
		f.Body.Walk(func(op *hlo.Op) bool {
			if op.Name != "func.return" && op.Name != "stablehlo.return" && kernel.Lookup(op.Name) == nil {
				seen[op.Name] = true
			}
			return true
		})
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func without(xs []string, x string) []string {
	var out []string
	for _, s := range xs {
		if s != x {
			out = append(out, s)
		}
	}
	return out
}
