package pjrt

import (
	"fmt"
	"slices"

	"github.com/xlajit/xlajit/hlo"
)

// ShardedBuffer is one tensor laid out over the devices of an SPMD
// program: Shards[d] is device d's buffer, its shard under Sharding (the
// whole tensor on every device when the sharding is replicated). It is a
// Buffer of the virtual device spanning them all (Device reports -1).
type ShardedBuffer struct {
	dt       hlo.DType
	dims     []int64
	sharding *Sharding
	shards   []Buffer
}

// NewShardedBuffer wraps per-device shards of a tensor of dtype dt and
// dims laid out by s; shards[d] must be on device d and have s's shard
// shape.
func NewShardedBuffer(dt hlo.DType, dims []int64, s *Sharding, shards []Buffer) (*ShardedBuffer, error) {
	if s == nil {
		s = Replicated()
	}
	if err := s.Validate(len(dims), len(shards)); err != nil {
		return nil, err
	}
	want := dims
	if s.IsTiled() {
		want = s.ShardShape(dims)
	}
	for d, b := range shards {
		if b == nil {
			return nil, fmt.Errorf("pjrt: sharded buffer %s: no shard on device %d", hlo.ShapeString(dt, dims), d)
		}
		if b.DType() != dt || !slices.Equal(b.Dims(), want) {
			return nil, fmt.Errorf("pjrt: sharded buffer %s under %s: shard on device %d is %s, want %s", hlo.ShapeString(dt, dims), s, d, hlo.ShapeString(b.DType(), b.Dims()), hlo.ShapeString(dt, want))
		}
	}
	return &ShardedBuffer{dt: dt, dims: slices.Clone(dims), sharding: s, shards: slices.Clone(shards)}, nil
}

// ShardToDevices uploads l to the first n devices of c laid out by s: each
// device receives only its (zero-padded) shard.
func ShardToDevices(c Client, l *hlo.Literal, s *Sharding, n int) (*ShardedBuffer, error) {
	if s == nil {
		s = Replicated()
	}
	if err := s.Validate(len(l.Dims), n); err != nil {
		return nil, err
	}
	shards := make([]Buffer, n)
	for d := range shards {
		piece := l
		if s.IsTiled() {
			piece = s.ShardLiteral(l, int64(d))
		}
		b, err := c.BufferFromHost(piece, d)
		if err != nil {
			for _, x := range shards[:d] {
				x.Delete()
			}
			return nil, err
		}
		shards[d] = b
	}
	return &ShardedBuffer{dt: l.DType, dims: slices.Clone(l.Dims), sharding: s, shards: shards}, nil
}

func (b *ShardedBuffer) DType() hlo.DType { return b.dt }

// Dims are the dims of the whole tensor.
func (b *ShardedBuffer) Dims() []int64 { return b.dims }

// Device is -1: the buffer spans devices.
func (b *ShardedBuffer) Device() int { return -1 }

// Sharding is the layout of the shards.
func (b *ShardedBuffer) Sharding() *Sharding { return b.sharding }

// Shards returns the per-device buffers (do not modify the slice).
func (b *ShardedBuffer) Shards() []Buffer { return b.shards }

// ToHost assembles the whole tensor from the shards.
func (b *ShardedBuffer) ToHost() (*hlo.Literal, error) {
	return b.sharding.AssembleLiteral(b.dt, b.dims, func(d int64) (*hlo.Literal, error) {
		return b.shards[d].ToHost()
	})
}

// Delete frees every shard.
func (b *ShardedBuffer) Delete() {
	for _, s := range b.shards {
		s.Delete()
	}
}

// ShardedExecutable is implemented by executables of SPMD programs
// (compiled with UseSPMDPartitioning): the layout the partitioner chose
// for each parameter and each result, as the per-device buffers of
// ExecuteReplicated hold them.
type ShardedExecutable interface {
	ParameterShardings() []*Sharding
	OutputShardings() []*Sharding
}

// PartitionReport is optionally implemented by executables of SPMD
// programs: what the partitioner did.
type PartitionReport interface {
	// Reshards lists the values the partitioner moved between layouts
	// with communication because an op could not run on the layout it
	// found (one entry per event: the op, the layouts, how).
	Reshards() []Reshard
	// Collectives counts the collective ops of the partitioned program by
	// name ("all_reduce", "all_gather", ...).
	Collectives() map[string]int
}

// Reshard is one layout change the partitioner inserted.
type Reshard struct {
	Op       string // the op that needed it ("stablehlo.gather")
	Loc      string // the op's location in the module, if known
	From, To string // sharding texts
	How      string // "all-gather", "all-to-all", ...
}

// String is "op: from -> to (how)".
func (r Reshard) String() string {
	return fmt.Sprintf("%s: %s -> %s (%s)", r.Op, r.From, r.To, r.How)
}
