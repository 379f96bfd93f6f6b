package spmd

import (
	"fmt"

	"github.com/xlajit/xlajit/lazy"
)

// EnableManualSharding lays t out over mesh by spec and returns each
// device's shard as a manual tensor (PyTorch/XLA's enable_manual_sharding):
// its shape is the shard shape, and ops on it run as written on every
// device, on that device's own piece. Leave with DisableManualSharding;
// only intermediates may be manual.
func EnableManualSharding(t *lazy.Tensor, mesh *Mesh, spec ...any) (*lazy.Tensor, error) {
	s, err := shardingFor("EnableManualSharding", t, mesh, spec)
	if err != nil {
		return nil, err
	}
	return t.EnableManualSharding(s)
}

// DisableManualSharding puts the per-device pieces of the manual tensor t
// back together as a tensor of fullDims laid out over mesh by spec.
func DisableManualSharding(t *lazy.Tensor, mesh *Mesh, fullDims []int64, spec ...any) (*lazy.Tensor, error) {
	if t == nil || mesh == nil {
		return nil, fmt.Errorf("spmd: DisableManualSharding of a nil tensor or with a nil mesh")
	}
	if mesh.Size() != t.Device().NumShards() {
		return nil, fmt.Errorf("spmd: mesh of %d devices on %s, which spans %d", mesh.Size(), t.Device(), t.Device().NumShards())
	}
	s, err := mesh.Sharding(len(fullDims), spec...)
	if err != nil {
		return nil, err
	}
	return t.DisableManualSharding(s, fullDims)
}
