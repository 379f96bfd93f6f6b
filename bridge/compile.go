package bridge

import (
	"fmt"
	"sync/atomic"

	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
)

// source names where a value comes from on each call.
type source struct {
	capture bool // false: argument
	index   int
}

// outRef is one output of a program: a root of the compiled graph, or a
// placeholder passed through unchanged.
type outRef struct {
	root int // index into the executable's outputs; -1 for a pass-through
	src  source
}

// Program is a compiled fx graph ready to replay.
type Program struct {
	dev *lazy.Device
	// exe is the executable; a replay that finds it evicted compiles its
	// module again and publishes the new one here (concurrent replays may
	// do so too).
	exe    atomic.Pointer[lazy.Executable]
	params []source // one per executable parameter
	// overwritten[i] says parameter i's tensor is overwritten by a
	// mutation with a computed value (its buffer may be donated).
	overwritten []bool
	// identity: output i is executable output i (no pass-through).
	identity bool
	// direct: the arguments are the parameters, the outputs are the
	// results and nothing is written back (Run's short path).
	direct bool
	// paramsAreArgs: parameter i is argument i, for every argument.
	paramsAreArgs bool
	outs          []outRef // one per fx output
	muts          []mutRef // one per fx mutation
	// written are the inputs some mutation writes into.
	written map[source]bool
	// repeat[i]: output i is a result an earlier output already is (two
	// tensors of the function with one value).
	repeat []bool
	// move[i]: mutation i's value is a result nothing else returns or
	// writes, so the write-back moves it into the target (the buffer keeps
	// one holder and the next replay may donate it).
	move []bool
	// Hash is the compiled graph's hash (zero when nothing needs a device).
	Hash lazy.Hash
	// Fresh reports that Compile compiled the executable (rather than
	// finding it in the compile cache).
	Fresh bool
	// Shapes of the placeholders the program was compiled for.
	argShapes, capShapes []lazy.Shape
	// copied: the IR came from the trace (CompileTraced), not from the
	// Interpreter; inPlace: the traced IR itself was lowered.
	copied, inPlace bool
}

type mutRef struct {
	target source
	val    outRef
}

// Compiled reports whether the program has device code (a graph whose
// outputs are all pass-throughs has none).
func (p *Program) Compiled() bool { return p.exe.Load() != nil }

// Executable returns the compiled executable (nil when none).
func (p *Program) Executable() *lazy.Executable { return p.exe.Load() }

// Mutates reports whether running the program writes into inputs.
func (p *Program) Mutates() bool { return len(p.muts) > 0 }

// Compile lowers g to StableHLO through the lazy runtime (placeholders for
// its inputs), hashes it, and finds or compiles the executable under the
// hash. Nothing executes. The counters show the compile (UncachedCompile
// or CachedCompile). A nil dev means the default device, as for
// fx.Interpreter and partitioner.Discover.
func Compile(g *fx.Graph, dev *lazy.Device) (*Program, error) { return compile(g, nil, dev) }

// CompileTraced is Compile of a trace's graph. The graph's IR over
// placeholders is the traced IR with placeholders for its inputs: when the
// graph is exactly its traced IR (inPlace), that IR is lowered as it is,
// its input leaves standing for the placeholders; when the program would
// keep its IR (run-time checks, debug dumps, SPMD layouts), which must not
// hold the traced inputs' buffers, it is copied node by node over the
// placeholders (lazy.Rerecord) instead of recorded through each op's shape
// rule; a node whose op, attributes or operands are no longer those traced
// makes the whole graph go through the fx Interpreter as in Compile. Each
// way the IR's hash, the module and the program are the same. The traced
// IR is dropped (it holds the traced inputs' buffers).
func CompileTraced(tr *Traced, dev *lazy.Device) (*Program, error) {
	if tr == nil {
		return nil, fmt.Errorf("bridge: CompileTraced of a nil trace")
	}
	ir := tr.ir
	tr.ir = nil
	return compile(tr.Graph, ir, dev)
}

func compile(g *fx.Graph, ir []*lazy.Node, dev *lazy.Device) (*Program, error) {
	nArgs, nCaps, err := checkPlaceholders(g)
	if err != nil {
		return nil, err
	}
	if dev == nil {
		dev = lazy.DefaultDevice()
	}
	args := make([]*lazy.Tensor, nArgs)
	caps := make([]*lazy.Tensor, nCaps)
	p := &Program{dev: dev, argShapes: make([]lazy.Shape, nArgs), capShapes: make([]lazy.Shape, nCaps)}
	byData := map[any]source{}
	for _, n := range g.Placeholders() {
		t := lazy.NewShardedPlaceholder(n.Shapes[0], dev, n.Sharding)
		src := source{capture: n.Input == fx.Capture, index: n.Index}
		if src.capture {
			caps[n.Index] = t
			p.capShapes[n.Index] = n.Shapes[0]
		} else {
			args[n.Index] = t
			p.argShapes[n.Index] = n.Shapes[0]
		}
		byData[t.DataID()] = src
	}
	var roots []lazy.Value
	rootOf := map[lazy.Value]int{}
	root := func(v lazy.Value) outRef {
		k, ok := rootOf[v]
		if !ok {
			k = len(roots)
			rootOf[v] = k
			roots = append(roots, v)
		}
		return outRef{root: k}
	}
	out := g.Output()
	// fromEnv takes the outputs and mutations of a graph whose calls have
	// the IR env (by node ID).
	fromEnv := func(env []*lazy.Node) {
		roots, p.outs, p.muts = roots[:0], nil, nil
		clear(rootOf)
		ref := func(r fx.Ref) outRef {
			if n := r.Node; n.Kind == fx.Placeholder {
				return outRef{root: -1, src: source{capture: n.Input == fx.Capture, index: n.Index}}
			}
			return root(lazy.Value{Node: env[r.Node.ID], Index: r.Index})
		}
		for _, r := range out.Args {
			p.outs = append(p.outs, ref(r))
		}
		for _, m := range out.Mutations {
			p.muts = append(p.muts, mutRef{target: source{capture: m.Target.Input == fx.Capture, index: m.Target.Index}, val: ref(m.Value)})
		}
	}
	var lg *lazy.Graph
	if leaves, ok := inPlace(g, ir, args, caps); ok {
		// The traced IR is the graph: lowered as it is, its leaves standing
		// for their placeholders.
		fromEnv(ir)
		if len(roots) > 0 {
			lg = lazy.CollectGraph(roots)
		}
		if lg != nil && lg.KeepsIR() {
			// The executable keeps the IR it was compiled from (checks, debug
			// dumps): not the traced inputs' buffers. Copy it instead.
			lg = nil
		} else {
			p.copied, p.inPlace = true, true
			for data, src := range leaves {
				byData[data] = src
			}
		}
	}
	if p.inPlace {
		// lg is the traced IR's graph.
	} else if env, ok := rerecord(g, ir, args, caps); ok {
		p.copied = true
		fromEnv(env)
	} else {
		in := fx.Interpreter{G: g, Device: dev}
		outs, muts, err := in.Run(args, caps)
		if err != nil {
			return nil, err
		}
		ref := func(t *lazy.Tensor) outRef {
			if src, ok := byData[t.DataID()]; ok && !t.IsPending() {
				return outRef{root: -1, src: src}
			}
			return root(t.Value())
		}
		for _, o := range outs {
			p.outs = append(p.outs, ref(o))
		}
		for i, m := range muts {
			t := out.Mutations[i].Target
			p.muts = append(p.muts, mutRef{target: source{capture: t.Input == fx.Capture, index: t.Index}, val: ref(m)})
		}
	}
	p.move = movable(p.outs, p.muts)
	p.written = map[source]bool{}
	for _, m := range p.muts {
		p.written[m.target] = true
	}
	p.repeat = make([]bool, len(p.outs))
	seenOut := map[outRef]bool{}
	for i, o := range p.outs {
		p.repeat[i] = seenOut[o]
		seenOut[o] = true
	}
	if len(roots) == 0 {
		return p, nil
	}
	if lg == nil {
		lg = lazy.CollectGraph(roots)
	}
	for _, leaf := range lg.Params {
		src, ok := byData[leaf.DataID()]
		if !ok {
			return nil, fmt.Errorf("bridge: graph reads device data that is not one of its placeholders")
		}
		p.params = append(p.params, src)
	}
	for _, src := range p.params {
		// Donatable: overwritten with a computed value, and its old value
		// is not handed on (returned, or written into another input).
		ow := false
		for _, m := range p.muts {
			if m.target == src && m.val.root >= 0 {
				ow = true
			}
		}
		for _, m := range p.muts {
			if m.val.root < 0 && m.val.src == src {
				ow = false
			}
		}
		for _, o := range p.outs {
			if o.root < 0 && o.src == src {
				ow = false
			}
		}
		p.overwritten = append(p.overwritten, ow)
	}
	p.paramsAreArgs = len(p.params) == nArgs
	for i, src := range p.params {
		p.paramsAreArgs = p.paramsAreArgs && !src.capture && src.index == i
	}
	p.identity = len(p.outs) == len(roots)
	for i, o := range p.outs {
		p.identity = p.identity && o.root == i
	}
	p.Hash = lg.Hash
	exe, fresh, err := lazy.CompileGraph(dev, lg, "jit")
	if err != nil {
		return nil, err
	}
	p.exe.Store(exe)
	p.Fresh = fresh
	p.direct = p.paramsAreArgs && p.identity && len(p.muts) == 0
	return p, nil
}

// checkPlaceholders counts g's argument and capture placeholders and
// checks, before anything is allocated by their indices, that g has an
// output node and that each kind is numbered 0..n-1 once each, as every
// trace writes them (a graph from outside, fx.Parse, may say anything).
func checkPlaceholders(g *fx.Graph) (nArgs, nCaps int, err error) {
	if g == nil || g.Output() == nil {
		return 0, 0, fmt.Errorf("bridge: graph has no output node")
	}
	ps := g.Placeholders()
	for _, n := range ps {
		if n.Input == fx.Capture {
			nCaps++
		} else {
			nArgs++
		}
	}
	seenArg, seenCap := make([]bool, nArgs), make([]bool, nCaps)
	for _, n := range ps {
		kind, seen := "arg", seenArg
		if n.Input == fx.Capture {
			kind, seen = "capture", seenCap
		}
		switch {
		case len(n.Shapes) != 1:
			return 0, 0, fmt.Errorf("bridge: %%%s = placeholder[%s %d] has %d shapes, want one", n.Name, kind, n.Index, len(n.Shapes))
		case n.Index < 0 || n.Index >= len(seen):
			return 0, 0, fmt.Errorf("bridge: %%%s = placeholder[%s %d]: the graph has %d %s placeholders, numbered from 0", n.Name, kind, n.Index, len(seen), kind)
		case seen[n.Index]:
			return 0, 0, fmt.Errorf("bridge: %%%s = placeholder[%s %d]: a second placeholder of that index", n.Name, kind, n.Index)
		}
		seen[n.Index] = true
	}
	return nArgs, nCaps, nil
}

// movable marks the mutations whose value is a computed result that no
// output returns and no other mutation writes.
func movable(outs []outRef, muts []mutRef) []bool {
	uses := map[int]int{}
	for _, o := range outs {
		if o.root >= 0 {
			uses[o.root]++
		}
	}
	for _, m := range muts {
		if m.val.root >= 0 {
			uses[m.val.root]++
		}
	}
	move := make([]bool, len(muts))
	for i, m := range muts {
		move[i] = m.val.root >= 0 && uses[m.val.root] == 1
	}
	return move
}

// inPlace reports whether g is exactly its traced IR (ir, per node ID)
// with a device-data leaf of its own for each placeholder that calls
// read, so that the IR can be lowered as it is: the same nodes, hashes,
// post-order and parameter order as its copy over the placeholders
// (rerecord) would have. Each call must have its traced op and attribute
// list, and each operand must be the traced node of its argument, or for
// a placeholder one leaf whose hash and shape are the placeholder's (as
// rerecord requires) and whose buffer no other placeholder's leaf has (a
// graph's parameters are its distinct buffers). leaves maps each leaf's
// data to its placeholder's source.
func inPlace(g *fx.Graph, ir []*lazy.Node, args, caps []*lazy.Tensor) (leaves map[any]source, ok bool) {
	if len(ir) != len(g.Nodes) || g.Output() == nil {
		return nil, false
	}
	leafOf := make([]*lazy.Node, len(g.Nodes)) // by placeholder ID
	leaves = map[any]source{}
	for i, n := range g.Nodes {
		if n.ID != i {
			return nil, false
		}
		if n.Kind != fx.Call {
			continue
		}
		o := ir[i]
		if o == nil || n.Op != o.Op() || !sameAttrs(n.Attrs, o.Attrs()) || o.Computed() {
			return nil, false
		}
		ins := o.Inputs()
		if len(ins) != len(n.Args) {
			return nil, false
		}
		for k, a := range n.Args {
			v, an := ins[k], a.Node
			switch an.Kind {
			case fx.Call:
				if v.Node != ir[an.ID] || v.Index != a.Index {
					return nil, false
				}
			case fx.Placeholder:
				if l := leafOf[an.ID]; l != nil {
					if v.Node != l || v.Index != 0 || a.Index != 0 {
						return nil, false
					}
					continue
				}
				src, ph := args, source{capture: an.Input == fx.Capture, index: an.Index}
				if ph.capture {
					src = caps
				}
				pv := src[an.Index].Value()
				if !v.Node.IsData() || v.Index != 0 || a.Index != 0 || v.Node.Hash() != pv.Node.Hash() || !v.Shape().Equal(pv.Shape()) {
					return nil, false
				}
				if _, dup := leaves[v.Node.DataID()]; dup {
					return nil, false
				}
				leafOf[an.ID] = v.Node
				leaves[v.Node.DataID()] = ph
			default:
				return nil, false
			}
		}
	}
	return leaves, true
}

// rerecord records g's IR over the placeholder tensors by copying each
// call's traced IR node (ir, per node ID) with the copies of its operands:
// env holds each node's copy by ID. ok is false when g has no traced IR
// or a node differs from its IR (the caller records through the
// Interpreter instead).
func rerecord(g *fx.Graph, ir []*lazy.Node, args, caps []*lazy.Tensor) (env []*lazy.Node, ok bool) {
	if len(ir) != len(g.Nodes) || g.Output() == nil {
		return nil, false
	}
	env = make([]*lazy.Node, len(g.Nodes))
	var in []lazy.Value
	var rr lazy.Rerecorder
	for i, n := range g.Nodes {
		if n.ID != i {
			return nil, false
		}
		switch n.Kind {
		case fx.Placeholder:
			src := args
			if n.Input == fx.Capture {
				src = caps
			}
			env[i] = src[n.Index].Value().Node
		case fx.Call:
			o := ir[i]
			if o == nil || n.Op != o.Op() || !sameAttrs(n.Attrs, o.Attrs()) {
				return nil, false
			}
			in = in[:0]
			for _, a := range n.Args {
				in = append(in, lazy.Value{Node: env[a.Node.ID], Index: a.Index})
			}
			c, ok := rr.Rerecord(o, in)
			if !ok {
				return nil, false
			}
			env[i] = c
		}
	}
	return env, true
}

// sameAttrs reports whether a and b are one attribute list (not a copy).
func sameAttrs(a, b lazy.Attrs) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
