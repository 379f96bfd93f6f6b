package lazy

import (
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/internal/slab"
	"github.com/xlajit/xlajit/pjrt"
)

// buildRevision is folded into every graph hash: bump it when lowering
// changes so persistent and AOT caches written by older builds miss.
const buildRevision = "xlajit-lowering-3"

// Graph is a pending computation cut from the IR: the distinct output
// values, the nodes in post-order, and the device-data parameters in
// first-seen order.
type Graph struct {
	// Roots are the outputs (a computed host node's result stands as the
	// device-data leaf of its tensor).
	Roots  []Value
	Nodes  []*Node // post-order, leaves included
	Params []*Node // one leaf per distinct device data, first-seen order
	// ParamOf maps each leaf node to its parameter index.
	ParamOf map[*Node]int
	Hash    Hash
	// Host lists host-only nodes (no lowering) the roots depend on that no
	// cut has run yet, in dependency order; a graph with any cannot be
	// lowered until they are computed (computeHostNodes).
	Host []*Node
	rng  bool // some node draws random bits
	// checks: some node is a run-time check (KeepsIR).
	checks bool
	// spmd is the number of devices of the SPMD device the parameters
	// live on (0: not an SPMD graph; spmd.go).
	spmd int
	// checksOnly lowers the graph to its check flags alone, its roots
	// (the checked values) left out (a pre-check; checks.go).
	checksOnly bool
}

// substitute is v, or the device-data leaf of a computed host node's
// result.
func substitute(v Value) Value {
	if c := v.Node.computed.Load(); c != nil {
		return (*c)[v.Index].value()
	}
	return v
}

// CollectGraph walks the IR of roots in post-order and computes the graph
// hash (DESIGN.md §3: config flags, build revision, output hashes,
// parameter order, donated buffers, sharding mode).
func CollectGraph(roots []Value) *Graph {
	copied := false
	for i, r := range roots {
		if s := substitute(r); s != r {
			if !copied {
				roots, copied = append([]Value(nil), roots...), true
			}
			roots[i] = s
		}
	}
	g := &Graph{Roots: roots, ParamOf: map[*Node]int{}}
	// pos is each visited node's place in the post-order plus one (-1
	// while its inputs are being visited, 0 not seen).
	pos := NewNodeMap[int32]()
	dataIdx := map[*deviceData]int{}
	type frame struct {
		n    *Node
		next int
	}
	var stack []frame
	for _, r := range roots {
		if pos.Get(r.Node) != 0 {
			continue
		}
		pos.Set(r.Node, -1)
		stack = append(stack, frame{r.Node, 0})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next < len(top.n.inputs) {
				in := substitute(top.n.inputs[top.next]).Node
				top.next++
				if pos.Get(in) == 0 {
					pos.Set(in, -1)
					stack = slab.Append(stack, frame{in, 0})
				}
				continue
			}
			n := top.n
			stack = stack[:len(stack)-1]
			pos.Set(n, int32(len(g.Nodes))+1)
			g.Nodes = slab.Append(g.Nodes, n)
			if n.op.Lower == nil && n.data == nil {
				g.Host = append(g.Host, n)
			}
			g.rng = g.rng || n.op == table[opRngBits]
			g.checks = g.checks || n.op == table[opCheck]
			if n.data != nil {
				idx, ok := dataIdx[n.data]
				if !ok {
					idx = len(g.Params)
					dataIdx[n.data] = idx
					g.Params = append(g.Params, n)
				}
				g.ParamOf[n] = idx
			}
		}
	}
	h := newHasher()
	h.u64(configFlags())
	h.str(buildRevision)
	h.int(len(roots))
	for _, r := range roots {
		h.hash(r.Node.hash)
		h.int(r.Index)
		h.int(int(pos.Get(r.Node) - 1))
	}
	// The parameter order, and which node each operand is: node hashes
	// see a device-data leaf by its shape only, so without the edges
	// (x+y)*x and (x+y)*y would hash alike.
	h.int(len(g.Params))
	for _, n := range g.Nodes {
		if n.data != nil {
			h.int(g.ParamOf[n])
			continue
		}
		h.int(len(n.inputs))
		for _, in := range n.inputs {
			in = substitute(in)
			h.int(int(pos.Get(in.Node) - 1))
		}
	}
	h.int(0) // donated buffers: none in this graph form
	g.spmd = g.spmdMode()
	h.int(g.spmd) // sharding mode: 0 one device, else the SPMD device's count
	g.Hash = h.sum()
	return g
}

// KeepsIR reports whether compiling g reads g (and the buffers of its
// device-data leaves) after lowering: when the executable keeps it
// (keptByExecutable), and for SPMD graphs, whose parameters' layouts are
// read off the leaves' data.
func (g *Graph) KeepsIR() bool { return g.keptByExecutable() || g.spmd > 0 }

// keptByExecutable reports whether an executable compiled from g keeps g:
// a program with run-time checks keeps it for their pre-check, the debug
// dumps print it (compileModule).
func (g *Graph) keptByExecutable() bool { return dumping || g.checks }

// configFlags are the settings that change lowering.
func configFlags() uint64 { return 1 }

// Lower builds the StableHLO module of g: parameters in order, then every
// node's lowering, returning the roots. The module is verified.
func (g *Graph) Lower(name string) (*hlo.Module, error) { return g.lower(name, true) }

// deferredConst marks a rank-0 constant not lowered yet (lower).
var deferredConst = []*hlo.Value{nil}

// lower is Lower; verify=false leaves verifying to the device's compiler
// (pjrt.ModuleVerifier).
func (g *Graph) lower(name string, verify bool) (*hlo.Module, error) {
	b := hlo.NewBuilder(name)
	// Each op's Go source position (in the lowering code) is recorded for
	// debugging only: finding it costs a stack walk per op.
	b.SetLocations(debugLevel() >= 1)
	f := b.Func("main")
	f.Reserve(len(g.Nodes) - len(g.Params) + 1) // an op per node, most often, and the return
	vals := NewNodeMap[[]*hlo.Value]()
	params := make([]*hlo.Value, len(g.Params))
	for i, p := range g.Params {
		params[i] = f.ArgWithAttrs(p.out[0].TensorType(), g.argShardingAttrs(i)...)
	}
	lc := &LowerCtx{S: f.Scope, spmd: g.spmd > 0}
	// Operand lists are cut from shared chunks (never reused: a lowering
	// may keep its operands, e.g. as its results).
	var chunk []*hlo.Value
	take := func(k int) []*hlo.Value {
		if cap(chunk)-len(chunk) < k {
			chunk = make([]*hlo.Value, 0, max(k, 256))
		}
		s := chunk[len(chunk) : len(chunk)+k : len(chunk)+k]
		chunk = chunk[:len(chunk)+k]
		return s
	}
	// Rank-0 constants are lowered where something first reads them: a
	// broadcast of one (a rank-0 tensor such as Scalar's broadcast against
	// a larger one; Go numbers applied to tensors are Splat nodes already)
	// lowers to one splat constant, and the scalar is never emitted unless
	// another op reads it. Graphs for the SPMD device keep
	// both ops, as their sharding annotations were written and tested.
	splat := !lc.spmd
	value := func(v Value) (*hlo.Value, error) {
		v = substitute(v)
		x := vals.Get(v.Node)
		if x[0] == nil {
			out, err := lowerNode(b, lc, v.Node, nil)
			if err != nil {
				return nil, err
			}
			vals.Set(v.Node, out)
			x = out
		}
		return x[v.Index], nil
	}
	for _, n := range g.Nodes {
		if n.data != nil {
			p := take(1)
			p[0] = params[g.ParamOf[n]]
			vals.Set(n, p)
			continue
		}
		if n.op.Lower == nil {
			return nil, fmt.Errorf("lazy: op %s has no lowering (it must run on the host)", n.op.Name)
		}
		if splat && n.op == table[opConstant] && len(n.out[0].Dims) == 0 {
			vals.Set(n, deferredConst)
			continue
		}
		if splat && n.op == table[opBroadcast] {
			if c := substitute(n.inputs[0]).Node; vals.Get(c)[0] == nil {
				v := lc.constSplat(c.attrs.Lit("value"), n.out[0].Dims)
				if be := b.Err(); be != nil {
					return nil, lowerError(n, be)
				}
				vals.Set(n, single(v))
				continue
			}
		}
		in := take(len(n.inputs))
		for i, v := range n.inputs {
			x, err := value(v)
			if err != nil {
				return nil, err
			}
			in[i] = x
		}
		out, err := lowerNode(b, lc, n, in)
		if err != nil {
			return nil, err
		}
		vals.Set(n, out)
	}
	var outs []*hlo.Value
	if !g.checksOnly {
		outs = make([]*hlo.Value, len(g.Roots))
		for i, r := range g.Roots {
			x, err := value(r)
			if err != nil {
				return nil, err
			}
			outs[i] = x
		}
	}
	res, attrs := lc.lowerChecks(outs)
	f.ReturnWithAttrs(res, g.lowerSPMD(b, attrs, len(res)))
	if !verify {
		return b.Finish()
	}
	return b.Build()
}

// Sync computes every pending tensor of ts in one graph (a cut).
// Its error is an *Error.
func Sync(ts ...*Tensor) error {
	if err := syncTensors("Sync", ts); err != nil {
		if e, ok := err.(*Error); ok {
			return e
		}
		return &Error{Op: "Sync", Msg: err.Error(), Site: callerSite(), Err: err}
	}
	return nil
}

// syncTensors is every cut: it collects the pending IR of ts, finds or
// compiles the graph by hash, executes it and stores the results.
func syncTensors(reason string, ts []*Tensor) error {
	var pending []*Tensor
	seen := map[*Tensor]bool{}
	for _, t := range ts {
		if t != nil && t.data == nil && !seen[t] {
			if t.val.Node == nil && !t.isDry() {
				return errReleased(t)
			}
			seen[t] = true
			pending = append(pending, t)
		}
	}
	if tr := currentTracer(); tr != nil && reason != "Eager" && !strings.HasPrefix(reason, "internal:") {
		tr.OnCut(reason, callerSite())
	}
	if len(pending) == 0 {
		return nil
	}
	getCounter(MetricGraphCutPrefix + strings.TrimPrefix(reason, "internal:")).add(1)
	dev := pending[0].dev
	for _, t := range pending[1:] {
		if t.dev != dev {
			return fmt.Errorf("lazy: cut of tensors on different devices (%s, %s)", dev, t.dev)
		}
	}
	// Distinct output values.
	var roots []Value
	rootIdx := map[Value]int{}
	var outOf []int
	addRoots := func(from int) {
		for _, t := range pending[from:] {
			k, ok := rootIdx[t.val]
			if !ok {
				k = len(roots)
				rootIdx[t.val] = k
				roots = append(roots, t.val)
			}
			outOf = append(outOf, k)
		}
	}
	addRoots(0)
	g := CollectGraph(roots)
	if st := dev.pendingRNGState(g, seen); st != nil {
		// The graph draws random numbers from a state no cut has computed
		// yet: compute the state too, or every later cut would draw all
		// earlier numbers again to reach it.
		defer dev.rngMu.Unlock()
		pending = append(pending, st)
		addRoots(len(pending) - 1)
		g = CollectGraph(roots)
	}
	if len(g.Host) > 0 {
		if err := computeHostNodes(g.Host, dev); err != nil {
			return err
		}
		g = CollectGraph(roots)
	}
	donate := donatable(g, pending)
	if len(donate) > 0 {
		h := newHasher()
		h.hash(g.Hash)
		h.ints(donate)
		g.Hash = h.sum()
	}
	x, _, err := compileGraph(dev, g, "lazy")
	if err != nil {
		return err
	}
	args := make([]pjrt.Buffer, len(g.Params))
	for i, p := range g.Params {
		args[i] = p.data.buf
	}
	var donateIdx []int
	for _, i := range donate {
		donateIdx = append(donateIdx, int(i))
	}
	outs, err := x.Execute(args, donateIdx)
	if len(donateIdx) > 0 && err == nil {
		cDonated.add(int64(len(donateIdx)))
	}
	if err != nil {
		if ce := g.checkError(err); ce != err {
			return ce
		}
		return fmt.Errorf("lazy: executing graph %s: %w", g.Hash, err)
	}
	datas := make([]*deviceData, len(outs))
	for i, b := range outs {
		datas[i] = &deviceData{buf: b, dev: dev}
	}
	if st := currentTrace(); st != nil {
		// A tensor the function made stays its own after a cut computes
		// it: writing into it later is not a mutation of an input.
		for i, t := range pending {
			if t.val.Node.seq > st.start {
				st.computed[datas[outOf[i]]] = true
				if !st.written[t] {
					st.locals[t] = true
				}
			}
		}
	}
	before := make([]Value, len(pending))
	for i, t := range pending {
		before[i] = t.val
		t.origin = t.val // Grad can still differentiate through t
		t.setData(datas[outOf[i]])
		t.val = Value{}
		t.leaf.Store(nil)
	}
	if tr := currentTracer(); tr != nil && reason != "internal:TraceInput" {
		tr.OnSync(pending, before)
	}
	return nil
}

// donatable lists the parameters of g whose buffers nothing can need after
// this cut, so the device may reuse them for outputs: no tensor holds the
// buffer (the one that did was overwritten, as p.Assign(...) does), every IR
// leaf ever made for it is in g, and every node of g that depends on it is
// used only inside g or by the tensors being synced (pending tensors that
// are not synced, even dead ones, keep the buffer). Nothing is donated while
// a trace is active (the trace may restore a tensor to its old buffer).
func donatable(g *Graph, pending []*Tensor) []int64 {
	if anyTrace() || g.spmd > 0 {
		return nil
	}
	var cands []int
	for i, p := range g.Params {
		if d := p.data; d.buf != nil && d.holders.Load() == 0 {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	// Uses of each node accounted for by this cut.
	inside := make(map[*Node]int32, len(g.Nodes))
	for _, n := range g.Nodes {
		for _, in := range n.inputs {
			inside[in.Node]++
		}
	}
	for _, t := range pending {
		inside[t.val.Node]++
	}
	closed := make(map[*Node]bool, len(g.Nodes)) // every use of n is inside the cut
	for _, n := range g.Nodes {
		closed[n] = n.uses.Load() == inside[n]
	}
	// depends[n]: the candidate params n depends on; a candidate is lost
	// when any node depending on it is not closed.
	lost := make([]bool, len(g.Params))
	deps := make(map[*Node][]int, len(g.Nodes))
	for _, n := range g.Nodes {
		var ds []int
		if n.data != nil {
			ds = []int{g.ParamOf[n]}
		}
		for _, in := range n.inputs {
			ds = append(ds, deps[in.Node]...)
		}
		if !closed[n] {
			for _, d := range ds {
				lost[d] = true
			}
		}
		if len(ds) > 0 && len(n.inputs) > 1 {
			ds = uniqInts(ds)
		}
		deps[n] = ds
	}
	var out []int64
	for _, i := range cands {
		if lost[i] {
			continue
		}
		d := g.Params[i].data
		d.mu.Lock()
		all := true
		for _, l := range d.leaves() {
			if _, in := g.ParamOf[l]; !in {
				all = false
				break
			}
		}
		d.mu.Unlock()
		if all {
			out = append(out, int64(i))
		}
	}
	return out
}

func uniqInts(xs []int) []int {
	seen := make(map[int]bool, len(xs))
	out := xs[:0:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
