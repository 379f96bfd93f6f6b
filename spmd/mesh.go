package spmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xlajit/xlajit/pjrt"
)

// Mesh is a logical arrangement of devices: the device ids reshaped
// row-major to Shape, one optional name per axis (PyTorch/XLA's Mesh).
type Mesh struct {
	ids   []int64
	shape []int64
	names []string
}

// NewMesh arranges deviceIDs as a mesh of the given shape (row-major), with
// optional axis names (none, or one per axis, distinct). The ids must be
// distinct, in [0, len(ids)): a mesh covers every device of the SPMD device.
func NewMesh(deviceIDs []int, shape []int, axisNames ...string) (*Mesh, error) {
	m := &Mesh{}
	n := int64(1)
	for _, s := range shape {
		if s < 1 {
			return nil, fmt.Errorf("spmd: mesh shape %v: every axis needs at least one device", shape)
		}
		// n <= len(deviceIDs) before each product; checked first, the
		// product cannot wrap (3 * 6148914691236517206 would be 2).
		if int64(s) > int64(len(deviceIDs))/n {
			return nil, fmt.Errorf("spmd: mesh shape %v holds more devices than the %d device ids given", shape, len(deviceIDs))
		}
		n *= int64(s)
		m.shape = append(m.shape, int64(s))
	}
	if n != int64(len(deviceIDs)) {
		return nil, fmt.Errorf("spmd: mesh shape %v holds %d devices, %d device ids given", shape, n, len(deviceIDs))
	}
	seen := make([]bool, len(deviceIDs))
	for _, id := range deviceIDs {
		if id < 0 || id >= len(deviceIDs) {
			return nil, fmt.Errorf("spmd: mesh device id %d out of range [0, %d)", id, len(deviceIDs))
		}
		if seen[id] {
			return nil, fmt.Errorf("spmd: mesh lists device %d twice", id)
		}
		seen[id] = true
		m.ids = append(m.ids, int64(id))
	}
	if len(axisNames) > 0 {
		if len(axisNames) != len(shape) {
			return nil, fmt.Errorf("spmd: %d axis names for a mesh of %d axes", len(axisNames), len(shape))
		}
		for i, a := range axisNames {
			if a == "" || slices.Contains(axisNames[:i], a) {
				return nil, fmt.Errorf("spmd: axis names %q must be distinct and non-empty", axisNames)
			}
		}
		m.names = slices.Clone(axisNames)
	}
	return m, nil
}

// MustMesh is NewMesh panicking on error.
func MustMesh(deviceIDs []int, shape []int, axisNames ...string) *Mesh {
	m, err := NewMesh(deviceIDs, shape, axisNames...)
	if err != nil {
		panic(err)
	}
	return m
}

// MaxMeshDevices bounds the device count Mesh1D accepts: more devices
// than any PJRT client has (the largest TPU slices have thousands), small
// enough that the id list it makes is a few MiB.
const MaxMeshDevices = 1 << 20

// Mesh1D is the one-axis mesh of devices 0..n-1 (get_1d_mesh), n at most
// MaxMeshDevices.
func Mesh1D(n int, axisName ...string) (*Mesh, error) {
	if n < 1 {
		return nil, fmt.Errorf("spmd: Mesh1D(%d): a mesh needs at least one device", n)
	}
	if n > MaxMeshDevices {
		return nil, fmt.Errorf("spmd: Mesh1D(%d): more than %d devices (MaxMeshDevices)", n, MaxMeshDevices)
	}
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	return NewMesh(ids, []int{n}, axisName...)
}

// Size is the number of devices.
func (m *Mesh) Size() int { return len(m.ids) }

// Shape returns the mesh shape (device counts, int as in NewMesh).
func (m *Mesh) Shape() []int { return toInts(m.shape) }

// AxisNames returns the axis names (nil when unnamed).
func (m *Mesh) AxisNames() []string { return slices.Clone(m.names) }

// DeviceIDs returns the ids in row-major mesh order.
func (m *Mesh) DeviceIDs() []int { return toInts(m.ids) }

func toInts(v []int64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

func (m *Mesh) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Mesh(shape=%v", m.shape)
	if m.names != nil {
		fmt.Fprintf(&b, ", axes=%q", m.names)
	}
	fmt.Fprintf(&b, ", devices=%v)", m.ids)
	return b.String()
}

// axis resolves one axis reference: an int index or a name.
func (m *Mesh) axis(a any) (int, error) {
	switch v := a.(type) {
	case int:
		if v < 0 || v >= len(m.shape) {
			return 0, fmt.Errorf("mesh axis %d out of range (the mesh has %d axes)", v, len(m.shape))
		}
		return v, nil
	case string:
		i := slices.Index(m.names, v)
		if i < 0 {
			return 0, fmt.Errorf("mesh has no axis %q (axes %q)", v, m.names)
		}
		return i, nil
	}
	return 0, fmt.Errorf("mesh axis %v (%T): want an axis index or name", a, a)
}

// entryAxes resolves one partition-spec entry: nil (replicated), an axis
// (int or name), or several axes ([]int, []string, []any) whose product
// cuts the dimension, the first axis major.
func (m *Mesh) entryAxes(e any) ([]int, error) {
	var refs []any
	switch v := e.(type) {
	case nil:
		return nil, nil
	case int, string:
		refs = []any{v}
	case []int:
		for _, x := range v {
			refs = append(refs, x)
		}
	case []string:
		for _, x := range v {
			refs = append(refs, x)
		}
	case []any:
		refs = v
	default:
		return nil, fmt.Errorf("partition spec entry %v (%T): want nil, an axis index or name, or a list of them", e, e)
	}
	var out []int
	for _, r := range refs {
		a, err := m.axis(r)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// Sharding returns the sharding of a tensor of the given rank laid out by
// spec (one entry per dimension) on m, as PyTorch/XLA computes it: the
// mesh transposed to the used axes in spec order, then the unused axes;
// unused axes replicate (the last tile dimension), and a spec with no
// axis, or a one-device mesh, is replicated.
func (m *Mesh) Sharding(rank int, spec ...any) (*pjrt.Sharding, error) {
	if len(spec) != rank {
		return nil, fmt.Errorf("spmd: partition spec %v has %d entries, the tensor has %d dimensions", spec, len(spec), rank)
	}
	perDim := make([][]int, rank)
	var used []int
	for d, e := range spec {
		axes, err := m.entryAxes(e)
		if err != nil {
			return nil, fmt.Errorf("spmd: partition spec %v: %w", spec, err)
		}
		for _, a := range axes {
			if slices.Contains(used, a) {
				return nil, fmt.Errorf("spmd: partition spec %v uses mesh axis %d twice", spec, a)
			}
			used = append(used, a)
		}
		perDim[d] = axes
	}
	if m.Size() == 1 || len(used) == 0 {
		return pjrt.Replicated(), nil
	}
	var unused []int
	for a := range m.shape {
		if !slices.Contains(used, a) {
			unused = append(unused, a)
		}
	}
	perm := append(slices.Clone(used), unused...)
	devices := transposeIDs(m.ids, m.shape, perm)
	tiles := make([]int64, rank)
	partial := len(unused) > 0
	for d, axes := range perDim {
		tiles[d] = 1
		for _, a := range axes {
			tiles[d] *= m.shape[a]
		}
		partial = partial || len(axes) == 0
	}
	if !partial {
		return pjrt.Tiled(tiles, devices)
	}
	group := int64(1)
	for _, a := range unused {
		group *= m.shape[a]
	}
	return pjrt.PartialTiled(append(tiles, group), devices)
}

// transposeIDs lists the ids of a row-major array of shape transposed by
// perm, in row-major order.
func transposeIDs(ids, shape []int64, perm []int) []int64 {
	strides := make([]int64, len(shape))
	s := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		strides[i] = s
		s *= shape[i]
	}
	out := make([]int64, 0, len(ids))
	idx := make([]int64, len(perm))
	for k := 0; k < len(ids); k++ {
		off := int64(0)
		for i, q := range perm {
			off += idx[i] * strides[q]
		}
		out = append(out, ids[off])
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < shape[perm[i]] {
				break
			}
			idx[i] = 0
		}
	}
	return out
}

// Type names a sharding's kind as PyTorch/XLA's ShardingType does:
// "REPLICATED", "TILED", "PARTIAL", "MAXIMAL", "MANUAL", "UNKNOWN".
func Type(s *pjrt.Sharding) string {
	switch {
	case s.IsReplicated():
		return "REPLICATED"
	case s.IsTiled() && s.LastTileDimReplicate:
		return "PARTIAL"
	case s.IsTiled():
		return "TILED"
	case s.Type == pjrt.ShardMaximal:
		return "MAXIMAL"
	case s.Type == pjrt.ShardManual:
		return "MANUAL"
	}
	return "UNKNOWN"
}
