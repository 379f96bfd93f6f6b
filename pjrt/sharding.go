package pjrt

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
)

// ShardingType is the kind of a Sharding, as XLA's OpSharding.Type.
type ShardingType int

const (
	// ShardReplicated: every device holds the whole tensor.
	ShardReplicated ShardingType = iota
	// ShardMaximal: one device holds the whole tensor.
	ShardMaximal
	// ShardTuple: one sharding per element of a tuple.
	ShardTuple
	// ShardTiled: the tensor is cut into tiles, one per device, possibly
	// replicated over groups of devices (LastTileDimReplicate).
	ShardTiled
	// ShardManual: each device holds its own piece, managed by the program.
	ShardManual
	// ShardUnknown: not yet decided (the partitioner may choose).
	ShardUnknown
)

// Sharding is how a tensor is laid out over the devices of an SPMD program:
// XLA's HloSharding, printed and parsed in its text form
// ("{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}").
//
// A tiled sharding cuts dimension d of the tensor into Tile[d] parts of
// ceil(D/Tile[d]) elements (the last parts may hold padding); Devices lists
// the device of each tile in row-major order over Tile. With
// LastTileDimReplicate, Tile has one more entry than the tensor has
// dimensions: the devices along it hold the same tile (a replica group).
type Sharding struct {
	Type                 ShardingType
	Tile                 []int64 // ShardTiled: tile assignment dims
	Devices              []int64 // ShardTiled: device ids, row-major over Tile
	LastTileDimReplicate bool
	Device               int64       // ShardMaximal: the device
	Elems                []*Sharding // ShardTuple

	text atomic.Pointer[string] // String's result, once computed
}

// Replicated returns the sharding that puts the whole tensor on every
// device.
func Replicated() *Sharding { return &Sharding{Type: ShardReplicated} }

// Maximal returns the sharding that puts the whole tensor on one device.
func Maximal(device int64) *Sharding { return &Sharding{Type: ShardMaximal, Device: device} }

// Manual returns the sharding of a value each device manages itself.
func Manual() *Sharding { return &Sharding{Type: ShardManual} }

// Tiled returns the sharding that cuts a tensor of len(tile) dimensions
// into tiles placed on devices (row-major over tile). A tile of one
// device is the replicated sharding, as in XLA.
func Tiled(tile, devices []int64) (*Sharding, error) {
	if err := checkTile(tile, devices); err != nil {
		return nil, err
	}
	if len(devices) == 1 {
		return Replicated(), nil
	}
	return &Sharding{Type: ShardTiled, Tile: slices.Clone(tile), Devices: slices.Clone(devices)}, nil
}

// PartialTiled returns a sharding whose last tile dimension is a replica
// group: tile has one entry per tensor dimension plus the group size. As
// XLA's HloSharding::PartialTile, the ids inside each group are sorted, a
// group of one device gives a plain tiled sharding, and a single tile the
// replicated one.
func PartialTiled(tile, devices []int64) (*Sharding, error) {
	if err := checkTile(tile, devices); err != nil {
		return nil, err
	}
	if len(tile) == 0 {
		return nil, fmt.Errorf("pjrt: partially replicated sharding needs a replication dimension")
	}
	group := tile[len(tile)-1]
	data := tile[:len(tile)-1]
	if group == 1 {
		return Tiled(data, devices)
	}
	if product(data) == 1 {
		return Replicated(), nil
	}
	ds := slices.Clone(devices)
	for i := 0; i < len(ds); i += int(group) {
		slices.Sort(ds[i : i+int(group)])
	}
	return &Sharding{Type: ShardTiled, Tile: slices.Clone(tile), Devices: ds, LastTileDimReplicate: true}, nil
}

func checkTile(tile, devices []int64) error {
	for _, t := range tile {
		if t < 1 {
			return fmt.Errorf("pjrt: tile assignment dims %v: every dimension must be at least 1", tile)
		}
	}
	if n := product(tile); n < 0 {
		return fmt.Errorf("pjrt: tile assignment dims %v hold more than 2^63-1 devices, %d given", tile, len(devices))
	} else if n != int64(len(devices)) {
		return fmt.Errorf("pjrt: tile assignment dims %v hold %d devices, %d given", tile, n, len(devices))
	}
	seen := map[int64]bool{}
	for _, d := range devices {
		if d < 0 {
			return fmt.Errorf("pjrt: tile assignment lists negative device id %d", d)
		}
		if seen[d] {
			return fmt.Errorf("pjrt: tile assignment lists device %d twice", d)
		}
		seen[d] = true
	}
	return nil
}

// product is the product of xs, or -1 when an x is negative or the
// product overflows int64: wrapped, [3, 6148914691236517206] would hold 2
// devices.
func product(xs []int64) int64 {
	p := int64(1)
	for _, x := range xs {
		if x < 0 {
			return -1
		}
		hi, lo := bits.Mul64(uint64(p), uint64(x))
		if hi != 0 || lo > math.MaxInt64 {
			return -1
		}
		p = int64(lo)
	}
	return p
}

// IsReplicated reports whether every device holds the whole tensor (a nil
// sharding counts as replicated).
func (s *Sharding) IsReplicated() bool { return s == nil || s.Type == ShardReplicated }

// IsTiled reports whether the tensor is cut into tiles.
func (s *Sharding) IsTiled() bool { return s != nil && s.Type == ShardTiled }

// Equal reports whether s and o are the same sharding (nil is replicated).
func (s *Sharding) Equal(o *Sharding) bool {
	if s.IsReplicated() || o.IsReplicated() {
		return s.IsReplicated() && o.IsReplicated()
	}
	return s.String() == o.String()
}

// DataRank is the number of tensor dimensions a tiled sharding cuts.
func (s *Sharding) DataRank() int {
	if s.LastTileDimReplicate {
		return len(s.Tile) - 1
	}
	return len(s.Tile)
}

// TilesOf returns the number of tiles along each of rank tensor
// dimensions (all 1 for a sharding that is not tiled).
func (s *Sharding) TilesOf(rank int) []int64 {
	t := make([]int64, rank)
	for i := range t {
		t[i] = 1
	}
	if s.IsTiled() {
		copy(t, s.Tile[:s.DataRank()])
	}
	return t
}

// ReplicaGroupSize is the number of devices holding each tile (1 for a
// plain tiled sharding).
func (s *Sharding) ReplicaGroupSize() int64 {
	if s.IsTiled() && s.LastTileDimReplicate {
		return s.Tile[len(s.Tile)-1]
	}
	return 1
}

// Validate checks that s can shard a tensor of the given rank over ndev
// devices (ids 0..ndev-1, each used exactly once by a tiled sharding).
func (s *Sharding) Validate(rank, ndev int) error {
	if s == nil {
		return nil
	}
	switch s.Type {
	case ShardReplicated, ShardManual, ShardUnknown:
		return nil
	case ShardMaximal:
		if s.Device < 0 || s.Device >= int64(ndev) {
			return fmt.Errorf("pjrt: sharding %s: device %d out of range (have %d devices)", s, s.Device, ndev)
		}
		return nil
	case ShardTuple:
		return fmt.Errorf("pjrt: tuple sharding %s for a tensor", s)
	}
	if err := checkTile(s.Tile, s.Devices); err != nil {
		return fmt.Errorf("pjrt: sharding %s: %w", s, err)
	}
	if s.DataRank() != rank {
		return fmt.Errorf("pjrt: sharding %s tiles %d dimensions, the tensor has %d", s, s.DataRank(), rank)
	}
	if len(s.Devices) != ndev {
		return fmt.Errorf("pjrt: sharding %s uses %d devices, the mesh has %d", s, len(s.Devices), ndev)
	}
	for _, d := range s.Devices {
		if d >= int64(ndev) {
			return fmt.Errorf("pjrt: sharding %s: device %d out of range (have %d devices)", s, d, ndev)
		}
	}
	return nil
}

// Coord returns the tile coordinate (one entry per Tile dimension,
// including the replication dimension) of device, or nil when the sharding
// does not place a tile on it.
func (s *Sharding) Coord(device int64) []int64 {
	i := slices.Index(s.Devices, device)
	if i < 0 {
		return nil
	}
	c := make([]int64, len(s.Tile))
	for d := len(s.Tile) - 1; d >= 0; d-- {
		c[d] = int64(i) % s.Tile[d]
		i /= int(s.Tile[d])
	}
	return c
}

// DeviceAt returns the device of a tile coordinate.
func (s *Sharding) DeviceAt(coord []int64) int64 {
	i := int64(0)
	for d, c := range coord {
		i = i*s.Tile[d] + c
	}
	return s.Devices[i]
}

// ShardShape returns the (padded) shape of one shard of a tensor of dims:
// ceil(D/tiles) along each dimension.
func (s *Sharding) ShardShape(dims []int64) []int64 {
	t := s.TilesOf(len(dims))
	out := make([]int64, len(dims))
	for i, d := range dims {
		out[i] = ceilDiv(d, t[i])
	}
	return out
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// ShardRanges returns the index ranges [start, end) of a tensor of dims that
// device holds, without padding (end == start for a shard of padding only).
// A replicated sharding gives the whole tensor to every device.
func (s *Sharding) ShardRanges(dims []int64, device int64) [][2]int64 {
	out := make([][2]int64, len(dims))
	if !s.IsTiled() {
		for i, d := range dims {
			out[i] = [2]int64{0, d}
		}
		return out
	}
	c := s.Coord(device)
	shard := s.ShardShape(dims)
	for i, d := range dims {
		lo := min(c[i]*shard[i], d)
		hi := min((c[i]+1)*shard[i], d)
		out[i] = [2]int64{lo, hi}
	}
	return out
}

// ReplicaID is device's index in the group of devices holding its tile: its
// coordinate on the replication dimension of a partially replicated
// sharding, 0 for a tiled one, the device itself for a replicated one.
func (s *Sharding) ReplicaID(device int64) int64 {
	switch {
	case s.IsReplicated():
		return device
	case s.IsTiled() && s.LastTileDimReplicate:
		c := s.Coord(device)
		return c[len(c)-1]
	}
	return 0
}
