package gspmd

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/xlajit/xlajit/pjrt"
)

// layout is a tensor's layout over the n devices of the program, in the
// form the rules reason with: per tensor dimension its number of tiles, and
// per device the tile coordinate it holds along each dimension. A sharding
// (XLA's text) is a layout whose coordinate tuples each occur on the same
// number of devices; rules may build others (a local slice of a replicated
// operand to another operand's coordinates), which are only ever consumed
// locally.
type layout struct {
	tiles []int64   // per dimension
	coord [][]int64 // coord[device][dimension]
}

func replicatedLayout(rank, n int) *layout {
	l := &layout{tiles: make([]int64, rank), coord: make([][]int64, n)}
	for i := range l.tiles {
		l.tiles[i] = 1
	}
	for p := range l.coord {
		l.coord[p] = make([]int64, rank)
	}
	return l
}

// layoutOf converts a sharding of a rank-dimensional tensor over n devices.
func layoutOf(s *pjrt.Sharding, rank, n int) (*layout, error) {
	if s == nil || s.Type == pjrt.ShardReplicated {
		return replicatedLayout(rank, n), nil
	}
	if s.Type != pjrt.ShardTiled {
		return nil, fmt.Errorf("sharding %s is not supported by the embedded partitioner (only replicated and tiled layouts)", s)
	}
	if err := s.Validate(rank, n); err != nil {
		return nil, err
	}
	l := &layout{tiles: s.TilesOf(rank), coord: make([][]int64, n)}
	for p := range l.coord {
		c := s.Coord(int64(p))
		l.coord[p] = slices.Clone(c[:rank])
	}
	return l, nil
}

func (l *layout) rank() int { return len(l.tiles) }
func (l *layout) n() int    { return len(l.coord) }

func (l *layout) clone() *layout {
	c := &layout{tiles: slices.Clone(l.tiles), coord: make([][]int64, len(l.coord))}
	for p := range l.coord {
		c.coord[p] = slices.Clone(l.coord[p])
	}
	return c
}

// numTiles is the product of the tile counts.
func (l *layout) numTiles() int64 {
	t := int64(1)
	for _, x := range l.tiles {
		t *= x
	}
	return t
}

func (l *layout) isReplicated() bool { return l.numTiles() == 1 }

// dimEqual reports whether dimension d of l and od of o are cut alike on
// every device.
func (l *layout) dimEqual(d int, o *layout, od int) bool {
	if l.tiles[d] != o.tiles[od] {
		return false
	}
	if l.tiles[d] == 1 {
		return true
	}
	for p := range l.coord {
		if l.coord[p][d] != o.coord[p][od] {
			return false
		}
	}
	return true
}

func (l *layout) equal(o *layout) bool {
	if l.rank() != o.rank() {
		return false
	}
	for d := range l.tiles {
		if !l.dimEqual(d, o, d) {
			return false
		}
	}
	return true
}

// untile returns l with the given dimensions whole on every device.
func (l *layout) untile(dims ...int) *layout {
	c := l.clone()
	for _, d := range dims {
		c.tiles[d] = 1
		for p := range c.coord {
			c.coord[p][d] = 0
		}
	}
	return c
}

// setDim returns l with dimension d cut as dimension od of o.
func (l *layout) setDim(d int, o *layout, od int) *layout {
	c := l.clone()
	c.tiles[d] = o.tiles[od]
	for p := range c.coord {
		c.coord[p][d] = o.coord[p][od]
	}
	return c
}

// project builds a layout of len(src) dimensions: dimension i is l's
// dimension src[i], or whole when src[i] < 0.
func (l *layout) project(src []int) *layout {
	c := &layout{tiles: make([]int64, len(src)), coord: make([][]int64, len(l.coord))}
	for i, s := range src {
		c.tiles[i] = 1
		if s >= 0 {
			c.tiles[i] = l.tiles[s]
		}
	}
	for p := range l.coord {
		c.coord[p] = make([]int64, len(src))
		for i, s := range src {
			if s >= 0 {
				c.coord[p][i] = l.coord[p][s]
			}
		}
	}
	return c
}

// shardDims returns the local (padded) dims of a tensor of dims.
func (l *layout) shardDims(dims []int64) []int64 {
	out := make([]int64, len(dims))
	for i, d := range dims {
		out[i] = ceilDiv(d, l.tiles[i])
	}
	return out
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// padded reports whether dimension d of a tensor of dims holds padding on
// some device.
func (l *layout) padded(dims []int64, d int) bool {
	return l.tiles[d] > 1 && ceilDiv(dims[d], l.tiles[d])*l.tiles[d] != dims[d]
}

// key is a compact identity of the layout (for caches).
func (l *layout) key() string {
	var b strings.Builder
	for _, t := range l.tiles {
		b.WriteString(strconv.FormatInt(t, 10))
		b.WriteByte(',')
	}
	if l.isReplicated() {
		return b.String()
	}
	for _, c := range l.coord {
		b.WriteByte('|')
		for _, x := range c {
			b.WriteString(strconv.FormatInt(x, 10))
			b.WriteByte(',')
		}
	}
	return b.String()
}

// tupleIndex is the row-major index of coordinate tuple c over tiles,
// restricted to dims.
func tupleIndex(c []int64, tiles []int64, dims []int) int64 {
	i := int64(0)
	for _, d := range dims {
		i = i*tiles[d] + c[d]
	}
	return i
}

func allDims(rank int) []int {
	out := make([]int, rank)
	for i := range out {
		out[i] = i
	}
	return out
}

// sharding converts l back to XLA's form; ok is false when the coordinate
// tuples do not occur equally often (the layout is no sharding).
func (l *layout) sharding() (*pjrt.Sharding, bool) {
	if l.isReplicated() {
		return pjrt.Replicated(), true
	}
	dims := allDims(l.rank())
	nt := l.numTiles()
	byTuple := make([][]int64, nt)
	for p, c := range l.coord {
		i := tupleIndex(c, l.tiles, dims)
		byTuple[i] = append(byTuple[i], int64(p))
	}
	k := len(byTuple[0])
	var devs []int64
	for _, g := range byTuple {
		if len(g) != k || k == 0 {
			return nil, false
		}
		devs = append(devs, g...) // ascending already
	}
	if k == 1 {
		s, err := pjrt.Tiled(l.tiles, devs)
		return s, err == nil
	}
	s, err := pjrt.PartialTiled(append(slices.Clone(l.tiles), int64(k)), devs)
	return s, err == nil
}

func (l *layout) String() string {
	if s, ok := l.sharding(); ok {
		return s.String()
	}
	return fmt.Sprintf("{irregular tiles=%v coords=%v}", l.tiles, l.coord)
}

// groups partitions the devices for a collective along dims: each group
// holds devices with equal coordinates on every other dimension, exactly
// one per coordinate tuple on dims, ordered by that tuple (row-major).
// Devices holding the same tile are spread over different groups.
func (l *layout) groups(dims []int) ([][]int64, error) {
	var others []int
	for d := 0; d < l.rank(); d++ {
		if !slices.Contains(dims, d) {
			others = append(others, d)
		}
	}
	size := int64(1)
	for _, d := range dims {
		size *= l.tiles[d]
	}
	// sets of devices equal on the other dimensions, in first-seen order
	setOf := map[string]int{}
	var sets [][]int
	for p, c := range l.coord {
		var kb strings.Builder
		for _, d := range others {
			kb.WriteString(strconv.FormatInt(c[d], 10))
			kb.WriteByte(',')
		}
		k := kb.String()
		i, ok := setOf[k]
		if !ok {
			i = len(sets)
			setOf[k] = i
			sets = append(sets, nil)
		}
		sets[i] = append(sets[i], p)
	}
	var out [][]int64
	for _, set := range sets {
		buckets := make([][]int64, size)
		for _, p := range set {
			i := tupleIndex(l.coord[p], l.tiles, dims)
			buckets[i] = append(buckets[i], int64(p))
		}
		k := len(buckets[0])
		for _, b := range buckets {
			if len(b) != k || k == 0 {
				return nil, fmt.Errorf("layout %s has no regular groups along dimensions %v", l, dims)
			}
		}
		for j := 0; j < k; j++ {
			g := make([]int64, size)
			for i := range buckets {
				g[i] = buckets[i][j]
			}
			out = append(out, g)
		}
	}
	return out, nil
}
