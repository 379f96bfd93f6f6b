package spmd

import (
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt"
)

// Shard is one device's piece of a tensor (PyTorch/XLA's XLAShard).
type Shard struct {
	Device int
	// Indices are the [start, end) ranges of the tensor the shard holds,
	// without padding (the whole tensor for a replicated one).
	Indices [][2]int64
	// ReplicaID is the device's index among the devices holding the same
	// piece: 0 for a tiled sharding, the position in its replica group for
	// a partially replicated one, the device for a replicated one.
	ReplicaID int
	// Data is the shard as the device holds it, right-padded with zeros
	// to the shard shape.
	Data *lazy.Literal
}

// Unpadded is the shard's data without padding.
func (s Shard) Unpadded() *lazy.Literal {
	ext := make([]int64, len(s.Indices))
	for i, r := range s.Indices {
		ext[i] = r[1] - r[0]
	}
	return pjrt.SubLiteral(s.Data, make([]int64, len(ext)), ext)
}

// Shards computes t (a cut) and returns the piece each device holds, in
// device order.
func Shards(t *lazy.Tensor) ([]Shard, error) {
	if t == nil {
		return nil, fmt.Errorf("spmd: Shards of a nil tensor")
	}
	if !t.Device().IsSPMD() {
		return nil, fmt.Errorf("spmd: tensor on %s is not on the SPMD device", t.Device())
	}
	if err := lazy.Sync(t); err != nil {
		return nil, err
	}
	sb, ok := t.Buffer().(*pjrt.ShardedBuffer)
	if !ok {
		return nil, fmt.Errorf("spmd: tensor data is a %T, not sharded data", t.Buffer())
	}
	s := sb.Sharding()
	var out []Shard
	for d, b := range sb.Shards() {
		l, err := b.ToHost()
		if err != nil {
			return nil, err
		}
		out = append(out, Shard{Device: d, Indices: s.ShardRanges(t.Dims(), int64(d)), ReplicaID: int(s.ReplicaID(int64(d))), Data: l})
	}
	return out, nil
}

// Visualize draws how a sharding of a tensor of dims places its tiles, as
// PyTorch/XLA's visualize_tensor_sharding: a grid of the tiles of the
// first two dimensions (rows, then columns), each cell naming the devices
// that hold it ("0,1" under partial replication, or when further
// dimensions are cut) and its index ranges. A replicated sharding is one
// cell "replicated", a maximal one the whole tensor on its device, a
// manual one "manual".
func Visualize(s *pjrt.Sharding, dims []int64) string {
	if s.IsTiled() && s.DataRank() != len(dims) {
		return fmt.Sprintf("sharding %s does not fit a tensor of %d dimensions\n", s, len(dims))
	}
	// Rows follow the first tensor dimension and columns the second (a
	// 1-D tensor is one row).
	rowsDim, colsDim := -1, -1
	var tiles []int64
	if s.IsTiled() {
		tiles = s.TilesOf(len(dims))
		switch {
		case len(dims) == 1:
			colsDim = 0
		case len(dims) >= 2:
			rowsDim, colsDim = 0, 1
		}
	}
	nr, nc := int64(1), int64(1)
	if rowsDim >= 0 {
		nr = tiles[rowsDim]
	}
	if colsDim >= 0 {
		nc = tiles[colsDim]
	}
	cells := make([][]string, nr)
	for r := range cells {
		cells[r] = make([]string, nc)
	}
	n := int64(1)
	if s.IsTiled() {
		n = int64(len(s.Devices))
	}
	span := func(d int, c int64) string {
		if d < 0 {
			return ""
		}
		sz := (dims[d] + tiles[d] - 1) / tiles[d]
		return fmt.Sprintf("[%d:%d]", min(c*sz, dims[d]), min((c+1)*sz, dims[d]))
	}
	switch {
	case s != nil && s.Type == pjrt.ShardMaximal:
		// The whole tensor on one device.
		var whole strings.Builder
		for _, d := range dims[:min(len(dims), 2)] {
			fmt.Fprintf(&whole, "[0:%d]", d)
		}
		cells[0][0] = fmt.Sprintf("dev %d %s", s.Device, whole.String())
	case s != nil && s.Type == pjrt.ShardManual:
		cells[0][0] = "manual"
	case !s.IsTiled():
		cells[0][0] = "replicated"
	default:
		for dev := int64(0); dev < n; dev++ {
			c := s.Coord(dev)
			var r, k int64
			if rowsDim >= 0 {
				r = c[rowsDim]
			}
			if colsDim >= 0 {
				k = c[colsDim]
			}
			if cells[r][k] != "" {
				cells[r][k] += ","
			}
			cells[r][k] += fmt.Sprint(dev)
		}
		for r := range cells {
			for k := range cells[r] {
				cells[r][k] = "dev " + cells[r][k] + " " + span(rowsDim, int64(r)) + span(colsDim, int64(k))
			}
		}
	}
	w := 0
	for _, row := range cells {
		for _, c := range row {
			w = max(w, len(c))
		}
	}
	var b strings.Builder
	line := func(l, m, r string) {
		b.WriteString(l)
		for k := int64(0); k < nc; k++ {
			b.WriteString(strings.Repeat("─", w+2))
			if k < nc-1 {
				b.WriteString(m)
			}
		}
		b.WriteString(r + "\n")
	}
	line("┌", "┬", "┐")
	for r, row := range cells {
		for _, c := range row {
			fmt.Fprintf(&b, "│ %-*s ", w, c)
		}
		b.WriteString("│\n")
		if r < len(cells)-1 {
			line("├", "┼", "┤")
		}
	}
	line("└", "┴", "┘")
	return b.String()
}

// VisualizeTensor draws t's sharding (see Visualize).
func VisualizeTensor(t *lazy.Tensor) string {
	if t == nil {
		return "<nil tensor>\n"
	}
	s := t.Sharding()
	if s == nil {
		s = pjrt.Replicated()
	}
	return fmt.Sprintf("%s %s\n%s", t.Shape(), s, Visualize(s, t.Dims()))
}
