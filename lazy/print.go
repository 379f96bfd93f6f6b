package lazy

import (
	"fmt"
	"strings"
)

// String prints the graph one node per line in SSA form:
//
//	%0 : f32[2,2] = DeviceData()  # param 0
//	%1 : f32[2,2] = Add(%0, %0)
//	return %1
func (g *Graph) String() string {
	names := make(map[*Node]int, len(g.Nodes))
	var b strings.Builder
	for i, n := range g.Nodes {
		names[n] = i
		writeNode(&b, n, i, names)
		if n.data != nil {
			fmt.Fprintf(&b, "  # param %d", g.ParamOf[n])
		}
		b.WriteByte('\n')
	}
	b.WriteString("return ")
	for i, r := range g.Roots {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(valueName(r, names))
	}
	b.WriteByte('\n')
	return b.String()
}

func valueName(v Value, names map[*Node]int) string {
	if len(v.Node.out) > 1 {
		return fmt.Sprintf("%%%d#%d", names[v.Node], v.Index)
	}
	return fmt.Sprintf("%%%d", names[v.Node])
}

func writeNode(b *strings.Builder, n *Node, id int, names map[*Node]int) {
	if len(n.out) == 1 {
		fmt.Fprintf(b, "%%%d : %s = %s(", id, n.out[0], n.op.Name)
	} else {
		s := make([]string, len(n.out))
		for i, o := range n.out {
			s[i] = o.String()
		}
		fmt.Fprintf(b, "%%%d:%d : (%s) = %s(", id, len(n.out), strings.Join(s, ", "), n.op.Name)
	}
	for i, in := range n.inputs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(valueName(in, names))
	}
	if len(n.attrs) > 0 {
		if len(n.inputs) > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n.attrs.String())
	}
	b.WriteByte(')')
}

// Dot prints the graph in Graphviz format.
func (g *Graph) Dot() string {
	names := make(map[*Node]int, len(g.Nodes))
	var b strings.Builder
	fmt.Fprintf(&b, "digraph \"%s\" {\n  node [shape=box, fontname=\"monospace\"];\n", g.Hash)
	for i, n := range g.Nodes {
		names[n] = i
		label := fmt.Sprintf("%%%d %s\\n%s", i, n.op.Name, n.out[0])
		if n.data != nil {
			label += fmt.Sprintf("\\nparam %d", g.ParamOf[n])
		}
		fmt.Fprintf(&b, "  n%d [label=\"%s\"];\n", i, label)
		for _, in := range n.inputs {
			fmt.Fprintf(&b, "  n%d -> n%d;\n", names[in.Node], i)
		}
	}
	for i, r := range g.Roots {
		fmt.Fprintf(&b, "  out%d [shape=ellipse, label=\"out %d\"];\n  n%d -> out%d;\n", i, i, names[r.Node], i)
	}
	b.WriteString("}\n")
	return b.String()
}
