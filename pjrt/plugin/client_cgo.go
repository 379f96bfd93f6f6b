//go:build cgo

package plugin

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gomlx/compute/dtypes"
	xpjrt "github.com/gomlx/go-xla/pjrt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// Client is a pjrt.Client over one PJRT plugin client.
type Client struct {
	path     string
	l        *loaded
	xc       *xpjrt.Client
	platform string
	devs     []*xpjrt.Device
	ids      []int // PJRT device id of each device index
	devices  []pjrt.Device

	mu     sync.RWMutex // write-held by Close; read-held by calls into the client
	closed bool

	exesMu sync.Mutex
	exes   map[*Executable]bool // live executables, destroyed before the client

	inUse, peak atomic.Int64 // bytes of live buffers this client created
}

var (
	_ pjrt.Client       = (*Client)(nil)
	_ pjrt.Capabilities = (*Client)(nil)
)

var errClosed = errors.New("pjrt/plugin: client is closed")

// Path is the plugin file.
func (c *Client) Path() string { return c.path }

// API is the plugin's PJRT C API version information.
func (c *Client) API() APIInfo { return c.l.lib.info }

// Attributes are the plugin's PJRT_Plugin_Attributes.
func (c *Client) Attributes() map[string]string { return c.l.attrs }

func (c *Client) Platform() string { return c.platform }

// PlatformVersion is the plugin's own description of its version (for
// CUDA, the CUDA and driver versions); API has the C API version.
func (c *Client) PlatformVersion() string { return c.xc.PlatformVersion() }

func (c *Client) Devices() []pjrt.Device { return c.devices }

// SupportsOp: XLA compiles the StableHLO, CHLO and func dialects (and the
// sharding dialects); the check and interpreter dialects of the conformance
// corpus exist only in reference interpreters.
func (c *Client) SupportsOp(name string) bool {
	for _, p := range []string{"stablehlo.", "chlo.", "func.", "sdy.", "mhlo."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// SupportsDType: element types PJRT buffers can hold.
func (c *Client) SupportsDType(dt hlo.DType) bool {
	_, err := bufferType(dt)
	return err == nil
}

// enter read-locks the client for a call; the caller must call c.mu.RUnlock.
func (c *Client) enter() error {
	c.mu.RLock()
	if c.closed {
		c.mu.RUnlock()
		return errClosed
	}
	return nil
}

func (c *Client) checkDevice(d int) error {
	if d < 0 || d >= len(c.devices) {
		return fmt.Errorf("pjrt/plugin: device %d out of range (%s has %d)", d, c.platform, len(c.devices))
	}
	return nil
}

// Close destroys the PJRT client; its buffers and executables become
// invalid. The plugin library stays loaded (plugins are never unloaded).
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	// PJRT objects must not outlive their client: destroy the executables
	// first (buffers are handled by go-xla, which skips them once the
	// client is gone).
	c.exesMu.Lock()
	for e := range c.exes {
		if e.closed.CompareAndSwap(false, true) {
			_ = protect("closing an executable", e.le.Destroy)
		}
	}
	c.exes = nil
	c.exesMu.Unlock()
	return protect("closing the client", c.xc.Destroy)
}

// MemoryInfo reports the plugin's allocator statistics; plugins without
// them (PJRT_Device_MemoryStats unimplemented) get the bytes held by this
// client's live buffers instead.
func (c *Client) MemoryInfo(device int) (pjrt.MemoryInfo, error) {
	if err := c.enter(); err != nil {
		return pjrt.MemoryInfo{}, err
	}
	defer c.mu.RUnlock()
	if err := c.checkDevice(device); err != nil {
		return pjrt.MemoryInfo{}, err
	}
	var s memStats
	err := protect("memory statistics", func() (e error) {
		s, e = c.l.lib.memoryStats(devicePointer(c.devs[device]))
		return e
	})
	if err != nil {
		return pjrt.MemoryInfo{BytesInUse: c.inUse.Load(), PeakBytes: c.peak.Load()}, nil
	}
	mi := pjrt.MemoryInfo{BytesInUse: s.inUse}
	if s.peakSet {
		mi.PeakBytes = s.peak
	}
	if s.limitSet {
		mi.BytesLimit = s.limit
	}
	return mi, nil
}

// Buffer is an array in a plugin device's memory.
type Buffer struct {
	c       *Client
	xb      *xpjrt.Buffer
	dt      hlo.DType // InvalidDType for a token
	dims    []int64
	dev     int
	bytes   int64
	deleted atomic.Bool
}

var _ pjrt.Buffer = (*Buffer)(nil)

func (c *Client) track(n int64) {
	v := c.inUse.Add(n)
	for {
		p := c.peak.Load()
		if v <= p || c.peak.CompareAndSwap(p, v) {
			return
		}
	}
}

func (c *Client) newBuffer(xb *xpjrt.Buffer, dt hlo.DType, dims []int64, dev int) *Buffer {
	n := hlo.NumElements(dims) * int64(max(dt.Size(), 0))
	c.track(n)
	return &Buffer{c: c, xb: xb, dt: dt, dims: dims, dev: dev, bytes: n}
}

// BufferFromHost copies lit to device memory. Sub-byte types travel one
// element per byte, the layout of hlo literals and of XLA's host literals.
func (c *Client) BufferFromHost(lit *hlo.Literal, device int) (pjrt.Buffer, error) {
	if err := c.enter(); err != nil {
		return nil, err
	}
	defer c.mu.RUnlock()
	if err := c.checkDevice(device); err != nil {
		return nil, err
	}
	if err := c.l.lib.require("transfer buffers", needTransfer); err != nil {
		return nil, err
	}
	bt, err := bufferType(lit.DType)
	if err != nil {
		return nil, fmt.Errorf("pjrt/plugin: BufferFromHost(%s): %w", lit.ShapeString(), err)
	}
	dims := make([]int, len(lit.Dims))
	for i, d := range lit.Dims {
		if d < 0 {
			return nil, fmt.Errorf("pjrt/plugin: BufferFromHost(%s): dynamic dimension", lit.ShapeString())
		}
		dims[i] = int(d)
	}
	need := lit.NumElements() * lit.DType.Size()
	if len(lit.Data) < need {
		return nil, fmt.Errorf("pjrt/plugin: BufferFromHost(%s): literal holds %d bytes, want %d", lit.ShapeString(), len(lit.Data), need)
	}
	data := lit.Data[:need]
	if need == 0 {
		// The transfer pins the first byte; give it one.
		data = make([]byte, 1)[:0]
	}
	var xb *xpjrt.Buffer
	err = protect("BufferFromHost", func() (e error) {
		xb, e = c.xc.BufferFromHost().FromRawData(data, dtypes.DType(bt), dims).ToDeviceNum(device).Done()
		return e
	})
	if err != nil {
		return nil, fmt.Errorf("pjrt/plugin: BufferFromHost(%s) to device %d: %w", lit.ShapeString(), device, err)
	}
	return c.newBuffer(xb, lit.DType, append([]int64(nil), lit.Dims...), device), nil
}

func (b *Buffer) DType() hlo.DType {
	if b.dt == hlo.InvalidDType {
		return hlo.Bool
	}
	return b.dt
}

func (b *Buffer) Dims() []int64 {
	if b.dt == hlo.InvalidDType {
		return []int64{0}
	}
	return b.dims
}

func (b *Buffer) Device() int { return b.dev }

var errDeleted = errors.New("pjrt/plugin: use of a deleted or donated buffer")

// ToHost copies the buffer into a new literal. A token becomes an empty i1
// array, as on the embedded device.
func (b *Buffer) ToHost() (*hlo.Literal, error) {
	if b.deleted.Load() {
		return nil, errDeleted
	}
	if err := b.c.enter(); err != nil {
		return nil, err
	}
	defer b.c.mu.RUnlock()
	if b.dt == hlo.InvalidDType {
		return hlo.NewLiteral(hlo.Bool, 0), nil
	}
	lit := hlo.NewLiteral(b.dt, b.dims...)
	n := lit.NumElements() * b.dt.Size()
	if n == 0 {
		return lit, nil
	}
	err := protect("ToHost", func() error {
		size, err := b.xb.Size()
		if err != nil {
			return err
		}
		switch {
		case size == n:
			return b.xb.ToHost(lit.Data[:n])
		case isSubByte(b.dt) && size == packedSize(b.dt, lit.NumElements()):
			tmp := make([]byte, size)
			if err := b.xb.ToHost(tmp); err != nil {
				return err
			}
			unpackInto(lit.Data[:n], tmp, b.dt)
			return nil
		}
		return fmt.Errorf("the plugin reports %d host bytes, want %d", size, n)
	})
	if err != nil {
		return nil, fmt.Errorf("pjrt/plugin: ToHost(%s) from device %d: %w", lit.ShapeString(), b.dev, err)
	}
	return lit, nil
}

// Delete frees the device memory.
func (b *Buffer) Delete() {
	if b.deleted.CompareAndSwap(false, true) {
		b.c.inUse.Add(-b.bytes)
		_ = protect("Delete", b.xb.Destroy)
	}
}

// wrapOutput wraps a buffer PJRT returned, reading its type from the plugin.
func (c *Client) wrapOutput(xb *xpjrt.Buffer, dev int) (*Buffer, error) {
	var dt hlo.DType
	var dims []int64
	err := protect("reading an output's shape", func() error {
		xdt, err := xb.DType()
		if err != nil {
			return err
		}
		d, ok := elementType(int32(xdt))
		if !ok {
			return fmt.Errorf("output has PJRT element type %v, unknown to hlo", xdt)
		}
		dt = d
		if d == hlo.InvalidDType {
			return nil
		}
		xd, err := xb.Dimensions()
		if err != nil {
			return err
		}
		dims = make([]int64, len(xd))
		for i, v := range xd {
			dims[i] = int64(v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c.newBuffer(xb, dt, dims, dev), nil
}
