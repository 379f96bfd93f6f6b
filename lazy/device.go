package lazy

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	_ "github.com/xlajit/xlajit/pjrt/host" // the embedded device, the default
)

// Device is one device of a pjrt client. Tensors live on a device; an op's
// operands must share one.
type Device struct {
	client pjrt.Client
	ord    int
	cidx   int // the client's index in the order this process first saw clients
	state  *clientState
	spmd   int // devices spanned by the SPMD device (spmd.go); 0 otherwise

	rngMu sync.Mutex
	rng   *Tensor // RNG state (u64[2]), device data advanced by each random op

	// dryOf is the device a shadow device stands for (nil on real
	// devices); shadow is this device's shadow, made on first use (dry.go).
	dryOf  *Device
	shadow atomic.Pointer[Device]
}

// clientState is what all devices of one client share: the compile cache.
type clientState struct {
	cache *compileCache

	capMu    sync.Mutex
	capCache map[Hash]bool // DeviceSupports results by trial graph hash
	capByKey map[Hash]bool // and by op, attributes and operand shapes
	// capRecent caches capByKey's answers in slots picked by the key, read
	// without the lock (a trace asks for every node, about few keys).
	capRecent [64]atomic.Pointer[capAnswer]
}

// capAnswer is one DeviceSupports answer.
type capAnswer struct {
	key Hash
	ok  bool
}

var (
	devMu      sync.Mutex
	defaultDev *Device
	devices    = map[pjrt.Client][]*Device{}
	states     = map[pjrt.Client]*clientState{}
	clientIdx  = map[pjrt.Client]int{}
)

// clientIndexLocked is c's index among the clients this process has made
// devices of, in the order first seen (0 for the first).
func clientIndexLocked(c pjrt.Client) int {
	i, ok := clientIdx[c]
	if !ok {
		i = len(clientIdx)
		clientIdx[c] = i
	}
	return i
}

// String returns "cpu:0".
func (d *Device) String() string {
	if d == nil {
		return "<nil device>"
	}
	if d.spmd > 0 {
		return "SPMD:0"
	}
	return fmt.Sprintf("%s:%d", d.client.Platform(), d.ord)
}

// Client returns the device's pjrt client.
func (d *Device) Client() pjrt.Client { return d.client }

// Ordinal is the device's index in its client.
func (d *Device) Ordinal() int { return d.ord }

// ClientIndex tells apart devices of different clients with one ordinal
// (two embedded clients, or a plugin's device 0 beside the embedded
// one): it is the index of d's client among the clients this process has
// made devices of, in the order first seen (0 for the first, which is the
// default device's client unless another client's devices were made
// before it).
func (d *Device) ClientIndex() int { return d.cidx }

// DevicesOf returns the devices of client c (one Device value per client
// device, created once).
func DevicesOf(c pjrt.Client) []*Device {
	devMu.Lock()
	defer devMu.Unlock()
	return devicesLocked(c)
}

func devicesLocked(c pjrt.Client) []*Device {
	if ds, ok := devices[c]; ok {
		return ds
	}
	st := states[c]
	if st == nil {
		st = &clientState{cache: newCompileCache(cacheSizeFromEnv())}
		states[c] = st
	}
	var ds []*Device
	for i := range c.Devices() {
		ds = append(ds, &Device{client: c, ord: i, cidx: clientIndexLocked(c), state: st})
	}
	devices[c] = ds
	return ds
}

// DefaultDevice returns device 0 of the client chosen by PJRT_DEVICE (the
// embedded CPU device when unset). It panics with the client's error when
// that device cannot be opened (use DefaultDeviceE to get the error).
func DefaultDevice() *Device {
	d, err := DefaultDeviceE()
	if err != nil {
		panic(&Error{Op: "DefaultDevice", Msg: err.Error(), Site: callerSite(), Err: err})
	}
	return d
}

// DefaultDeviceE is DefaultDevice returning the error.
func DefaultDeviceE() (*Device, error) {
	devMu.Lock()
	d := defaultDev
	devMu.Unlock()
	if d != nil {
		return d, nil
	}
	c, err := pjrt.Default()
	if err != nil {
		return nil, err
	}
	devMu.Lock()
	defer devMu.Unlock()
	if defaultDev == nil {
		ds := devicesLocked(c)
		if len(ds) == 0 {
			return nil, fmt.Errorf("lazy: client %s has no devices", c.Platform())
		}
		defaultDev = ds[0]
	}
	return defaultDev, nil
}

// SetDefaultDevice makes d the device of newly created tensors.
func SetDefaultDevice(d *Device) {
	devMu.Lock()
	defaultDev = d
	devMu.Unlock()
}

// DeviceSupports reports whether dev can run op on operands of the given
// shapes: the op has a lowering, and (when the device's client reports its
// capabilities through pjrt.Capabilities) every StableHLO op and element
// type of the op's trial lowering is supported. Results are cached per
// device by the node's hash.
func DeviceSupports(dev *Device, op *OpDef, attrs Attrs, in []Shape) bool {
	if dev == nil || op == nil || op.Lower == nil {
		return false
	}
	caps, ok := dev.client.(pjrt.Capabilities)
	if !ok {
		return true
	}
	// The answer depends only on the op, its attributes and the operand
	// shapes: look it up by those before building and lowering a trial
	// graph (a traced function asks once per node). A constant's value
	// is not part of the key: a new constant in every first call (a
	// learning rate, a step number) would lower a trial each time.
	kh := op.nameHasher()
	attrs.hash(&kh, false)
	kh.int(len(in))
	for _, s := range in {
		kh.u64(uint64(s.DType))
		kh.ints(s.Dims)
	}
	key := kh.sum()
	slot := &dev.state.capRecent[key.Lo%uint64(len(dev.state.capRecent))]
	if a := slot.Load(); a != nil && a.key == key {
		return a.ok
	}
	dev.state.capMu.Lock()
	v, seen := dev.state.capByKey[key]
	dev.state.capMu.Unlock()
	if !seen {
		v = deviceSupports(dev, caps, op, attrs, in)
		dev.state.capMu.Lock()
		if dev.state.capByKey == nil {
			dev.state.capByKey = map[Hash]bool{}
		}
		dev.state.capByKey[key] = v
		dev.state.capMu.Unlock()
	}
	slot.Store(&capAnswer{key, v})
	return v
}

// SameSupportAttrs reports whether attribute lists a and b key the same
// DeviceSupports question: the same list, or the same keys and values,
// a constant's literal counting by its type only (as DeviceSupports
// keys it). A caller asking about many nodes of one op skips the
// question for a node whose attributes (and operand shapes) repeat.
func SameSupportAttrs(a, b Attrs) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i, x := range a {
		y := b[i]
		if x.Key != y.Key {
			return false
		}
		switch v := x.Val.(type) {
		case *hlo.Literal:
			w, ok := y.Val.(*hlo.Literal)
			if !ok || v.DType != w.DType || !slices.Equal(v.Dims, w.Dims) {
				return false
			}
		case []int64:
			if w, ok := y.Val.([]int64); !ok || !slices.Equal(v, w) {
				return false
			}
		case float64:
			if w, ok := y.Val.(float64); !ok || math.Float64bits(v) != math.Float64bits(w) {
				return false
			}
		case int64, bool, string, DType:
			if x.Val != y.Val {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// deviceSupports lowers op alone on placeholders and checks the module
// against caps (results cached by the trial graph's hash).
func deviceSupports(dev *Device, caps pjrt.Capabilities, op *OpDef, attrs Attrs, in []Shape) bool {
	args := make([]*Tensor, len(in))
	for i, s := range in {
		args[i] = NewPlaceholder(s, dev)
	}
	var outs []*Tensor
	if err := Try(func() { outs = RecordOn(dev, op, attrs, args...) }); err != nil {
		return false
	}
	roots := make([]Value, len(outs))
	for i, t := range outs {
		roots[i] = t.Value()
	}
	g := CollectGraph(roots)
	dev.state.capMu.Lock()
	v, seen := dev.state.capCache[g.Hash]
	dev.state.capMu.Unlock()
	if seen {
		return v
	}
	m, err := g.Lower("capability")
	supported := err == nil && moduleSupported(m, caps)
	dev.state.capMu.Lock()
	if dev.state.capCache == nil {
		dev.state.capCache = map[Hash]bool{}
	}
	dev.state.capCache[g.Hash] = supported
	dev.state.capMu.Unlock()
	return supported
}

func moduleSupported(m *hlo.Module, caps pjrt.Capabilities) bool {
	ok := true
	check := func(t hlo.Type) {
		if tt, isT := t.(*hlo.TensorType); isT && !caps.SupportsDType(tt.DType) {
			ok = false
		}
	}
	for _, f := range m.Funcs {
		for _, a := range f.Args {
			check(a.Type)
		}
		f.Body.Walk(func(op *hlo.Op) bool {
			if op.Name != "func.return" && op.Name != "stablehlo.return" && !caps.SupportsOp(op.Name) {
				ok = false
			}
			for _, r := range op.Results {
				check(r.Type)
			}
			return ok
		})
	}
	return ok
}
