package host

import (
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Version is the embedded executor's version string.
const Version = "xlajit-host 0.1"

func init() {
	pjrt.Register("CPU", func(string) (pjrt.Client, error) {
		n := 1
		if s := os.Getenv("XLAJIT_HOST_DEVICES"); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil || v < 1 {
				return nil, fmt.Errorf("host: XLAJIT_HOST_DEVICES=%q: want a positive integer", s)
			}
			if v > maxEnvDevices {
				return nil, fmt.Errorf("host: XLAJIT_HOST_DEVICES=%q: at most %d virtual devices", s, maxEnvDevices)
			}
			n = v
		}
		if _, err := MemoryLimit(); err != nil {
			return nil, err
		}
		if os.Getenv("XLAJIT_QUIET") == "" {
			log.Printf("xlajit: using the embedded CPU device (%d device(s); set PJRT_DEVICE to use a PJRT plugin)", n)
		}
		return NewClient(n), nil
	})
}

// maxEnvDevices bounds XLAJIT_HOST_DEVICES. The virtual devices share one
// machine: each keeps a device record and a memory account, runs its own
// goroutine in a replicated or SPMD program, and an all-to-all exchanges
// n² pieces; thousands are already beyond any useful test of sharding, and
// a larger value is a typo that would otherwise allocate records until the
// process dies.
const maxEnvDevices = 1 << 12

// Client is the embedded device: N virtual CPU devices sharing the host
// memory and the worker pool.
type Client struct {
	devices []pjrt.Device
	// devMem[i] is device i's memory account; they share the limit.
	devMem []*kernel.Mem
	// accounts count the storage of large buffers (storage.go).
	accounts storageAccounts
	closed   atomic.Bool
}

// NewClient returns an embedded client with n virtual devices and the
// memory limit of XLAJIT_HOST_MEMORY_LIMIT (the default when it is unset or
// invalid; pjrt.Open reports an invalid value).
func NewClient(n int) *Client {
	limit, err := MemoryLimit()
	setting := memoryLimitSetting()
	if err != nil {
		limit, setting = machineMemory()/2, "half of the machine's memory"
	}
	return newClient(n, limit, setting)
}

// NewClientWithLimit returns an embedded client with n virtual devices
// whose tensors may take at most limit bytes together (limit > 0).
func NewClientWithLimit(n int, limit int64) *Client {
	return newClient(n, limit, "set by NewClientWithLimit")
}

func newClient(n int, limit int64, setting string) *Client {
	c := &Client{devMem: kernel.NewMems(n, limit, setting)}
	for i := 0; i < n; i++ {
		c.devices = append(c.devices, pjrt.Device{ID: i, Platform: "cpu", Kind: "embedded-cpu"})
	}
	return c
}

func (c *Client) Platform() string        { return "cpu" }
func (c *Client) PlatformVersion() string { return Version }
func (c *Client) Devices() []pjrt.Device  { return c.devices }
func (c *Client) Close() error            { c.closed.Store(true); return nil }
func (c *Client) checkDevice(d int) error {
	if d < 0 || d >= len(c.devices) {
		return fmt.Errorf("host: device %d out of range (have %d)", d, len(c.devices))
	}
	return nil
}

// MemoryInfo reports the bytes a device holds: its live buffers and the
// intermediates of the programs running on it (see account.go), the most
// it held at once since the client opened or ResetPeakBytes, and the
// client's limit (shared by its devices).
func (c *Client) MemoryInfo(device int) (pjrt.MemoryInfo, error) {
	if err := c.checkDevice(device); err != nil {
		return pjrt.MemoryInfo{}, err
	}
	m := c.devMem[device]
	return pjrt.MemoryInfo{BytesInUse: m.InUse(), PeakBytes: m.Peak(), BytesLimit: m.Limit()}, nil
}

// ResetPeakBytes implements pjrt.PeakResetter: the device's peak becomes
// its bytes in use now.
func (c *Client) ResetPeakBytes(device int) error {
	if err := c.checkDevice(device); err != nil {
		return err
	}
	c.devMem[device].ResetPeak()
	return nil
}

// Buffer is a literal held by the embedded device.
type Buffer struct {
	lit     *hlo.Literal
	client  *Client
	acc     *storageAccount // the account b holds a reference on, or nil (small buffers)
	dev     int32           // (32 bits: a buffer and its output list fit a 48-byte allocation)
	deleted atomic.Bool
}

func (c *Client) wrap(l *hlo.Literal, dev int) *Buffer {
	b := &Buffer{}
	c.initBuffer(b, l, dev)
	return b
}

// initBuffer makes b the buffer of l, counting its bytes in use on its
// device.
func (c *Client) initBuffer(b *Buffer, l *hlo.Literal, dev int) {
	b.lit, b.dev, b.client = l, int32(dev), c
	if n := int64(len(l.Data)); n >= trackedBytes {
		b.acc = c.accounts.acquire(l, c.devMem[dev], n, false)
	}
}

// accounted is the bytes b counts in its device's bytes in use.
func (b *Buffer) accounted() int64 {
	if b.acc == nil || b.deleted.Load() {
		return 0
	}
	return int64(len(b.lit.Data))
}

// oneOut is a program's only output buffer with the output list.
type oneOut struct {
	b   Buffer
	out [1]pjrt.Buffer
}

// BufferFromHost copies lit into a new device buffer, if it fits in the
// memory limit.
func (c *Client) BufferFromHost(lit *hlo.Literal, device int) (pjrt.Buffer, error) {
	if err := c.checkDevice(device); err != nil {
		return nil, err
	}
	if lit == nil {
		return nil, fmt.Errorf("host: BufferFromHost of a nil literal")
	}
	n, ok := hlo.ByteSize(lit.DType, lit.Dims)
	if !ok || hlo.NumElements(lit.Dims) < 0 || int64(len(lit.Data)) != n {
		return nil, fmt.Errorf("host: BufferFromHost: literal %s holds %d bytes, its shape needs %d", lit.ShapeString(), len(lit.Data), n)
	}
	b := &Buffer{dev: int32(device), client: c}
	if n >= trackedBytes {
		m := c.devMem[device]
		if !m.Reserve(n) {
			return nil, m.OutOfMemory(nil, "BufferFromHost", lit.ShapeString(), n)
		}
		b.lit = lit.Clone()
		b.acc = c.accounts.acquire(b.lit, m, n, true)
		return b, nil
	}
	b.lit = lit.Clone()
	return b, nil
}

// WrapLiteral makes a device buffer that takes ownership of lit (no copy).
func (c *Client) WrapLiteral(lit *hlo.Literal, device int) *Buffer { return c.wrap(lit, device) }

func (b *Buffer) DType() hlo.DType { return b.lit.DType }
func (b *Buffer) Dims() []int64    { return b.lit.Dims }
func (b *Buffer) Device() int      { return int(b.dev) }

// Literal returns the buffer's storage (shared, not to be modified).
func (b *Buffer) Literal() *hlo.Literal { return b.lit }

// ToHost copies the buffer to a new literal.
func (b *Buffer) ToHost() (*hlo.Literal, error) {
	if b.deleted.Load() {
		return nil, errDeleted
	}
	return b.lit.Clone(), nil
}

// Delete releases the buffer.
func (b *Buffer) Delete() {
	if b.deleted.CompareAndSwap(false, true) && b.acc != nil {
		b.acc.release()
	}
}

var errDeleted = errors.New("host: use of a deleted buffer")

// Executable is a compiled program for the embedded device.
type Executable struct {
	client *Client
	prog   *Program
	opts   pjrt.CompileOptions
	nOut   int
}

// prewakeFor is how long workers woken by Compile keep polling: the
// planning of a small program and its first execution's start.
const prewakeFor = time.Millisecond

// Compile verifies and plans m; nothing runs.
func (c *Client) Compile(m *hlo.Module, opts pjrt.CompileOptions) (pjrt.Executable, error) {
	if m == nil {
		return nil, fmt.Errorf("host: Compile: nil module")
	}
	if opts.UseSPMDPartitioning {
		return c.compileSPMD(m, opts)
	}
	// A compiled program usually runs at once (a jit's first call): the
	// pool's workers, parked during the trace, wake while it is planned.
	kernel.Prewake(prewakeFor)
	p, err := compileMem(m, true, c.devMem[0])
	if err != nil {
		return nil, err
	}
	n := 0
	for _, t := range p.entry.fn.ResultTypes {
		n += countLeaves(t)
	}
	return &Executable{client: c, prog: p, opts: opts, nOut: n}, nil
}

func countLeaves(t hlo.Type) int {
	if tt, ok := t.(*hlo.TupleType); ok {
		n := 0
		for _, e := range tt.Elems {
			n += countLeaves(e)
		}
		return n
	}
	return 1
}

func (e *Executable) NumOutputs() int   { return e.nOut }
func (e *Executable) Close() error      { return nil }
func (e *Executable) Program() *Program { return e.prog }

// appendArgs appends the literals of args to in; on an error, in holds
// those appended so far.
func appendArgs(in []kernel.Value, args []pjrt.Buffer) ([]kernel.Value, error) {
	for i, a := range args {
		b, ok := a.(*Buffer)
		if !ok {
			return in, fmt.Errorf("host: argument %d is a %T, not an embedded-device buffer", i, a)
		}
		if b.deleted.Load() {
			return in, fmt.Errorf("host: argument %d: %w", i, errDeleted)
		}
		in = append(in, b.lit)
	}
	return in, nil
}

func (e *Executable) wrapOut(res []kernel.Value, dev int) []pjrt.Buffer {
	if len(res) == 1 {
		if l, ok := res[0].(*hlo.Literal); ok {
			a := &oneOut{} // one allocation for the buffer and the list
			e.client.initBuffer(&a.b, l, dev)
			a.out[0] = &a.b
			return a.out[:]
		}
	}
	return e.wrapInto(make([]pjrt.Buffer, 0, e.nOut), res, dev)
}

// wrapInto appends the buffers of res to out. The buffers of literal
// results share one allocation (the accounts of large ones are their
// storage's, see storage.go).
func (e *Executable) wrapInto(out []pjrt.Buffer, res []kernel.Value, dev int) []pjrt.Buffer {
	n := 0
	for _, v := range res {
		if _, ok := v.(*hlo.Literal); ok {
			n++
		}
	}
	block := make([]Buffer, n)
	for _, v := range res {
		if l, ok := v.(*hlo.Literal); ok {
			b := &block[0]
			block = block[1:]
			e.client.initBuffer(b, l, dev)
			out = append(out, b)
			continue
		}
		out = e.appendOut(out, v, dev)
	}
	return out
}

func (e *Executable) appendOut(out []pjrt.Buffer, v kernel.Value, dev int) []pjrt.Buffer {
	switch v := v.(type) {
	case *hlo.Literal:
		out = append(out, e.client.wrap(v, dev))
	case kernel.Tuple:
		for _, x := range v {
			out = e.appendOut(out, x, dev)
		}
	case kernel.Token:
		out = append(out, e.client.wrap(hlo.NewLiteral(hlo.Bool, 0), dev))
	}
	return out
}

// Execute runs the program on one device. The context, argument list and
// buffer pool of the run come from the program's pool of run states.
func (e *Executable) Execute(args []pjrt.Buffer, opts pjrt.ExecuteOptions) ([]pjrt.Buffer, error) {
	r, res, err := e.run(args, &opts)
	if err != nil {
		return nil, err
	}
	out := e.wrapOut(res, opts.Device)
	r.poolDonated(res)
	e.prog.putRun(r)
	return out, nil
}

// run executes the program on one device with a run state of its pool:
// the results are valid until the caller gives the run state back
// (putRun), after pooling the donated arguments no result took.
func (e *Executable) run(args []pjrt.Buffer, opts *pjrt.ExecuteOptions) (*runState, []kernel.Value, error) {
	if err := e.client.checkDevice(opts.Device); err != nil {
		return nil, nil, err
	}
	r := e.prog.getRun()
	var err error
	if r.in, err = appendArgs(r.in, args); err != nil {
		e.prog.putRun(r)
		return nil, nil, err
	}
	if err := e.prog.checkArgs(r.in); err != nil {
		e.prog.putRun(r)
		return nil, nil, err
	}
	if err := checkDonations(r.in, opts.Donate); err != nil {
		e.prog.putRun(r)
		return nil, nil, err
	}
	for _, i := range opts.Donate {
		if i >= 0 && i < len(args) {
			l := r.in[i].(*hlo.Literal)
			if b := args[i].(*Buffer); b.acc != nil {
				// Its storage may be a result of this or a later execution
				// (in place, or from the pool): make its account findable.
				e.client.accounts.register(l, b.acc)
			}
			r.donated = append(r.donated, l)
			// Its storage may take results: what kernels derived from it
			// goes.
			kernel.ForgetDerived(l)
		}
	}
	// Buffers are immutable: the arguments not donated stay as they are
	// while they live.
	for _, v := range r.in {
		if l, ok := v.(*hlo.Literal); ok && !slices.Contains(r.donated, l) {
			r.stable = append(r.stable, l)
		}
	}
	var cancel <-chan struct{}
	if opts.Context != nil {
		cancel = opts.Context.Done()
	}
	res, err := e.prog.execute(r, e.client.devMem[opts.Device], cancel)
	if err != nil {
		e.prog.putRun(r)
		if errors.Is(err, kernel.ErrCanceled) && opts.Context != nil && opts.Context.Err() != nil {
			err = fmt.Errorf("%w (%w)", err, opts.Context.Err())
		}
		return nil, nil, err
	}
	// Donated arguments are gone before the results count as in use: their
	// storage may be the results'.
	for _, i := range opts.Donate {
		if i >= 0 && i < len(args) {
			args[i].Delete()
		}
	}
	return r, res, nil
}

// checkDonations rejects a donated buffer that the execution also reads
// at another argument position, or donates twice (as PJRT does): the
// program reuses a donated argument's storage once that argument is dead,
// so another position reading the same storage would see the results
// written over it, and storage donated twice would be handed to two
// results.
func checkDonations(in []kernel.Value, donate []int) error {
	for k, i := range donate {
		if i < 0 || i >= len(in) {
			continue
		}
		if slices.Contains(donate[:k], i) {
			return fmt.Errorf("host: argument %d is donated twice", i)
		}
		for j, v := range in {
			if j != i && v == in[i] {
				return fmt.Errorf("host: argument %d is donated, but its buffer is also argument %d (a donated buffer must be passed once)", i, j)
			}
		}
	}
	return nil
}

// ExecuteReplicated runs one copy of the program per replica and partition,
// concurrently, with collectives between them.
func (e *Executable) ExecuteReplicated(args [][]pjrt.Buffer, opts pjrt.ExecuteOptions) ([][]pjrt.Buffer, error) {
	nr, np := max(e.opts.NumReplicas, 1), max(e.opts.NumPartitions, 1)
	if len(args) != nr*np {
		return nil, fmt.Errorf("host: replicated execution needs %d argument lists (replicas %d x partitions %d), got %d", nr*np, nr, np, len(args))
	}
	ins := make([][]kernel.Value, len(args))
	for i := range args {
		in, err := appendArgs(make([]kernel.Value, 0, len(args[i])), args[i])
		if err != nil {
			return nil, fmt.Errorf("replica %d: %w", i, err)
		}
		ins[i] = in
	}
	mems := make([]*kernel.Mem, len(args))
	for i := range mems {
		dev := i
		if e.opts.DeviceAssignment != nil && i < len(e.opts.DeviceAssignment) {
			dev = e.opts.DeviceAssignment[i]
		}
		if err := e.client.checkDevice(dev); err != nil {
			return nil, fmt.Errorf("replica %d: %w", i, err)
		}
		mems[i] = e.client.devMem[dev]
	}
	var cancel <-chan struct{}
	if opts.Context != nil {
		cancel = opts.Context.Done()
	}
	results, err := runReplicated(e.prog, nr, np, ins, nil, mems, cancel)
	if err != nil {
		return nil, err
	}
	out := make([][]pjrt.Buffer, len(results))
	for i, r := range results {
		dev := i
		if e.opts.DeviceAssignment != nil && i < len(e.opts.DeviceAssignment) {
			dev = e.opts.DeviceAssignment[i]
		}
		out[i] = e.wrapOut(r, dev)
	}
	return out, nil
}

// RunReplicated runs prog on nr*np virtual devices concurrently, device
// i = replica*np + partition getting ins[i]. checks may be nil.
func RunReplicated(prog *Program, nr, np int, ins [][]kernel.Value, checks *kernel.CheckLog) ([][]kernel.Value, error) {
	return runReplicated(prog, nr, np, ins, checks, nil, nil)
}

// VerifiesModules implements pjrt.ModuleVerifier: Compile verifies every
// module before planning it.
func (c *Client) VerifiesModules() bool { return true }

// SupportsOp implements pjrt.Capabilities: the ops of the embedded device's
// op table.
func (c *Client) SupportsOp(name string) bool { return kernel.Lookup(name) != nil }

// SupportsDType implements pjrt.Capabilities: every element type.
func (c *Client) SupportsDType(dt hlo.DType) bool { return dt.Valid() }
