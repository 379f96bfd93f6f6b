package kernel

import (
	"sync/atomic"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// Mem accounts the bytes of the tensors one device holds (buffers, and
// the intermediates of running programs) against a limit shared by the
// devices of its group (a client's virtual devices share the machine): a
// reservation is refused when the group's bytes in use would pass the
// limit. Each device keeps its own count and peak. A nil *Mem accounts
// nothing and never refuses.
type Mem struct {
	group  *memGroup
	device int
	inUse  atomic.Int64
	peak   atomic.Int64
}

// memGroup is the devices sharing a limit.
type memGroup struct {
	limit   int64 // 0: none
	setting string
	devices []*Mem
}

// NewMem returns the account of a device with a limit of its own (0:
// none). setting says how to change the limit, for out-of-memory errors.
func NewMem(limit int64, device int, setting string) *Mem {
	return NewMems(1, limit, setting)[0]
}

// NewMems returns the accounts of n devices sharing one limit.
func NewMems(n int, limit int64, setting string) []*Mem {
	g := &memGroup{limit: limit, setting: setting}
	for i := 0; i < n; i++ {
		g.devices = append(g.devices, &Mem{group: g, device: i})
	}
	return g.devices
}

// Limit is the limit of m's group (0: none).
func (m *Mem) Limit() int64 {
	if m == nil {
		return 0
	}
	return m.group.limit
}

// InUse is the number of bytes the device holds now.
func (m *Mem) InUse() int64 {
	if m == nil {
		return 0
	}
	return m.inUse.Load()
}

// GroupInUse is the number of bytes the devices of m's group hold now.
func (m *Mem) GroupInUse() int64 {
	if m == nil {
		return 0
	}
	n := int64(0)
	for _, d := range m.group.devices {
		n += d.inUse.Load()
	}
	return n
}

// Peak is the most bytes the device held at once since m was made or
// ResetPeak.
func (m *Mem) Peak() int64 {
	if m == nil {
		return 0
	}
	return m.peak.Load()
}

// ResetPeak makes the peak the bytes in use now.
func (m *Mem) ResetPeak() {
	if m != nil {
		m.peak.Store(m.inUse.Load())
	}
}

// Fits reports whether n more bytes would be within the limit now.
func (m *Mem) Fits(n int64) bool {
	if m == nil || m.group.limit == 0 {
		return true
	}
	return n <= m.group.limit-m.GroupInUse()
}

// Reserve accounts n more bytes and reports true, or reports false and
// accounts nothing when that would pass the limit. (Devices reserving at
// the same moment may pass it together by what they reserve.)
func (m *Mem) Reserve(n int64) bool {
	if m == nil {
		return true
	}
	if !m.Fits(n) {
		return false
	}
	m.Add(n)
	return true
}

// Add accounts n bytes (negative: releases them) without checking the
// limit: for storage that exists already.
func (m *Mem) Add(n int64) {
	if m == nil || n == 0 {
		return
	}
	v := m.inUse.Add(n)
	for {
		p := m.peak.Load()
		if v <= p || m.peak.CompareAndSwap(p, v) {
			return
		}
	}
}

// Release gives back n bytes.
func (m *Mem) Release(n int64) { m.Add(-n) }

// OutOfMemory returns the error of an allocation of n bytes for what
// (shape text) that m refused, asked by op (may be nil: then name says who
// asked, "BufferFromHost").
func (m *Mem) OutOfMemory(op *hlo.Op, name, what string, n int64) error {
	e := &pjrt.OutOfMemoryError{Op: name, Shape: what, Bytes: n}
	if op != nil {
		e.Op = op.Name
		if op.Loc.Line > 0 || op.Loc.File != "" {
			e.Loc = op.Loc.String()
		}
	}
	if m != nil {
		e.Device = m.device
		e.Limit = m.group.limit
		e.InUse = m.GroupInUse()
		e.Setting = m.group.setting
	}
	return e
}

// CheckAlloc returns nil when a dt tensor of dims fits the size limits of
// int64 and of x's memory account now, else an error naming op (for kernels
// whose result shapes come from operand values, before they allocate).
func (x *Ctx) CheckAlloc(op *hlo.Op, dt hlo.DType, dims []int64) error {
	return checkAlloc(x.mem(), op, dt, dims)
}

// CheckAlloc is Ctx.CheckAlloc at compile time, for kernels that build
// tables or constants of a size the op's types or attributes give.
func (c *OpCtx) CheckAlloc(dt hlo.DType, dims []int64) error {
	return checkAlloc(c.Mem, c.Op, dt, dims)
}

func checkAlloc(m *Mem, op *hlo.Op, dt hlo.DType, dims []int64) error {
	if err := hlo.CheckSize(dt, dims); err != nil {
		return &OpError{Op: op.Name, Loc: op.Loc, Msg: err.Error()}
	}
	n, _ := hlo.ByteSize(dt, dims)
	if !m.Fits(n) {
		return m.OutOfMemory(op, "", hlo.ShapeString(dt, dims), n)
	}
	return nil
}

func (x *Ctx) mem() *Mem {
	if x == nil {
		return nil
	}
	return x.Mem
}

// DenseLiteral returns the elements of a dense attribute of the op, a
// compact splat expanded after checking that it fits (CheckAlloc).
func (c *OpCtx) DenseLiteral(a *hlo.DenseElementsAttr) (*hlo.Literal, error) {
	if a.Splat != nil && a.Type != nil {
		if err := c.CheckAlloc(a.Splat.DType, a.Type.Dims); err != nil {
			return nil, err
		}
	}
	l, err := a.Literal()
	if err != nil {
		return nil, c.Errorf("%v", err)
	}
	return l, nil
}
