package jit

import (
	"fmt"

	"github.com/xlajit/xlajit/bridge"
	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/partitioner"
)

// staged replays a partitioned graph: device partitions through their
// compiled programs, host nodes through their Go kernels in between. A host
// result of another shape than traced ends the replay (the call then runs
// lazily).
type staged struct {
	s     *fnState
	dev   *lazy.Device
	plan  *partitioner.Plan
	progs []*bridge.Program // per stage; nil for host stages
}

func newStaged(s *fnState, g *fx.Graph, host map[*fx.Node]bool, dev *lazy.Device) (*staged, int, error) {
	plan, err := partitioner.Partition(g, host)
	if err != nil {
		return nil, 0, err
	}
	r := &staged{s: s, dev: dev, plan: plan, progs: make([]*bridge.Program, len(plan.Stages))}
	compiled := 0
	for i, st := range plan.Stages {
		if st.Device == nil {
			continue
		}
		p, err := bridge.Compile(st.Device, dev)
		if err != nil {
			return nil, 0, err
		}
		compiled++
		r.progs[i] = p
	}
	return r, compiled, nil
}

// Run executes the stages in order.
func (r *staged) Run(args, captures []*lazy.Tensor) ([]*lazy.Tensor, error) {
	g := r.plan.Graph
	env := make([][]*lazy.Tensor, len(g.Nodes))
	for _, n := range g.Nodes {
		if n.Kind == fx.Placeholder {
			src := args
			if n.Input == fx.Capture {
				src = captures
			}
			env[n.ID] = []*lazy.Tensor{src[n.Index]}
		}
	}
	get := func(ref fx.Ref) *lazy.Tensor { return env[ref.Node.ID][ref.Index] }
	set := func(ref fx.Ref, t *lazy.Tensor) {
		if env[ref.Node.ID] == nil {
			env[ref.Node.ID] = make([]*lazy.Tensor, len(ref.Node.Shapes))
		}
		env[ref.Node.ID][ref.Index] = t
	}
	for i, st := range r.plan.Stages {
		ins := make([]*lazy.Tensor, len(st.Inputs))
		for k, in := range st.Inputs {
			ins[k] = get(in)
		}
		if st.Host != nil {
			outs, err := r.runHost(st.Host, ins)
			if err != nil {
				return nil, err
			}
			for k, o := range outs {
				if !o.Shape().Equal(st.Host.Shapes[k]) {
					// A data-dependent size changed: the rest of the graph
					// (and any Go code that read the traced size) is stale.
					return nil, &respecializeError{host: st.Host, got: o.Shape(), want: st.Host.Shapes[k]}
				}
				set(st.Outputs[k], o)
			}
			continue
		}
		outs, err := r.progs[i].Run(ins, nil)
		if err != nil {
			return nil, fmt.Errorf("device partition %d: %w", st.Partition, err)
		}
		for k, o := range outs {
			set(st.Outputs[k], o)
		}
	}
	out := g.Output()
	written := map[*fx.Node]bool{}
	for _, m := range out.Mutations {
		written[m.Target] = true
	}
	res := make([]*lazy.Tensor, len(out.Args))
	for i, a := range out.Args {
		res[i] = get(a)
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
	states := make([]lazy.TensorState, len(out.Mutations))
	for i, m := range out.Mutations {
		states[i] = get(m.Value).State()
	}
	for i, m := range out.Mutations {
		env[m.Target.ID][0].Restore(states[i])
	}
	return res, nil
}

// runHost runs one host node: inputs to the host, the Go kernel, results
// back to the device.
func (r *staged) runHost(n *fx.Node, ins []*lazy.Tensor) ([]*lazy.Tensor, error) {
	outs, err := lazy.RunHostTensors(r.dev, n.Op, n.Attrs, ins)
	if err != nil {
		return nil, &fx.NodeError{Node: n, Err: err}
	}
	r.s.hostFallbacks.Add(1)
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
