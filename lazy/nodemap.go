package lazy

// NodeMap maps IR nodes to values of type V, for the walks of a first call
// (fx conversion, graph collection, lowering) that visit every node of a
// graph once: a Go map of tens of thousands of pointer keys costs more to
// fill than the walk itself. Nodes are numbered as they are built, a
// node's operands before it, so the nodes of one graph lie below the
// number the map was made at and mostly close together: the map keeps
// pages of a table indexed by that distance, and a Go map for nodes far
// below (or built after the map was made). The zero V means absent.
// A NodeMap belongs to one goroutine.
type NodeMap[V any] struct {
	top   uint64 // the node counter when made: seq ≤ top index pages
	pages []*[nodePage]V
	far   map[*Node]V
}

const (
	nodePageBits = 8
	nodePage     = 1 << nodePageBits
	// maxNodePages bounds the page list (a graph reading IR built long
	// before the rest keeps those nodes in the Go map).
	maxNodePages = 1 << 14
)

// NewNodeMap returns an empty map for nodes built so far.
func NewNodeMap[V any]() *NodeMap[V] {
	return &NodeMap[V]{top: nodeSeq.Load()}
}

func (m *NodeMap[V]) slot(n *Node, grow bool) *V {
	if n.seq <= m.top {
		off := m.top - n.seq
		if p := off >> nodePageBits; p < maxNodePages {
			if int(p) >= len(m.pages) {
				if !grow {
					return nil
				}
				m.pages = append(m.pages, make([]*[nodePage]V, int(p)+1-len(m.pages))...)
			}
			pg := m.pages[p]
			if pg == nil {
				if !grow {
					return nil
				}
				pg = new([nodePage]V)
				m.pages[p] = pg
			}
			return &pg[off&(nodePage-1)]
		}
	}
	return nil
}

// Get returns n's value (the zero V when absent).
func (m *NodeMap[V]) Get(n *Node) V {
	if s := m.slot(n, false); s != nil {
		return *s
	}
	var zero V
	if m.far == nil || n.seq <= m.top && (m.top-n.seq)>>nodePageBits < maxNodePages {
		return zero
	}
	return m.far[n]
}

// Set sets n's value.
func (m *NodeMap[V]) Set(n *Node, v V) {
	if s := m.slot(n, true); s != nil {
		*s = v
		return
	}
	if m.far == nil {
		m.far = map[*Node]V{}
	}
	m.far[n] = v
}

// NodesBuilt is the number of IR nodes built so far in the process (the
// difference of two readings is a size hint for the IR built between).
func NodesBuilt() uint64 { return nodeSeq.Load() }
