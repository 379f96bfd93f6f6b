package jit

import (
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/bridge"
	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/partitioner"
)

// staged replays a partitioned graph: device partitions through their
// compiled programs, host nodes through their Go kernels in between.
type staged struct {
	s     *fnState
	dev   *lazy.Device
	plan  *partitioner.Plan
	progs []*polyProgram // per stage; nil for host stages
}

// polyProgram holds a device partition's compiled programs by input shapes
// (a partition after a host op with a data-dependent result sees new
// shapes; each new shape compiles once).
type polyProgram struct {
	g        *fx.Graph
	variants map[string]*bridge.Program
}

func shapesKey(ts []*lazy.Tensor) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.Shape().String())
		b.WriteByte(';')
	}
	return b.String()
}

// program returns the variant for the inputs' shapes, compiling it if new;
// fresh reports that a new variant was made.
func (p *polyProgram) program(ins []*lazy.Tensor, dev *lazy.Device) (*bridge.Program, bool, error) {
	key := shapesKey(ins)
	if v := p.variants[key]; v != nil {
		return v, false, nil
	}
	g := p.g
	changed := false
	for i, t := range ins {
		if !t.Shape().Equal(g.Placeholders()[i].Shapes[0]) {
			changed = true
		}
	}
	if changed {
		g = withInputShapes(p.g, ins)
	}
	prog, err := bridge.Compile(g, dev)
	if err != nil {
		return nil, false, err
	}
	p.variants[key] = prog
	return prog, true, nil
}

// withInputShapes copies g with its placeholders retyped to the inputs'
// shapes (call nodes keep their recorded shapes; lowering re-infers them).
func withInputShapes(g *fx.Graph, ins []*lazy.Tensor) *fx.Graph {
	c := &fx.Graph{}
	m := map[*fx.Node]*fx.Node{}
	for _, n := range g.Nodes {
		cp := *n
		if n.Kind == fx.Placeholder {
			cp.Shapes = []lazy.Shape{ins[n.Index].Shape()}
		}
		cp.Args = make([]fx.Ref, len(n.Args))
		for i, a := range n.Args {
			cp.Args[i] = fx.Ref{Node: m[a.Node], Index: a.Index}
		}
		m[n] = &cp
		c.Nodes = append(c.Nodes, &cp)
	}
	c.Renumber()
	return c
}

func newStaged(s *fnState, g *fx.Graph, host map[*fx.Node]bool, dev *lazy.Device) (*staged, int, error) {
	plan, err := partitioner.Partition(g, host)
	if err != nil {
		return nil, 0, err
	}
	r := &staged{s: s, dev: dev, plan: plan, progs: make([]*polyProgram, len(plan.Stages))}
	compiled := 0
	for i, st := range plan.Stages {
		if st.Device == nil {
			continue
		}
		p := &polyProgram{g: st.Device, variants: map[string]*bridge.Program{}}
		ins := make([]*lazy.Tensor, len(st.Inputs))
		for k, in := range st.Inputs {
			ins[k] = lazy.NewPlaceholder(in.Shape(), dev)
		}
		if _, _, err := p.program(ins, dev); err != nil {
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
				set(st.Outputs[k], o)
			}
			continue
		}
		prog, fresh, err := r.progs[i].program(ins, r.dev)
		if err != nil {
			// The partition's recorded shapes (broadcasts, reshapes) do not
			// fit the new data-dependent input shapes.
			return nil, &respecializeError{partition: st.Partition, shapes: shapesKey(ins), err: err}
		}
		if fresh {
			r.s.compiles.Add(1)
		}
		outs, err := prog.Run(ins, nil)
		if err != nil {
			return nil, fmt.Errorf("device partition %d: %w", st.Partition, err)
		}
		for k, o := range outs {
			set(st.Outputs[k], o)
		}
	}
	out := g.Output()
	res := make([]*lazy.Tensor, len(out.Args))
	for i, a := range out.Args {
		res[i] = get(a)
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
	outs, err := lazy.RunHostTensors(r.dev, n.OpDef(), n.Attrs, ins)
	if err != nil {
		return nil, &fx.NodeError{Node: n, Err: err}
	}
	r.s.hostFallbacks.Add(1)
	return outs, nil
}

// respecializeError says a device partition could not be compiled for the
// input shapes a host op produced on this call; the call then runs lazily.
type respecializeError struct {
	partition int
	shapes    string
	err       error
}

func (e *respecializeError) Error() string {
	return fmt.Sprintf("device partition %d cannot be recompiled for input shapes %s: %v", e.partition, e.shapes, e.err)
}
