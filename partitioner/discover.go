package partitioner

import (
	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
)

// Discover returns the call nodes of g that must run on the host of dev:
// ops without a lowering, and ops whose trial lowering (the node alone, on
// placeholders of its recorded operand shapes) uses a StableHLO op or
// element type the device's client does not report as supported. Nothing
// executes, and whatever the trial lowerings count goes into a counting
// scope that is dropped: no counter changes.
func Discover(g *fx.Graph, dev *lazy.Device) map[*fx.Node]bool {
	endCount := lazy.BeginCountScope()
	defer endCount(false)
	host := map[*fx.Node]bool{}
	var in []lazy.Shape // reused: DeviceSupports keeps no operand list
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
		if !lazy.DeviceSupports(dev, op, n.Attrs, in) {
			host[n] = true
		}
	}
	return host
}
