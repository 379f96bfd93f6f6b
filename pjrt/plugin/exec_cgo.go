//go:build cgo

package plugin

import (
	"fmt"
	"sync/atomic"

	xpjrt "github.com/gomlx/go-xla/pjrt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// Executable is a program compiled by the plugin.
type Executable struct {
	c        *Client
	le       *xpjrt.LoadedExecutable
	name     string
	topo     topology
	argTypes []hlo.Type
	nOut     int
	closed   atomic.Bool
}

var _ pjrt.Executable = (*Executable)(nil)

// Compile prints m as StableHLO text and compiles it with the plugin.
// Replicas, partitions and the device assignment follow torch_xla's
// Compile: a replicated program (num_replicas = N) is compiled with
// num_partitions = 1 and an N x 1 assignment, a partitioned one (SPMD,
// num_partitions = N) with num_replicas = 1, Shardy propagation and a 1 x N
// assignment; a one-device program is portable and runs on the device
// Execute names.
func (c *Client) Compile(m *hlo.Module, opts pjrt.CompileOptions) (pjrt.Executable, error) {
	if err := c.enter(); err != nil {
		return nil, err
	}
	defer c.mu.RUnlock()
	text, entry, err := moduleText(m)
	if err != nil {
		return nil, fmt.Errorf("pjrt/plugin: compile %s: %w", moduleName(m), err)
	}
	topo, err := resolveTopology(m, opts, len(c.devices))
	if err != nil {
		return nil, fmt.Errorf("pjrt/plugin: compile %s: %w", moduleName(m), err)
	}
	need := needCompile
	if topo.assign != nil {
		need = append(need[:len(need):len(need)], needCompileMulti...)
	}
	if err := c.l.lib.require("compile", need); err != nil {
		return nil, err
	}
	var le *xpjrt.LoadedExecutable
	err = protect("compile", func() (e error) {
		cc := c.xc.Compile().WithStableHLO([]byte(text))
		if bo := topo.buildOptions(); !bo.Portable {
			// go-xla takes the assignment replica-major, by device id.
			ids := make([]int, 0, len(topo.assign))
			for r := 0; r < bo.NumReplicas; r++ {
				for p := 0; p < bo.NumPartitions; p++ {
					ids = append(ids, c.ids[bo.DeviceAssignment[p][r]])
				}
			}
			if bo.UseShardyPartitioner {
				cc = cc.WithShardy(bo.NumPartitions)
			} else {
				cc = cc.WithSPMD(bo.NumReplicas)
			}
			cc = cc.WithDeviceAssignment(ids)
		}
		le, e = cc.Done()
		return e
	})
	if err != nil {
		return nil, fmt.Errorf("pjrt/plugin: %s failed to compile %s (%s): %w", c.platform, moduleName(m), entry.Loc, err)
	}
	e := &Executable{c: c, le: le, name: moduleName(m), topo: topo, argTypes: entry.ArgTypes(), nOut: le.NumOutputs}
	c.exesMu.Lock()
	if c.exes == nil {
		c.exes = map[*Executable]bool{}
	}
	c.exes[e] = true
	c.exesMu.Unlock()
	return e, nil
}

func moduleName(m *hlo.Module) string {
	if m == nil || m.Name == "" {
		return "module"
	}
	return "module @" + m.Name
}

func (e *Executable) NumOutputs() int { return e.nOut }

// Close releases the executable (a no-op once its client is closed, which
// released it already).
func (e *Executable) Close() error {
	if err := e.c.enter(); err != nil {
		return nil
	}
	defer e.c.mu.RUnlock()
	if !e.closed.CompareAndSwap(false, true) {
		return nil
	}
	e.c.exesMu.Lock()
	delete(e.c.exes, e)
	e.c.exesMu.Unlock()
	return protect("closing an executable", e.le.Destroy)
}

// unwrap checks the arguments of one device against the entry signature.
func (e *Executable) unwrap(args []pjrt.Buffer, device int, where string) ([]*xpjrt.Buffer, error) {
	if len(args) != len(e.argTypes) {
		return nil, fmt.Errorf("pjrt/plugin: %s%s takes %d arguments, got %d", e.name, where, len(e.argTypes), len(args))
	}
	out := make([]*xpjrt.Buffer, len(args))
	for i, a := range args {
		b, ok := a.(*Buffer)
		if !ok || b == nil {
			return nil, fmt.Errorf("pjrt/plugin: %s%s: argument %d is a %T, not a buffer of this plugin", e.name, where, i, a)
		}
		if b.c != e.c {
			return nil, fmt.Errorf("pjrt/plugin: %s%s: argument %d belongs to another client", e.name, where, i)
		}
		if b.deleted.Load() {
			return nil, fmt.Errorf("pjrt/plugin: %s%s: argument %d: %w", e.name, where, i, errDeleted)
		}
		if b.dev != device {
			return nil, fmt.Errorf("pjrt/plugin: %s%s: argument %d is on device %d, the program runs on device %d", e.name, where, i, b.dev, device)
		}
		if tt, ok := e.argTypes[i].(*hlo.TensorType); ok && !matches(tt, b) {
			return nil, fmt.Errorf("pjrt/plugin: %s%s: argument %d is %s, the entry function wants %s", e.name, where, i, hlo.ShapeString(b.DType(), b.Dims()), tt)
		}
		out[i] = b.xb
	}
	return out, nil
}

func matches(t *hlo.TensorType, b *Buffer) bool {
	if t.DType != b.dt || len(t.Dims) != len(b.dims) {
		return false
	}
	for i, d := range t.Dims {
		if d != hlo.DynamicDim && d != b.dims[i] {
			return false
		}
	}
	return true
}

func (e *Executable) checkDonate(donate []int) error {
	seen := map[int]bool{}
	for _, i := range donate {
		if i < 0 || i >= len(e.argTypes) {
			return fmt.Errorf("pjrt/plugin: %s: donated argument %d out of range (%d arguments)", e.name, i, len(e.argTypes))
		}
		if seen[i] {
			return fmt.Errorf("pjrt/plugin: %s: argument %d donated twice", e.name, i)
		}
		seen[i] = true
	}
	return nil
}

// Execute runs a one-device program.
func (e *Executable) Execute(args []pjrt.Buffer, opts pjrt.ExecuteOptions) ([]pjrt.Buffer, error) {
	if e.topo.n() != 1 {
		return nil, fmt.Errorf("pjrt/plugin: %s is compiled for %d devices (replicas %d x partitions %d): use ExecuteReplicated", e.name, e.topo.n(), e.topo.replicas, e.topo.partitions)
	}
	res, err := e.ExecuteReplicated([][]pjrt.Buffer{args}, opts)
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// ExecuteReplicated runs the program on every device of its assignment;
// args[i] and the results [i] belong to replica*partitions+partition i.
// Donated arguments (the same indices on every device) are invalid
// afterwards.
func (e *Executable) ExecuteReplicated(args [][]pjrt.Buffer, opts pjrt.ExecuteOptions) ([][]pjrt.Buffer, error) {
	if e.closed.Load() {
		return nil, fmt.Errorf("pjrt/plugin: %s: executable is closed", e.name)
	}
	c := e.c
	if err := c.enter(); err != nil {
		return nil, err
	}
	defer c.mu.RUnlock()
	n := e.topo.n()
	if len(args) != n {
		return nil, fmt.Errorf("pjrt/plugin: %s needs %d argument lists (replicas %d x partitions %d), got %d", e.name, n, e.topo.replicas, e.topo.partitions, len(args))
	}
	if err := e.checkDonate(opts.Donate); err != nil {
		return nil, err
	}
	if err := c.l.lib.require("execute", needExecute); err != nil {
		return nil, err
	}
	devices := e.topo.assign
	if devices == nil {
		if err := c.checkDevice(opts.Device); err != nil {
			return nil, err
		}
		devices = []int{opts.Device}
	}
	flat := make([]*xpjrt.Buffer, 0, n*len(e.argTypes))
	donate := make([]bool, 0, cap(flat))
	for i, a := range args {
		where := ""
		if n > 1 {
			where = fmt.Sprintf(" (device list %d)", i)
		}
		xs, err := e.unwrap(a, devices[i], where)
		if err != nil {
			return nil, err
		}
		flat = append(flat, xs...)
		for j := range xs {
			donate = append(donate, contains(opts.Donate, j))
		}
	}
	var outs []*xpjrt.Buffer
	err := protect("execute", func() (err error) {
		cfg := e.le.Execute(flat...)
		if e.topo.assign == nil {
			cfg = cfg.OnDeviceByNum(devices[0])
		}
		// go-xla hands PJRT the indices *not* donated; with several devices
		// its flat list also covers the other devices' positions, which PJRT
		// ignores, and it destroys exactly the donated flat inputs.
		outs, err = cfg.SetDonate(donate).Done()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("pjrt/plugin: %s: execute on %s: %w", e.name, c.platform, err)
	}
	for _, a := range args {
		for _, j := range opts.Donate {
			a[j].Delete() // go-xla destroyed it; this updates our accounting
		}
	}
	if len(outs) != n*e.nOut {
		return nil, fmt.Errorf("pjrt/plugin: %s: the plugin returned %d buffers, want %d", e.name, len(outs), n*e.nOut)
	}
	res := make([][]pjrt.Buffer, n)
	for i := range res {
		res[i] = make([]pjrt.Buffer, e.nOut)
		for k := range e.nOut {
			b, err := c.wrapOutput(outs[i*e.nOut+k], devices[i])
			if err != nil {
				return nil, fmt.Errorf("pjrt/plugin: %s: output %d: %w", e.name, k, err)
			}
			res[i][k] = b
		}
	}
	return res, nil
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
