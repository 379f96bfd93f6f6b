package jit

import (
	"fmt"

	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
)

// embedConstants turns the capture placeholders of g that stand for
// tensors the traced function made from Go data (made: lazy.FromSlice,
// FromLiteral inside the function; never written) into Constant nodes
// holding their values, as lazy.Constant records them: an ahead-of-time
// trace has no closure to fetch them from on each call, and jit.Compile
// treats them as constants of the trace too. The remaining captures keep
// their order, renumbered.
func embedConstants(g *fx.Graph, made map[*lazy.Tensor]bool) error {
	if len(made) == 0 || len(g.Captures) == 0 {
		return nil
	}
	written := map[*fx.Node]bool{}
	if out := g.Output(); out != nil {
		for _, m := range out.Mutations {
			written[m.Target] = true
		}
	}
	constOp := lazy.LookupOp("Constant")
	names := map[string]bool{}
	for _, n := range g.Nodes {
		names[n.Name] = true
	}
	keep := make([]int, len(g.Captures)) // new index of each kept capture, or -1
	var kept []*lazy.Tensor
	for i, t := range g.Captures {
		keep[i] = -1
		if !made[t] {
			keep[i] = len(kept)
			kept = append(kept, t)
		}
	}
	for i, n := range g.Nodes {
		if n.Kind != fx.Placeholder || n.Input != fx.Capture {
			continue
		}
		if keep[n.Index] >= 0 {
			n.Index = keep[n.Index]
			continue
		}
		if written[n] {
			return fmt.Errorf("capture %d (%s) is a tensor the function made from Go data and then wrote", n.Index, n.Shapes[0])
		}
		if err := embeddable(n.Shapes[0]); err != nil {
			return fmt.Errorf("capture %d (%s) is a tensor the function made from Go data, %v: pass it as an argument", n.Index, n.Shapes[0], err)
		}
		var lit *lazy.Literal
		if err := lazy.Try(func() { lit = g.Captures[n.Index].MustLiteral() }); err != nil {
			return fmt.Errorf("reading the constant behind capture %d: %w", n.Index, err)
		}
		name := fmt.Sprintf("const_%d", i)
		for names[name] {
			name += "_"
		}
		names[name] = true
		// In place: the placeholder's uses read the constant.
		n.Name, n.Kind, n.Op, n.Attrs = name, fx.Call, constOp, lazy.Attrs{{Key: "value", Val: lit}}
		n.Input, n.Index = 0, 0
	}
	g.Captures = kept
	return nil
}

// maxEmbedded is the most bytes of one constant an ahead-of-time trace
// embeds: the generated Go file holds it as text (two hex digits a byte).
const maxEmbedded = 1 << 20

// embeddable checks that a constant of shape s fits in a generated file
// and in what fx.Parse reads back (lazy.ParseLiteral: dims and element
// counts up to 2^24).
func embeddable(s lazy.Shape) error {
	for _, d := range s.Dims {
		if d > 1<<24 {
			return fmt.Errorf("whose dimension %d is past the 2^24 a graph file holds", d)
		}
	}
	if n := s.Size(); n > 1<<24 || n*int64(s.DType.Size()) > maxEmbedded {
		return fmt.Errorf("too large to embed in the graph (%d elements; at most %d bytes)", n, maxEmbedded)
	}
	return nil
}
