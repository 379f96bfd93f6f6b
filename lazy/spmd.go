package lazy

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// Sharding is a tensor's layout over the devices of the SPMD device (XLA's
// HloSharding; see pjrt.Sharding). Treat it as immutable.
type Sharding = pjrt.Sharding

// MetricSPMDReshardPrefix prefixes the per-op counters of layout changes
// the SPMD partitioner inserted because an op could not run on the layout
// it found (counted once per compile of a program).
const MetricSPMDReshardPrefix = "SPMDReshard."

// MetricSPMDInputReshard counts arguments moved to the layout a compiled
// SPMD program was compiled for.
const MetricSPMDInputReshard = "SPMDInputReshard"

var (
	spmdDevs  = map[pjrt.Client]*Device{}
	cInputRes = getCounter(MetricSPMDInputReshard)
)

// SPMDDevice returns the virtual device spanning every device of c
// ("SPMD:0"): its tensors are laid out over all of them (replicated unless
// marked with a sharding), and its programs are compiled once for all of
// them with SPMD partitioning (GSPMD) and run on each device's shards. It
// has its own compile cache.
func SPMDDevice(c pjrt.Client) *Device {
	devMu.Lock()
	defer devMu.Unlock()
	if d := spmdDevs[c]; d != nil {
		return d
	}
	d := &Device{client: c, ord: -1, cidx: clientIndexLocked(c), spmd: len(c.Devices()),
		state: &clientState{cache: newCompileCache(cacheSizeFromEnv())}}
	spmdDevs[c] = d
	return d
}

// IsSPMD reports whether d is the virtual device of SPMD execution.
func (d *Device) IsSPMD() bool { return d.spmd > 0 }

// NumShards is the number of devices the SPMD device spans (1 for a
// device of its own).
func (d *Device) NumShards() int { return max(d.spmd, 1) }

// upload copies l to d: to every device of an SPMD device (replicated).
func (d *Device) upload(l *hlo.Literal) (pjrt.Buffer, error) {
	if d.spmd > 0 {
		return pjrt.ShardToDevices(d.client, l, pjrt.Replicated(), d.spmd)
	}
	return d.client.BufferFromHost(l, d.ord)
}

// CompileOptions are the options of d's programs: one partition per
// device with SPMD partitioning on the SPMD device.
func (d *Device) CompileOptions() pjrt.CompileOptions {
	if d.spmd == 0 {
		return pjrt.CompileOptions{}
	}
	assign := make([]int, d.spmd)
	for i := range assign {
		assign[i] = i
	}
	return pjrt.CompileOptions{NumReplicas: 1, NumPartitions: d.spmd, DeviceAssignment: assign,
		UseSPMDPartitioning: true, PropagateShardingToOutput: true}
}

// sharding returns the layout of the data (a placeholder's declared one).
func (d *deviceData) sharding() *Sharding {
	if sb, ok := d.buf.(*pjrt.ShardedBuffer); ok {
		return sb.Sharding()
	}
	return d.spec
}

// Sharding returns t's layout on the SPMD device: its data's when t is
// computed, its annotation while pending (nil when the partitioner has not
// chosen one yet). It is nil on other devices.
func (t *Tensor) Sharding() *Sharding {
	if t == nil || !t.dev.IsSPMD() {
		return nil
	}
	if t.data != nil {
		return t.data.sharding()
	}
	if t.val.Node != nil && t.val.Node.op == table[opSharding] {
		s, _ := pjrt.ParseSharding(t.val.Node.attrs.Str("sharding"))
		return s
	}
	return t.spec
}

// ShardingSpec returns the sharding MarkSharding gave t (nil if none or
// cleared).
func (t *Tensor) ShardingSpec() *Sharding { return t.spec }

// MarkSharding lays t out by s on the SPMD device, in place. A pending
// tensor gets an annotation in its IR (the partitioner must produce that
// layout there, nothing moves now); computed data is moved into shards
// (each device keeps only its own). A tensor already marked with another
// tiled sharding must be cleared first (ClearSharding). The sharding stays
// with the tensor: values later assigned to it are annotated with it.
func (t *Tensor) MarkSharding(s *Sharding) error {
	if t == nil {
		return &Error{Op: "MarkSharding", Msg: "nil tensor", Site: callerSite()}
	}
	fail := func(format string, args ...any) error {
		return &Error{Op: "MarkSharding", Shapes: []string{t.shape.String()}, Msg: fmt.Sprintf(format, args...), Site: callerSite()}
	}
	if !t.dev.IsSPMD() {
		return fail("the tensor is on %s; shardings need the SPMD device (spmd.UseSPMD or lazy.SPMDDevice)", t.dev)
	}
	if s == nil {
		return fail("nil sharding")
	}
	if s.Type != pjrt.ShardReplicated && s.Type != pjrt.ShardTiled {
		return fail("sharding %s: only replicated and tiled shardings can be marked", s)
	}
	if err := s.Validate(t.Rank(), t.dev.spmd); err != nil {
		return fail("%v", err)
	}
	if t.spec.IsTiled() && !t.spec.Equal(s) {
		return fail("existing annotation %s must be cleared first (ClearSharding)", t.spec)
	}
	if t.data == nil {
		if t.val.Node.op == table[opSharding] && t.val.Node.attrs.Str("sharding") == s.String() {
			t.spec = s
			return nil
		}
		t.val = shardingValue(t.val, s)
		t.val.Node.uses.Add(1)
		t.leaf.Store(nil)
		t.spec = s
		return nil
	}
	if t.data.sharding().Equal(s) {
		t.spec = s
		return nil
	}
	if Tracing() {
		return fail("moving computed data into shards inside a traced function; mark the input before calling the compiled function")
	}
	if t.data.buf == nil {
		return fail("a placeholder has no data to move")
	}
	old := t.data
	l, err := old.buf.ToHost()
	if err != nil {
		return fail("%v", err)
	}
	cFromDevice.add(1)
	nb, err := pjrt.ShardToDevices(t.dev.client, l, s, t.dev.spmd)
	if err != nil {
		return fail("%v", err)
	}
	cToDevice.add(1)
	t.setData(&deviceData{buf: nb, dev: t.dev})
	t.leaf.Store(nil)
	t.spec = s
	// The old copies go when nothing else can read them.
	old.mu.Lock()
	free := old.holders.Load() == 0 && len(old.leaves()) == 0
	old.mu.Unlock()
	if free && !anyTrace() {
		old.buf.Delete()
	}
	return nil
}

// ClearSharding drops t's sharding annotation (MarkSharding's, and the
// annotation on its pending IR); no data moves.
func (t *Tensor) ClearSharding() {
	t.spec = nil
	if t.data == nil && t.val.Node != nil && t.val.Node.op == table[opSharding] {
		t.val = t.val.Node.inputs[0]
		t.val.Node.uses.Add(1)
		t.leaf.Store(nil)
	}
}

// keepSharding annotates a value assigned to t with t's sharding.
func (t *Tensor) keepSharding(v Value) Value {
	if t.spec == nil || !t.dev.IsSPMD() {
		return v
	}
	if v.Node.op == table[opSharding] && v.Node.attrs.Str("sharding") == t.spec.String() {
		return v
	}
	return shardingValue(v, t.spec)
}

func shardingValue(v Value, s *Sharding) Value {
	return Value{newNodeOf(table[opSharding], Attrs{{Key: "sharding", Val: s.String()}}, []Value{v}), 0}
}

// FromLiteralSharded uploads l to the SPMD device dev laid out by s: each
// device receives only its shard.
func FromLiteralSharded(dev *Device, l *hlo.Literal, s *Sharding) (*Tensor, error) {
	if !dev.IsSPMD() {
		return nil, &Error{Op: "FromLiteralSharded", Shapes: []string{l.ShapeString()}, Msg: fmt.Sprintf("%s is not the SPMD device", dev), Site: callerSite()}
	}
	buf, err := pjrt.ShardToDevices(dev.client, l, s, dev.spmd)
	if err != nil {
		return nil, &Error{Op: "FromLiteralSharded", Shapes: []string{l.ShapeString()}, Msg: err.Error(), Site: callerSite()}
	}
	cToDevice.add(1)
	t := newMaterialized(buf, bufferShape(buf), dev)
	if s.IsTiled() {
		t.spec = s
	}
	return t, nil
}

// NewShardedPlaceholder is NewPlaceholder for an input of the SPMD device
// laid out by s (nil: replicated).
func NewShardedPlaceholder(sh Shape, dev *Device, s *Sharding) *Tensor {
	t := NewPlaceholder(sh, dev)
	if dev.IsSPMD() {
		t.data.spec = s
	}
	return t
}

func init() {
	define(opSharding, &OpDef{
		Name: "Sharding",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if _, err := pjrt.ParseSharding(a.Str("sharding")); err != nil {
				return nil, err
			}
			return []Shape{in[0]}, nil
		},
		// On the SPMD device the annotation is a @Sharding custom call the
		// partitioner must honour; elsewhere it is the identity.
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			if !lc.spmd {
				return in
			}
			return lc.S.CustomCall("Sharding", in, []hlo.Type{in[0].Type},
				hlo.NamedAttr{Name: shardingAttr, Value: hlo.StringAttr(n.attrs.Str("sharding"))})
		},
		GoKernel: func(in []*hlo.Literal, a Attrs) ([]*hlo.Literal, error) {
			return []*hlo.Literal{in[0].Clone()}, nil
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor { return dy },
	})
}

// shardingAttr holds sharding texts in StableHLO.
const shardingAttr = "mhlo.sharding"

// spmdMode is the number of devices of the SPMD device g's parameters
// live on (0: not an SPMD graph).
func (g *Graph) spmdMode() int {
	for _, p := range g.Params {
		if p.data.dev != nil && p.data.dev.spmd > 0 {
			return p.data.dev.spmd
		}
	}
	return 0
}

// argShardingAttrs is the mhlo.sharding of parameter i of an SPMD graph.
func (g *Graph) argShardingAttrs(i int) []hlo.NamedAttr {
	if g.spmd == 0 {
		return nil
	}
	s := g.Params[i].data.sharding()
	text := "{replicated}"
	if s != nil {
		text = s.String()
	}
	return []hlo.NamedAttr{{Name: shardingAttr, Value: hlo.StringAttr(text)}}
}

// lowerSPMD adds what SPMD compilation reads to the module of an SPMD
// graph: the partition count, and the sharding of results that are
// annotations.
func (g *Graph) lowerSPMD(b *hlo.Builder, attrs []*hlo.DictAttr, nroots int) []*hlo.DictAttr {
	if g.spmd == 0 {
		return attrs
	}
	b.SetAttr("mhlo.num_partitions", hlo.I32Attr(int64(g.spmd)))
	b.SetAttr("mhlo.num_replicas", hlo.I32Attr(1))
	for i, r := range g.Roots {
		if r.Node.op != table[opSharding] {
			continue
		}
		if attrs == nil {
			attrs = make([]*hlo.DictAttr, nroots)
		}
		d := hlo.DictAttr{{Name: shardingAttr, Value: hlo.StringAttr(r.Node.attrs.Str("sharding"))}}
		if attrs[i] != nil {
			d = append(d, *attrs[i]...)
		}
		attrs[i] = &d
	}
	return attrs
}

// Sharding returns the layout of the state's data on the SPMD device (nil
// while pending or on other devices).
func (s TensorState) Sharding() *Sharding {
	if s.data == nil || s.data.dev == nil || !s.data.dev.IsSPMD() {
		return nil
	}
	return s.data.sharding()
}

// ParseSharding parses XLA's sharding text (pjrt.ParseSharding).
func ParseSharding(text string) (*Sharding, error) { return pjrt.ParseSharding(text) }
