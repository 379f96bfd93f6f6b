package spmd

import (
	"fmt"
	"slices"

	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt"
)

// UseSPMD makes the SPMD device of the default client the default device
// (PyTorch/XLA's use_spmd): tensors created afterwards live on all its
// devices, replicated unless marked. Call it before creating tensors.
func UseSPMD() (*lazy.Device, error) {
	c, err := pjrt.Default()
	if err != nil {
		return nil, err
	}
	d := lazy.SPMDDevice(c)
	lazy.SetDefaultDevice(d)
	return d, nil
}

// MarkSharding lays t out over mesh by spec, one entry per dimension: nil
// (whole), a mesh axis (index or name), or several axes ([]string, []int,
// []any) cutting the dimension by their product. A pending tensor is
// annotated (the partitioner makes that layout where it is computed); a
// computed one is moved into shards. See lazy.Tensor.MarkSharding.
func MarkSharding(t *lazy.Tensor, mesh *Mesh, spec ...any) error {
	s, err := shardingFor("MarkSharding", t, mesh, spec)
	if err != nil {
		return err
	}
	return t.MarkSharding(s)
}

// shardingFor is the sharding spec gives t on mesh; op names the caller
// in errors.
func shardingFor(op string, t *lazy.Tensor, mesh *Mesh, spec []any) (*pjrt.Sharding, error) {
	if t == nil || mesh == nil {
		return nil, fmt.Errorf("spmd: %s of a nil tensor or with a nil mesh", op)
	}
	if n := t.Device().NumShards(); t.Device().IsSPMD() && mesh.Size() != n {
		return nil, fmt.Errorf("spmd: mesh of %d devices on %s, which spans %d: a mesh covers every device", mesh.Size(), t.Device(), n)
	}
	return mesh.Sharding(t.Rank(), spec...)
}

// MustMark is MarkSharding panicking on error.
func MustMark(t *lazy.Tensor, mesh *Mesh, spec ...any) *lazy.Tensor {
	if err := MarkSharding(t, mesh, spec...); err != nil {
		panic(err)
	}
	return t
}

// ClearSharding drops t's annotation; no data moves.
func ClearSharding(t *lazy.Tensor) { t.ClearSharding() }

// ShardingText is the sharding of t as XLA's text ("" when t has none yet).
func ShardingText(t *lazy.Tensor) string { return t.Sharding().String() }

// FromLiteral uploads l to the SPMD device dev laid out over mesh by spec:
// each device receives only its shard.
func FromLiteral(dev *lazy.Device, l *lazy.Literal, mesh *Mesh, spec ...any) (*lazy.Tensor, error) {
	if dev == nil || l == nil || mesh == nil {
		return nil, fmt.Errorf("spmd: FromLiteral needs a device, a literal and a mesh")
	}
	if mesh.Size() != dev.NumShards() {
		return nil, fmt.Errorf("spmd: mesh of %d devices on %s, which spans %d", mesh.Size(), dev, dev.NumShards())
	}
	s, err := mesh.Sharding(len(l.Dims), spec...)
	if err != nil {
		return nil, err
	}
	return lazy.FromLiteralSharded(dev, l, s)
}

// FromShards makes a tensor of the SPMD device dev from per-device shards
// already cut by s (PyTorch/XLA's _global_tensor_from_cpu_shards): shards[d]
// goes to device d as it is, padding included. The tensor's dims are
// globalDims, or by default the tile counts times the shard dims; smaller
// dims are accepted when the difference fits in the last shards' padding.
func FromShards(dev *lazy.Device, shards []*lazy.Literal, s *pjrt.Sharding, globalDims ...int64) (*lazy.Tensor, error) {
	if dev == nil || s == nil || len(shards) == 0 || slices.Contains(shards, nil) {
		return nil, fmt.Errorf("spmd: FromShards needs a device, a sharding and non-nil shards")
	}
	n := dev.NumShards()
	if !dev.IsSPMD() || len(shards) != n {
		return nil, fmt.Errorf("spmd: %d shards for %s, which spans %d devices", len(shards), dev, n)
	}
	shape := shards[0].Dims
	tiles := s.TilesOf(len(shape))
	if globalDims == nil {
		for i, d := range shape {
			globalDims = append(globalDims, d*tiles[i])
		}
	}
	if len(globalDims) != len(shape) {
		return nil, fmt.Errorf("spmd: global shape %v for shards of rank %d", globalDims, len(shape))
	}
	for _, d := range globalDims {
		if d < 0 {
			return nil, fmt.Errorf("spmd: global shape %v has a negative dimension", globalDims)
		}
	}
	if err := s.Validate(len(shape), n); err != nil {
		return nil, err
	}
	want := s.ShardShape(globalDims)
	for i := range want {
		if want[i] != shape[i] {
			return nil, fmt.Errorf("spmd: global shape %v under %s has shards %v, the shards given are %v", globalDims, s, want, shape)
		}
	}
	// Every shard is checked before any is uploaded, and what was
	// uploaded is freed on failure: a failed call leaves the devices'
	// memory as it was.
	for d, l := range shards {
		if l.DType != shards[0].DType || !slicesEqual(l.Dims, shape) {
			return nil, fmt.Errorf("spmd: shard %d is %s, shard 0 %s", d, l.ShapeString(), shards[0].ShapeString())
		}
	}
	bufs := make([]pjrt.Buffer, 0, n)
	free := func() {
		for _, x := range bufs {
			x.Delete()
		}
	}
	for d, l := range shards {
		b, err := dev.Client().BufferFromHost(l, d)
		if err != nil {
			free()
			return nil, fmt.Errorf("spmd: shard %d: %w", d, err)
		}
		bufs = append(bufs, b)
	}
	sb, err := pjrt.NewShardedBuffer(shards[0].DType, globalDims, s, bufs)
	if err != nil {
		free()
		return nil, err
	}
	return lazy.FromBuffer(sb, dev), nil
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
