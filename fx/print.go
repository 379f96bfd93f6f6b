package fx

import (
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/lazy"
)

// String prints the graph, one node per line, with call sites and
// partitions as trailing comments.
func (g *Graph) String() string { return g.Format(true) }

// Format prints the graph; sites controls the call-site comments (golden
// tests leave them out, since they change with unrelated edits).
func (g *Graph) Format(sites bool) string {
	var b strings.Builder
	for _, n := range g.Nodes {
		writeNode(&b, n, sites)
		b.WriteByte('\n')
	}
	return b.String()
}

func refString(r Ref) string {
	if len(r.Node.Shapes) > 1 {
		return fmt.Sprintf("%%%s#%d", r.Node.Name, r.Index)
	}
	return "%" + r.Node.Name
}

func shapesString(ss []lazy.Shape) string {
	if len(ss) == 1 {
		return ss[0].String()
	}
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func writeNode(b *strings.Builder, n *Node, sites bool) {
	switch n.Kind {
	case Placeholder:
		kind := "arg"
		if n.Input == Capture {
			kind = "capture"
		}
		fmt.Fprintf(b, "%%%s : %s = placeholder[%s %d]", n.Name, shapesString(n.Shapes), kind, n.Index)
		if n.Sharding != nil {
			fmt.Fprintf(b, " sharding=%s", n.Sharding)
		}
	case Call:
		fmt.Fprintf(b, "%%%s : %s = %s(", n.Name, shapesString(n.Shapes), n.OpName())
		for i, a := range n.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(refString(a))
		}
		for i, a := range n.Attrs {
			if i > 0 || len(n.Args) > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.Key)
			b.WriteByte('=')
			b.WriteString(lazy.FormatAttr(a.Val))
		}
		b.WriteByte(')')
	case Output:
		b.WriteString("output(")
		for i, a := range n.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(refString(a))
		}
		for i, m := range n.Mutations {
			if i == 0 {
				b.WriteString("; ")
			} else {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%%%s <- %s", m.Target.Name, refString(m.Value))
		}
		b.WriteByte(')')
	}
	var notes []string
	switch {
	case n.Kind == Call && n.Partition > 0:
		notes = append(notes, fmt.Sprintf("device %d", n.Partition))
	case n.Kind == Call && n.Partition < 0:
		notes = append(notes, "host")
	}
	if sites && n.Site != "" {
		notes = append(notes, n.Site)
	}
	if len(notes) > 0 {
		b.WriteString("  # ")
		b.WriteString(strings.Join(notes, ", "))
	}
}
