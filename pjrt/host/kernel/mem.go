package kernel

import (
	"sync/atomic"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// Mem accounts the bytes of the tensors a device holds (buffers, and the
// intermediates of running programs) against a limit. A device's Mem has
// its client's as parent: a reservation is charged to both and refused
// when either would pass its limit, so the limit bounds the client's
// devices together while each device keeps its own counts. A nil *Mem
// accounts nothing and never refuses.
type Mem struct {
	limit   int64 // 0: none
	parent  *Mem
	device  int
	setting string // how the limit is set, for messages
	inUse   atomic.Int64
	peak    atomic.Int64
}

// NewMem returns an account with a limit (0: none), charged also to parent
// (may be nil). device and setting name the device and how to change the
// limit in out-of-memory errors.
func NewMem(limit int64, parent *Mem, device int, setting string) *Mem {
	return &Mem{limit: limit, parent: parent, device: device, setting: setting}
}

// Limit is the smallest limit of m and its parents (0: none).
func (m *Mem) Limit() int64 {
	l := int64(0)
	for ; m != nil; m = m.parent {
		if m.limit > 0 && (l == 0 || m.limit < l) {
			l = m.limit
		}
	}
	return l
}

// InUse is the number of bytes accounted now.
func (m *Mem) InUse() int64 {
	if m == nil {
		return 0
	}
	return m.inUse.Load()
}

// Peak is the most bytes accounted at once since m was made or ResetPeak.
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

// Reserve accounts n more bytes and reports true, or reports false and
// accounts nothing when that would pass the limit of m or of a parent.
func (m *Mem) Reserve(n int64) bool {
	if m == nil || n == 0 {
		return true
	}
	for a := m; a != nil; a = a.parent {
		if a.limit > 0 && n > a.limit {
			// Beyond the limit whatever is in use (and too large to add).
			for b := m; b != a; b = b.parent {
				b.inUse.Add(-n)
			}
			return false
		}
		v := a.inUse.Add(n)
		if a.limit > 0 && v > a.limit && n > 0 {
			// Undo this account and those below it.
			for b := m; ; b = b.parent {
				b.inUse.Add(-n)
				if b == a {
					break
				}
			}
			return false
		}
		a.notePeak(v)
	}
	return true
}

// Add accounts n bytes (negative: releases them) without checking the
// limit: for storage that exists already.
func (m *Mem) Add(n int64) {
	if n == 0 {
		return
	}
	for a := m; a != nil; a = a.parent {
		a.notePeak(a.inUse.Add(n))
	}
}

// Release gives back n bytes.
func (m *Mem) Release(n int64) { m.Add(-n) }

// Fits reports whether n more bytes would be within every limit now.
func (m *Mem) Fits(n int64) bool {
	for a := m; a != nil; a = a.parent {
		if a.limit > 0 && n > a.limit-a.inUse.Load() {
			return false
		}
	}
	return true
}

func (m *Mem) notePeak(v int64) {
	for {
		p := m.peak.Load()
		if v <= p || m.peak.CompareAndSwap(p, v) {
			return
		}
	}
}

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
		e.Limit = m.Limit()
		e.InUse = m.inUse.Load()
		// Report the account whose limit refused, for its counts.
		for a := m; a != nil; a = a.parent {
			if a.limit > 0 && n > a.limit-a.inUse.Load() {
				e.InUse, e.Limit = a.inUse.Load(), a.limit
				break
			}
		}
		for a := m; a != nil; a = a.parent {
			if a.setting != "" {
				e.Setting = a.setting
			}
		}
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
