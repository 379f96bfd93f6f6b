package partitioner_test

import (
	"fmt"
	"testing"

	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/partitioner"
)

// FuzzPartitionRunsLikeTheGraph partitions random graphs of additions,
// negations and constant subgraphs (which Partition sinks into their
// consumers' partitions) over an argument and a capture, with random host
// nodes (host constants included) and a mutation of the capture: the plan
// must build, and interpreting its split graph must give what
// interpreting the graph gives.
func FuzzPartitionRunsLikeTheGraph(f *testing.F) {
	f.Add(uint64(1), uint8(20), uint8(5))
	f.Add(uint64(7), uint8(40), uint8(2))
	f.Fuzz(func(t *testing.T, seed uint64, nn, kk uint8) {
		n := int(nn%60) + 1
		r := seed*0x9E3779B97F4A7C15 + 1
		next := func(m int) int {
			r ^= r << 13
			r ^= r >> 7
			r ^= r << 17
			return int(r % uint64(m))
		}
		s := lazy.NewShape(lazy.F32, 4)
		g := &fx.Graph{}
		x := &fx.Node{Name: "arg0", Kind: fx.Placeholder, Shapes: []lazy.Shape{s}}
		cp := &fx.Node{Name: "cap0", Kind: fx.Placeholder, Input: fx.Capture, Shapes: []lazy.Shape{s}}
		g.Nodes = append(g.Nodes, x, cp)
		host := map[*fx.Node]bool{}
		var calls []*fx.Node
		cst, err := fx.Parse("%c : f32[] = Constant(value=lit(f32[], [1.5]))\n%b : f32[4] = Broadcast(%c, dims=[4], bdims=[])\noutput(%b)")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			pick := func() fx.Ref {
				if len(calls) == 0 || next(5) == 0 {
					if next(2) == 0 {
						return fx.Ref{Node: x}
					}
					return fx.Ref{Node: cp}
				}
				return fx.Ref{Node: calls[next(len(calls))]}
			}
			var c *fx.Node
			switch next(4) {
			case 0: // a constant chain
				c0 := &fx.Node{Name: fmt.Sprintf("c_%d", i), Kind: fx.Call, Op: cst.Nodes[0].Op, Attrs: cst.Nodes[0].Attrs, Shapes: cst.Nodes[0].Shapes}
				g.Nodes = append(g.Nodes, c0)
				if int(kk) > 0 && next(int(kk)+1) == 0 {
					host[c0] = true
				}
				c = &fx.Node{Name: fmt.Sprintf("b_%d", i), Kind: fx.Call, Op: cst.Nodes[1].Op, Attrs: cst.Nodes[1].Attrs, Args: []fx.Ref{{Node: c0}}, Shapes: []lazy.Shape{s}}
			case 1:
				c = &fx.Node{Name: fmt.Sprintf("neg_%d", i), Kind: fx.Call, Op: lazy.LookupOp("Neg"), Args: []fx.Ref{pick()}, Shapes: []lazy.Shape{s}}
			default:
				c = &fx.Node{Name: fmt.Sprintf("add_%d", i), Kind: fx.Call, Op: lazy.LookupOp("Add"), Args: []fx.Ref{pick(), pick()}, Shapes: []lazy.Shape{s}}
			}
			if int(kk) > 0 && next(int(kk)+1) == 0 {
				host[c] = true
			}
			calls = append(calls, c)
			g.Nodes = append(g.Nodes, c)
		}
		out := &fx.Node{Name: "output", Kind: fx.Output}
		for j := 0; j < 1+next(3); j++ {
			out.Args = append(out.Args, fx.Ref{Node: calls[next(len(calls))]})
		}
		if next(2) == 0 {
			out.Mutations = []fx.Mutation{{Target: cp, Value: fx.Ref{Node: calls[next(len(calls))]}}}
		}
		g.Nodes = append(g.Nodes, out)
		g.Renumber()
		if err := g.Lint(); err != nil {
			t.Fatal(err)
		}
		plan, err := partitioner.Partition(g, host)
		if err != nil {
			t.Fatalf("%v\n%s", err, g.Format(false))
		}
		var call func(n *fx.Node, args []*lazy.Tensor) ([]*lazy.Tensor, error)
		call = func(n *fx.Node, args []*lazy.Tensor) (res []*lazy.Tensor, err error) {
			switch {
			case n.Sub != nil:
				res, _, err = (&fx.Interpreter{G: n.Sub, Call: call}).Run(args, nil)
			default:
				err = lazy.Try(func() { res = lazy.Record(n.Op, n.Attrs, args...) })
			}
			return res, err
		}
		run := func(g *fx.Graph) string {
			xv := lazy.FromSlice([]float32{-2, 1, 0.5, 3})
			cv := lazy.FromSlice([]float32{1, 1, 3, 1})
			outs, muts, err := (&fx.Interpreter{G: g, Call: call}).Run([]*lazy.Tensor{xv}, []*lazy.Tensor{cv})
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(append(outs, muts...))
		}
		if a, b := run(g), run(plan.Split); a != b {
			t.Errorf("graph gives %s, split graph %s\n%s", a, b, plan.Split.Format(false))
		}
	})
}
