package conform

import (
	"errors"
	"fmt"
	"time"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// runOnClient runs m with args through the device seam and returns the
// entry's results (nil when the run failed; verdict results of value
// checks are left out). A device knows nothing of the
// check dialect, so the checks at the top of the entry are lifted out: their
// operands become extra results of the program, and each check is then
// evaluated on the host by the embedded device's own check kernel, so both
// paths share one definition of every check.
func runOnClient(c pjrt.Client, m *hlo.Module, entry *hlo.Func, args []*hlo.Literal, r *Result) []*hlo.Literal {
	lifted, err := liftChecks(entry)
	if err != nil {
		r.fail(KindCompile, "", "%v", err)
		return nil
	}
	t0 := time.Now()
	exe, err := c.Compile(m, pjrt.CompileOptions{})
	r.Phases.Compile += time.Since(t0)
	if err != nil {
		classifyClientCompileError(c, m, err, r)
		return nil
	}
	defer exe.Close()
	in := make([]pjrt.Buffer, len(args))
	for i, a := range args {
		b, err := c.BufferFromHost(a, 0)
		if err != nil {
			r.fail(KindRuntime, "", "argument %d: %v", i, err)
			return nil
		}
		defer b.Delete()
		in[i] = b
	}
	t1 := time.Now()
	bufs, err := exe.Execute(in, pjrt.ExecuteOptions{})
	if err != nil {
		r.Phases.Run += time.Since(t1)
		classifyRunError(err, r)
		return nil
	}
	outs := make([]*hlo.Literal, len(bufs))
	for i, b := range bufs {
		l, err := b.ToHost()
		b.Delete()
		if err != nil {
			r.fail(KindRuntime, "", "result %d: %v", i, err)
			return nil
		}
		outs[i] = l
	}
	r.Phases.Run += time.Since(t1)
	if len(outs) != lifted.nOut {
		r.fail(KindRuntime, "", "program returned %d buffers, want %d (tuple results are not supported on the seam path)", len(outs), lifted.nOut)
		return nil
	}
	log := &kernel.CheckLog{}
	var verdicts []kernel.Value
	for _, ck := range lifted.checks {
		args := make([]kernel.Value, len(ck.slots))
		for i, s := range ck.slots {
			args[i] = outs[s]
		}
		v, err := evalCheck(m, ck.op, args, log)
		if err != nil {
			classifyRunError(err, r)
			return nil
		}
		if v != nil {
			verdicts = append(verdicts, v)
			lifted.verdictOps = append(lifted.verdictOps, ck.op)
		}
	}
	r.Checks = log.Passed + len(log.Failed)
	if n := len(log.Failed); n > 0 {
		msg := log.Failed[0]
		op := "check"
		if ck := checkAt(opsOf(lifted.checks), msg); ck != nil {
			op = subjectOp(m, ck)
		}
		if n > 1 {
			msg += fmt.Sprintf(" (and %d more failed checks)", n-1)
		}
		r.fail(KindCheck, op, "%s", msg)
		return nil
	}
	for i, v := range verdicts {
		ok, err := allTrue(v)
		ck := lifted.verdictOps[i]
		if err != nil || !ok {
			msg := "returned false"
			if err != nil {
				msg = err.Error()
			}
			r.fail(KindCheck, subjectOp(m, ck), "%s: %s %s", ck.Loc, checkName(ck), msg)
			return nil
		}
	}
	return outs[:lifted.nKept]
}

type liftedCheck struct {
	op    *hlo.Op
	slots []int // program outputs holding the check's operands
}

type lifted struct {
	checks     []liftedCheck
	nOut       int
	nKept      int // the entry's own results among the outputs (verdicts dropped), first
	verdictOps []*hlo.Op
}

func opsOf(cs []liftedCheck) []*hlo.Op {
	out := make([]*hlo.Op, len(cs))
	for i, c := range cs {
		out[i] = c.op
	}
	return out
}

// liftChecks removes the check ops at the top of f and returns their
// operands from f instead. A verdict returned by f (custom_call @check.eq)
// is dropped from f's results: it is recomputed on the host.
func liftChecks(f *hlo.Func) (*lifted, error) {
	if len(f.Body.Blocks) != 1 {
		return nil, fmt.Errorf("entry @%s has %d blocks", f.Name, len(f.Body.Blocks))
	}
	b := f.Body.Blocks[0]
	if len(b.Ops) == 0 {
		return nil, fmt.Errorf("entry @%s has no terminator", f.Name)
	}
	ret := b.Ops[len(b.Ops)-1]
	var keep []*hlo.Op
	var checks []*hlo.Op
	for _, op := range b.Ops[:len(b.Ops)-1] {
		if isCheckOp(op) {
			checks = append(checks, op)
		} else {
			keep = append(keep, op)
		}
	}
	if len(checks) == 0 {
		n := countOutputs(f.ResultTypes)
		return &lifted{nOut: n, nKept: n}, nil
	}
	isVerdict := map[*hlo.Value]bool{}
	for _, c := range checks {
		for _, v := range c.Results {
			isVerdict[v] = true
		}
		for _, v := range c.Operands {
			if v.Def != nil && isCheckOp(v.Def) {
				return nil, fmt.Errorf("%s: %s checks the verdict of another check", c.Loc, checkName(c))
			}
		}
	}
	var results []*hlo.Value
	var types []hlo.Type
	for i, v := range ret.Operands {
		if !isVerdict[v] {
			results = append(results, v)
			types = append(types, f.ResultTypes[i])
		}
	}
	for _, op := range keep {
		for _, v := range op.Operands {
			if isVerdict[v] {
				return nil, fmt.Errorf("%s: %s uses a check verdict", op.Loc, op.Name)
			}
		}
	}
	for _, t := range types {
		if _, ok := t.(*hlo.TensorType); !ok {
			return nil, errors.New("entry returns a non-tensor value; the seam path needs tensor results")
		}
	}
	l := &lifted{nKept: len(results)}
	slot := map[*hlo.Value]int{}
	for _, v := range results {
		slot[v] = -1 // not a check operand: no slot needed
	}
	base := len(results)
	var extra []*hlo.Value
	for _, c := range checks {
		lc := liftedCheck{op: c}
		for _, v := range c.Operands {
			s, ok := slot[v]
			if !ok || s < 0 {
				if ok { // already a result: reuse its position
					for i, rv := range results {
						if rv == v {
							s = i
						}
					}
				} else {
					s = base + len(extra)
					extra = append(extra, v)
				}
				slot[v] = s
			}
			lc.slots = append(lc.slots, s)
		}
		l.checks = append(l.checks, lc)
	}
	for _, v := range extra {
		results = append(results, v)
		types = append(types, v.Type)
	}
	ret.Operands = results
	f.ResultTypes = types
	f.ResultAttrs = nil
	b.Ops = append(keep, ret)
	l.nOut = len(results)
	return l, nil
}

func countOutputs(ts []hlo.Type) int {
	n := 0
	for _, t := range ts {
		if tt, ok := t.(*hlo.TupleType); ok {
			n += countOutputs(tt.Elems)
		} else {
			n++
		}
	}
	return n
}

// evalCheck runs one check op on host values with the embedded device's
// kernel for it, returning its verdict when the check yields one.
func evalCheck(m *hlo.Module, op *hlo.Op, args []kernel.Value, log *kernel.CheckLog) (kernel.Value, error) {
	name := op.Name
	e := kernel.Lookup(name)
	if e == nil {
		return nil, &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: "no host kernel to evaluate this check"}
	}
	oc := &kernel.OpCtx{Op: op, Module: m}
	for _, v := range op.Operands {
		oc.In = append(oc.In, v.Type)
	}
	for _, v := range op.Results {
		oc.Out = append(oc.Out, v.Type)
	}
	run, err := e.Compile(oc)
	if err != nil {
		return nil, err
	}
	res := make([]kernel.Value, len(op.Results))
	x := &kernel.Ctx{NumReplicas: 1, NumPartitions: 1, Checks: log}
	if err := run(x, args, res); err != nil {
		return nil, err
	}
	if len(res) > 0 {
		return res[0], nil
	}
	return nil, nil
}

// classifyClientCompileError is classifyCompileError for any client: an op
// the client reports it cannot compile is an unsupported op.
func classifyClientCompileError(c pjrt.Client, m *hlo.Module, err error, r *Result) {
	caps, ok := c.(pjrt.Capabilities)
	if !ok {
		classifyCompileError(m, err, r)
		return
	}
	var missing []string
	seen := map[string]bool{}
	for _, f := range m.Funcs {
		f.Body.Walk(func(op *hlo.Op) bool {
			if !seen[op.Name] && op.Name != "func.return" && op.Name != "stablehlo.return" && !caps.SupportsOp(op.Name) {
				seen[op.Name] = true
				missing = append(missing, op.Name)
			}
			return true
		})
	}
	if len(missing) == 0 {
		classifyCompileError(m, err, r)
		return
	}
	r.Missing = missing
	r.fail(KindUnsupported, missing[0], "unsupported op %s on %s (%v)", missing[0], c.Platform(), err)
}
