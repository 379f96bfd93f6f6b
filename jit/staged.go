package jit

import (
	"fmt"

	"github.com/xlajit/xlajit/bridge"
	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/partitioner"
)

// staged replays a partitioned graph: fx.Interpreter runs the plan's split
// graph, device partitions through their compiled programs and fallback
// stages (ops the device cannot run) through their Go kernels on the CPU in
// between. A fallback result of another shape
// than traced ends the replay (the call then runs lazily).
type staged struct {
	s      *fnState
	dev    *lazy.Device
	plan   *partitioner.Plan
	progs  []*bridge.Program // per node of the split graph; nil but for device partitions
	interp *fx.Interpreter
}

func newStaged(s *fnState, g *fx.Graph, host map[*fx.Node]bool, dev *lazy.Device) (*staged, int, error) {
	plan, err := partitioner.Partition(g, host)
	if err != nil {
		return nil, 0, err
	}
	r := &staged{s: s, dev: dev, plan: plan, progs: make([]*bridge.Program, len(plan.Split.Nodes))}
	compiled := 0
	for _, st := range plan.Stages {
		if st.Device == nil {
			continue
		}
		p, err := bridge.Compile(st.Device, dev)
		if err != nil {
			return nil, 0, err
		}
		compiled++
		r.progs[st.Node.ID] = p
	}
	r.interp = &fx.Interpreter{G: plan.Split, Call: r.call, Device: dev}
	return r, compiled, nil
}

// Run executes the stages in order.
func (r *staged) Run(args, captures []*lazy.Tensor) ([]*lazy.Tensor, error) {
	outs, muts, err := r.interp.Run(args, captures)
	if err != nil {
		return nil, err
	}
	out := r.plan.Split.Output()
	written := map[*fx.Node]bool{}
	for _, m := range out.Mutations {
		written[m.Target] = true
	}
	res := make([]*lazy.Tensor, len(outs))
	for i, a := range out.Args {
		res[i] = outs[i]
		if written[a.Node] {
			// An input passed through and also written: its value before
			// the write.
			res[i] = res[i].Share()
			continue
		}
		for _, r := range res[:i] {
			if r == res[i] {
				// Two outputs of the function, one value: two tensors.
				res[i] = res[i].Share()
				break
			}
		}
	}
	states := make([]lazy.TensorState, len(muts))
	for i, m := range muts {
		states[i] = m.TransientState()
	}
	for i, m := range out.Mutations {
		target := args
		if m.Target.Input == fx.Capture {
			target = captures
		}
		target[m.Target.Index].Restore(states[i])
	}
	return res, nil
}

// call runs one stage: a device partition's program, or a fallback node's
// Go kernel (inputs to the CPU, the kernel, results back to the device).
func (r *staged) call(n *fx.Node, ins []*lazy.Tensor) ([]*lazy.Tensor, error) {
	if p := r.progs[n.ID]; p != nil {
		outs, err := p.Run(ins, nil)
		if err != nil {
			return nil, fmt.Errorf("device partition %d: %w", n.Partition, err)
		}
		return outs, nil
	}
	outs, err := lazy.RunGoKernelTensors(r.dev, n.Op, n.Attrs, ins)
	if err != nil {
		return nil, err
	}
	r.s.hostFallbacks.Add(1)
	for k, o := range outs {
		if !o.Shape().Equal(n.Shapes[k]) {
			// A data-dependent size changed: the rest of the graph (and
			// any Go code that read the traced size) is stale.
			return nil, &respecializeError{host: n, got: o.Shape(), want: n.Shapes[k]}
		}
	}
	return outs, nil
}

// respecializeError says a host node produced a result of another shape
// than during the trace: the recorded graph after it no longer describes
// the function (sizes may have become constants, in the graph or in Go code
// that read them), so this call runs lazily instead.
type respecializeError struct {
	host      *fx.Node
	got, want lazy.Shape
}

func (e *respecializeError) Error() string {
	return fmt.Sprintf("host op %s (%%%s) returned %s, traced with %s", e.host.OpName(), e.host.Name, e.got, e.want)
}
