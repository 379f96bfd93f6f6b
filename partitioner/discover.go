package partitioner

import (
	"unsafe"

	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
)

// Discover returns the call nodes of g that must run on the host of dev:
// ops without a lowering, and ops whose trial lowering (the node alone, on
// placeholders of its recorded operand shapes) uses a StableHLO op or
// element type the device's client does not report as supported. Nothing
// executes, and whatever the trial lowerings count goes into a counting
// scope that is dropped: no counter changes. A nil dev means the default
// device (as for fx.Interpreter and lazy.RecordOn), not a device that runs
// nothing; a nil g has no nodes to run on the host.
func Discover(g *fx.Graph, dev *lazy.Device) map[*fx.Node]bool {
	host := map[*fx.Node]bool{}
	if g == nil {
		return host
	}
	if dev == nil {
		dev = lazy.DefaultDevice()
	}
	endCount := lazy.BeginCountScope()
	defer endCount(false)
	var in []lazy.Shape // reused: DeviceSupports keeps no operand list
	// last is the latest answer per op. A traced function repeats the
	// same op on the same shapes with the same attributes (a constant's
	// value aside), and the answer depends on nothing else, so a repeat
	// skips DeviceSupports' key hashing.
	var last askedOps
	for _, n := range g.Nodes {
		if n.Kind != fx.Call {
			continue
		}
		op := n.Op
		if op == nil || op.Lower == nil {
			host[n] = true
			continue
		}
		in = in[:0]
		for _, a := range n.Args {
			in = append(in, a.Shape())
		}
		a := last.of(op)
		if a.op != op || !a.same(n.Attrs, in) {
			a.op = op
			a.set(n.Attrs, in, lazy.DeviceSupports(dev, op, n.Attrs, in))
		}
		if !a.ok {
			host[n] = true
		}
	}
	return host
}

// askedOps holds the latest answers by op (a few ops: an op whose slot
// another took is asked again).
type askedOps [16]askedOp

func (a *askedOps) of(op *lazy.OpDef) *askedOp {
	p := uintptr(unsafe.Pointer(op))
	return &a[(p>>4^p>>9)%uintptr(len(a))]
}

// askedOp is one DeviceSupports question about an op and its answer.
type askedOp struct {
	op    *lazy.OpDef
	attrs lazy.Attrs
	in    []lazy.Shape
	ok    bool
}

// same reports whether attrs and in (equal shapes) ask a's question
// again.
func (a *askedOp) same(attrs lazy.Attrs, in []lazy.Shape) bool {
	if len(in) != len(a.in) || !lazy.SameSupportAttrs(attrs, a.attrs) {
		return false
	}
	for i, s := range in {
		if !s.Equal(a.in[i]) {
			return false
		}
	}
	return true
}

func (a *askedOp) set(attrs lazy.Attrs, in []lazy.Shape, ok bool) {
	a.attrs, a.ok = attrs, ok
	a.in = append(a.in[:0], in...) // the shapes' dims are never edited
}
