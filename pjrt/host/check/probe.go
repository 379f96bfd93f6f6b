package check

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// interpreter.probe and check.expect_serialized_eq. The reference
// interpreter writes each probed tensor to a NumPy file and the check reads
// it back in the same run; here the values stay in memory, in the run's
// check log (kernel.CheckLog.RecordProbe), with the same meaning: the check
// compares its operand exactly (as check.expect_eq) with the iter-th value
// recorded under probe_id, whose type must be the operand's.
func init() {
	kernel.Register(
		kernel.Entry{Name: "interpreter.probe", Compile: compileProbe},
		kernel.Entry{Name: "check.expect_serialized_eq", Compile: compileExpectSerializedEq},
	)
}

func probeID(c *kernel.OpCtx) (string, error) {
	id, ok := hlo.AttrStr(c.Op.Attr("probe_id"))
	if !ok {
		return "", c.Errorf("missing string attribute probe_id")
	}
	return id, nil
}

// compileProbe records its operand and returns it unchanged. Without a
// check log there is nothing to record into and the probe only passes its
// operand on.
func compileProbe(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) != 1 || len(c.Out) != 1 {
		return nil, c.Errorf("want 1 operand and 1 result, got %d and %d", len(c.In), len(c.Out))
	}
	if c.InTensor(0) == nil {
		return nil, c.Errorf("probes a tensor, got %s", c.In[0])
	}
	id, err := probeID(c)
	if err != nil {
		return nil, err
	}
	t := c.In[0]
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		l, ok := args[0].(*hlo.Literal)
		if !ok {
			return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("probes a tensor, got %T", args[0])}
		}
		if x != nil && x.Checks != nil {
			x.Checks.RecordProbe(id, t, l)
		}
		results[0] = args[0]
		return nil
	}, nil
}

func compileExpectSerializedEq(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) != 1 {
		return nil, c.Errorf("want 1 operand, got %d", len(c.In))
	}
	id, err := probeID(c)
	if err != nil {
		return nil, err
	}
	iter := int64(0)
	if a := c.Op.Attr("iteration"); a != nil {
		v, ok := hlo.AttrInt(a)
		if !ok || v < 0 {
			return nil, c.Errorf("iteration %s is not a non-negative integer", hlo.AttrString(a))
		}
		iter = v
	}
	t := c.In[0]
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		want, ok := args[0].(*hlo.Literal)
		if !ok {
			return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("checks a tensor, got %T", args[0])}
		}
		if x == nil || x.Checks == nil {
			return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("probe %q: the run has no check log, so no probe values were recorded", id)}
		}
		p, n, found := x.Checks.Probe(id, int(iter))
		switch {
		case !found:
			return report(x, op, want.Dims, nil, fmt.Errorf("probe %q recorded %d values, none for iteration %d", id, n, iter))
		case !hlo.TypesEqual(p.Type, t):
			return report(x, op, want.Dims, nil, fmt.Errorf("probe %q recorded a %s, the operand is a %s", id, p.Type, t))
		}
		_, err := runCheck(x, op, p.Value, want, exactEqual)
		return err
	}, nil
}
