package pjrt

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
)

// ShardLiteral returns device's shard of l: the tile the sharding gives
// it, right-padded with zeros to the shard shape (the whole of l, copied,
// for a replicated sharding).
func (s *Sharding) ShardLiteral(l *hlo.Literal, device int64) *hlo.Literal {
	if !s.IsTiled() {
		return l.Clone()
	}
	shape := s.ShardShape(l.Dims)
	out := hlo.NewLiteral(l.DType, shape...)
	r := s.ShardRanges(l.Dims, device)
	lo := make([]int64, len(r))
	ext := make([]int64, len(r))
	for i, x := range r {
		lo[i], ext[i] = x[0], x[1]-x[0]
	}
	CopyBlock(out, make([]int64, len(r)), l, lo, ext)
	return out
}

// AssembleLiteral builds the whole tensor of dtype dt and dims from its
// shards: shard(device) returns device's (padded) shard. One device per
// tile is read.
func (s *Sharding) AssembleLiteral(dt hlo.DType, dims []int64, shard func(device int64) (*hlo.Literal, error)) (*hlo.Literal, error) {
	if !s.IsTiled() {
		dev := int64(0)
		if s != nil && s.Type == ShardMaximal {
			dev = s.Device
		}
		l, err := shard(dev)
		if err != nil {
			return nil, err
		}
		if l.DType != dt || !equalDims(l.Dims, dims) {
			return nil, fmt.Errorf("pjrt: replicated shard is %s, want %s", l.ShapeString(), hlo.ShapeString(dt, dims))
		}
		return l, nil
	}
	out := hlo.NewLiteral(dt, dims...)
	want := s.ShardShape(dims)
	group := s.ReplicaGroupSize()
	for i := 0; i < len(s.Devices); i += int(group) {
		dev := s.Devices[i]
		l, err := shard(dev)
		if err != nil {
			return nil, err
		}
		if l.DType != dt || !equalDims(l.Dims, want) {
			return nil, fmt.Errorf("pjrt: shard of device %d is %s, sharding %s of %s wants %s", dev, l.ShapeString(), s, hlo.ShapeString(dt, dims), hlo.ShapeString(dt, want))
		}
		r := s.ShardRanges(dims, dev)
		lo := make([]int64, len(r))
		ext := make([]int64, len(r))
		for k, x := range r {
			lo[k], ext[k] = x[0], x[1]-x[0]
		}
		CopyBlock(out, lo, l, make([]int64, len(r)), ext)
	}
	return out, nil
}

func equalDims(a, b []int64) bool {
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

// CopyBlock copies the block of extent ext starting at srcOff in src to
// dstOff in dst (same element type and rank).
func CopyBlock(dst *hlo.Literal, dstOff []int64, src *hlo.Literal, srcOff []int64, ext []int64) {
	for _, e := range ext {
		if e <= 0 {
			return
		}
	}
	es := int64(src.DType.Size())
	rank := len(ext)
	if rank == 0 {
		copy(dst.Data, src.Data[:es])
		return
	}
	dstStr := strides(dst.Dims)
	srcStr := strides(src.Dims)
	inner := ext[rank-1] * es
	idx := make([]int64, rank-1)
	for {
		d, s := dstOff[rank-1], srcOff[rank-1]
		for k := range idx {
			d += (dstOff[k] + idx[k]) * dstStr[k]
			s += (srcOff[k] + idx[k]) * srcStr[k]
		}
		copy(dst.Data[d*es:d*es+inner], src.Data[s*es:s*es+inner])
		k := len(idx) - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < ext[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

func strides(dims []int64) []int64 {
	st := make([]int64, len(dims))
	s := int64(1)
	for i := len(dims) - 1; i >= 0; i-- {
		st[i] = s
		s *= dims[i]
	}
	return st
}

// SubLiteral copies the block of extent ext starting at lo out of l.
func SubLiteral(l *hlo.Literal, lo, ext []int64) *hlo.Literal {
	out := hlo.NewLiteral(l.DType, ext...)
	CopyBlock(out, make([]int64, len(ext)), l, lo, ext)
	return out
}
