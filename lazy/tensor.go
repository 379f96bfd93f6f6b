package lazy

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// deviceData is a buffer on a device. Tensors and device-data leaves point
// to it; it is immutable except through donation.
type deviceData struct {
	buf pjrt.Buffer
	dev *Device
	// holders counts the tensors holding this data (a tensor that is
	// garbage collected never gives its count back, which only makes
	// donation more conservative).
	holders atomic.Int32
	mu      sync.Mutex // guards extra
	// extra holds the IR leaves made for this buffer (nil until one is),
	// keeping the data of a replay's result small: it is allocated with
	// the tensor, in 160 bytes.
	extra *dataExtra
	// spec is a placeholder's declared sharding on the SPMD device (real
	// data's layout is its buffer's; see spmd.go).
	spec *Sharding
}

// dataExtra is the rarely set part of a deviceData.
type dataExtra struct {
	leaves []*Node // the device-data IR leaves made for the buffer
}

// leaves returns the IR leaves made for d (d.mu held).
func (d *deviceData) leaves() []*Node {
	if d.extra == nil {
		return nil
	}
	return d.extra.leaves
}

// more returns d's extra part, made on first use (d.mu held).
func (d *deviceData) more() *dataExtra {
	if d.extra == nil {
		d.extra = &dataExtra{}
	}
	return d.extra
}

// setData makes t hold d (nil: nothing), keeping the holder counts.
func (t *Tensor) setData(d *deviceData) {
	if t.data == d {
		return
	}
	if t.data != nil {
		t.data.holders.Add(-1)
	}
	if d != nil {
		d.holders.Add(1)
	}
	t.data = d
}

// Tensor is a lazy tensor: a dtype, a shape, a device, and either device
// data or a pending IR value that a cut (Sync, Item, Float32s, String) will
// compute.
type Tensor struct {
	shape Shape
	dev   *Device
	data  *deviceData // materialized value; nil while pending
	val   Value       // pending IR value; Node nil when materialized
	leaf  atomic.Pointer[Node]
	// origin is the IR value that computed data (set by a cut or a host
	// op), so that Grad can differentiate through tensors already computed
	// (a loss read with Item, every tensor in eager mode). It keeps that IR,
	// and the input buffers it reads, alive until t is computed again.
	origin Value
	// spec is the sharding MarkSharding gave t on the SPMD device.
	spec *Sharding
}

// released panics with the *Error of a use of t after Release emptied it
// (it holds neither data nor IR).
func released(t *Tensor) { panic(errReleased(t)) }

// errReleased is that error, also for a cut (Sync, a read) of such a
// tensor. A tensor without a device is a zero Tensor value, which no
// constructor made and which holds nothing either.
func errReleased(t *Tensor) error {
	if t.dev == nil {
		return &Error{Op: "Tensor", Msg: "the tensor " + holdsNothing(t), Site: callerSite()}
	}
	return &Error{Op: "Release", Shapes: []string{t.shape.String()}, Msg: "the tensor " + holdsNothing(t), Site: callerSite()}
}

// nilTensor panics with the *Error of method called on a nil tensor.
func nilTensor(method string) { throw(method, nil, "called on a nil tensor") }

// Shape returns the tensor's dtype and dims.
func (t *Tensor) Shape() Shape {
	if t == nil {
		nilTensor("Shape")
	}
	return t.shape
}

// DType returns the element type.
func (t *Tensor) DType() DType {
	if t == nil {
		nilTensor("DType")
	}
	return t.shape.DType
}

// Dims returns the dimensions (do not modify).
func (t *Tensor) Dims() []int64 {
	if t == nil {
		nilTensor("Dims")
	}
	return t.shape.Dims
}

// Rank returns the number of dimensions.
func (t *Tensor) Rank() int {
	if t == nil {
		nilTensor("Rank")
	}
	return len(t.shape.Dims)
}

// Dim returns dimension i (negative counts from the end).
func (t *Tensor) Dim(i int) int64 {
	needTensors("Dim", "t", t)
	j, ok := normAxis(i, t.Rank())
	if !ok {
		throw("Dim", []Shape{t.shape}, "axis %d out of range for rank %d", i, t.Rank())
	}
	return t.shape.Dims[j]
}

// Size returns the number of elements.
func (t *Tensor) Size() int64 {
	if t == nil {
		nilTensor("Size")
	}
	return t.shape.Size()
}

// Device returns the tensor's device.
func (t *Tensor) Device() *Device {
	if t == nil {
		nilTensor("Device")
	}
	return t.dev
}

// IsPending reports whether the tensor holds unexecuted IR.
func (t *Tensor) IsPending() bool {
	if t == nil {
		nilTensor("IsPending")
	}
	return t.data == nil
}

// IR returns the pending IR value (Node nil when materialized).
func (t *Tensor) IR() Value {
	if t == nil {
		nilTensor("IR")
	}
	return t.val
}

// Buffer returns the device buffer of a materialized tensor (nil while
// pending). Inside a traced function, the buffer of a tensor the trace did
// not make or compute (an argument's, a capture's) is a graph break, as a
// read is: what the function does with it (copy it to the host, wrap it
// with FromBuffer) is invisible to the trace, which would replay the
// traced call's data.
func (t *Tensor) Buffer() pjrt.Buffer {
	if t == nil {
		nilTensor("Buffer")
	}
	if t.data == nil {
		return nil
	}
	if st := currentTrace(); st != nil && !st.created[t] && !st.computed[t.data] {
		st.t.OnCut("Buffer of device data the traced function did not compute", callerSite())
	}
	return t.data.buf
}

// value returns the IR value for using t as an operand: its pending value,
// or a device-data leaf for its data (one leaf per data, reused).
func (t *Tensor) value() Value {
	if t.val.Node != nil {
		return t.val
	}
	if n := t.leaf.Load(); n != nil && n.data == t.data {
		return Value{n, 0}
	}
	if t.data == nil {
		released(t)
	}
	n := newDataNode(t.data, t, t.shape)
	t.leaf.Store(n)
	return Value{n, 0}
}

func newPending(v Value, dev *Device) *Tensor {
	v.Node.uses.Add(1)
	return &Tensor{shape: v.Shape(), dev: dev, val: v}
}

// tensorWithData allocates a tensor and its first device data together.
type tensorWithData struct {
	t Tensor
	d deviceData
}

func newMaterialized(buf pjrt.Buffer, s Shape, dev *Device) *Tensor {
	a := &tensorWithData{}
	a.init(buf, s, dev)
	return &a.t
}

func (a *tensorWithData) init(buf pjrt.Buffer, s Shape, dev *Device) {
	a.t = Tensor{shape: s, dev: dev}
	a.d = deviceData{buf: buf, dev: dev}
	a.t.setData(&a.d)
}

// oneResult is a program's only result with its result list.
type oneResult struct {
	t   tensorWithData
	res [1]*Tensor
}

// FromBuffer wraps an existing device buffer of device dev. The tensor
// takes the buffer over, as SetData does: no other tensor may hold it.
func FromBuffer(buf pjrt.Buffer, dev *Device) *Tensor {
	needDevice("FromBuffer", dev)
	if buf == nil {
		throw("FromBuffer", nil, "buffer is nil")
	}
	return newMaterialized(buf, bufferShape(buf), dev)
}

// bufferShape is buf's shape sharing its dims (a buffer's dims are
// immutable), so the tensor's shape and the buffer the device reads share
// one array.
func bufferShape(buf pjrt.Buffer) Shape { return Shape{DType: buf.DType(), Dims: buf.Dims()} }

// FromLiteral copies a host literal to the default device.
func FromLiteral(l *hlo.Literal) *Tensor { return FromLiteralOn(DefaultDevice(), l) }

// FromLiteralOn copies a host literal to dev.
func FromLiteralOn(dev *Device, l *hlo.Literal) *Tensor {
	t := uploadLiteral(dev, l)
	if st := currentTrace(); st != nil {
		st.created[t] = true
		st.t.OnCreate(t)
	}
	return t
}

// uploadLiteral is FromLiteralOn without telling a trace (the device's own
// tensors, such as its RNG state, are not the traced function's).
func uploadLiteral(dev *Device, l *hlo.Literal) *Tensor {
	needDevice("FromLiteral", dev)
	if err := checkLiteral(l); err != nil {
		throw("FromLiteral", nil, "%v", err)
	}
	buf, err := dev.upload(l)
	if err != nil {
		panic(&Error{Op: "FromLiteral", Shapes: []string{l.ShapeString()}, Msg: err.Error(), Site: callerSite(), Err: err})
	}
	cToDevice.add(1)
	return newMaterialized(buf, bufferShape(buf), dev)
}

// Element is a Go type a tensor can be built from.
type Element interface {
	bool | int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64 | complex64 | complex128
}

// FromSlice copies data to the default device as a tensor of the given dims
// (none: 1-D of len(data)). The dtype follows the Go element type.
func FromSlice[T Element](data []T, dims ...int64) *Tensor {
	if len(dims) == 0 {
		dims = []int64{int64(len(data))}
	}
	var z T
	dt := hlo.LiteralFromSlice([]T{z}).DType
	needDims("FromSlice", nil, dt, dims)
	if n := hlo.NumElements(dims); n != int64(len(data)) {
		throw("FromSlice", nil, "%d values do not fill shape %v (%d elements)", len(data), dims, n)
	}
	return FromLiteral(hlo.LiteralFromSlice(data, dims...))
}

// Scalar returns a 0-d tensor of v (float64 converted to dt) as a constant.
func Scalar(dt DType, v float64) *Tensor {
	needDType("Scalar", nil, dt)
	return Full(dt, v)
}

// Literal syncs t and copies its value to the host.
func (t *Tensor) Literal() (*hlo.Literal, error) {
	if t == nil {
		return nil, &Error{Op: "Literal", Msg: "t is nil", Site: callerSite()}
	}
	if t.symbolic() {
		return nil, &Error{Op: "Literal", Shapes: []string{t.shape.String()}, Msg: errSymbolic, Site: callerSite()}
	}
	if err := syncTensors("Literal", []*Tensor{t}); err != nil {
		return nil, err
	}
	l, err := t.data.buf.ToHost()
	if err != nil {
		return nil, err
	}
	cFromDevice.add(1)
	return l, nil
}

func (t *Tensor) mustLiteral(reason string) *hlo.Literal {
	needTensors(reason, "t", t)
	if t.symbolic() {
		// While tracing, a read is the tracer's to judge first (a graph
		// break); reading a placeholder is an error either way.
		if tr := currentTracer(); tr != nil {
			tr.OnCut(reason, callerSite())
		}
		throw(reason, []Shape{t.shape}, errSymbolic)
	}
	if err := syncTensors(reason, []*Tensor{t}); err != nil {
		panic(&Error{Op: reason, Shapes: []string{t.shape.String()}, Msg: err.Error(), Site: callerSite(), Err: err})
	}
	l, err := t.data.buf.ToHost()
	if err != nil {
		panic(&Error{Op: reason, Shapes: []string{t.shape.String()}, Msg: err.Error(), Site: callerSite(), Err: err})
	}
	cFromDevice.add(1)
	return l
}

// Item returns the single element as float64 (a cut).
func (t *Tensor) Item() float64 {
	needTensors("Item", "t", t)
	if t.Size() != 1 {
		throw("Item", []Shape{t.shape}, "tensor has %d elements, want 1", t.Size())
	}
	l := t.mustLiteral("Item")
	return l.Float(0)
}

// readAs computes t (a cut named reason), copies it to the host and
// converts each element with conv.
func readAs[T any](t *Tensor, reason string, conv func(l *hlo.Literal, i int) T) []T {
	l := t.mustLiteral(reason)
	out := make([]T, l.NumElements())
	for i := range out {
		out[i] = conv(l, i)
	}
	return out
}

// Float32s returns the elements converted to float32 (a cut).
func (t *Tensor) Float32s() []float32 {
	needTensors("Float32s", "t", t)
	if t.DType() == F32 {
		return append([]float32(nil), t.mustLiteral("Float32s").F32()...)
	}
	return readAs(t, "Float32s", func(l *hlo.Literal, i int) float32 { return float32(l.Float(i)) })
}

// Float64s returns the elements converted to float64 (a cut).
func (t *Tensor) Float64s() []float64 { return readAs(t, "Float64s", (*hlo.Literal).Float) }

// Int32s returns the elements converted to int32 (a cut).
func (t *Tensor) Int32s() []int32 {
	return readAs(t, "Int32s", func(l *hlo.Literal, i int) int32 { return int32(l.Int(i)) })
}

// Int64s returns the elements converted to int64 (a cut).
func (t *Tensor) Int64s() []int64 { return readAs(t, "Int64s", (*hlo.Literal).Int) }

// Bools returns the elements as bools (non-zero is true; a cut).
func (t *Tensor) Bools() []bool {
	return readAs(t, "Bools", func(l *hlo.Literal, i int) bool { return l.Float(i) != 0 })
}

// String prints the tensor's shape and values (a cut).
func (t *Tensor) String() string {
	l := t.mustLiteral("String")
	var b strings.Builder
	fmt.Fprintf(&b, "%s ", t.shape)
	if l.NumElements() <= 64 {
		s := hlo.DenseString(l)
		b.WriteString(strings.TrimSuffix(strings.TrimPrefix(s, "dense<"), ">"))
	} else {
		fmt.Fprintf(&b, "[%d elements]", l.NumElements())
	}
	return b.String()
}

// TensorState is a snapshot of a tensor's contents (for undoing a trace).
type TensorState struct {
	data *deviceData
	val  Value
	// origin is the IR value that computed data, which gradients follow
	// (see Tensor.origin).
	origin Value
}

// State returns a snapshot of t's contents, to Restore later. The
// snapshot keeps t's buffer as it is: no execution takes that buffer for
// its results (donation), so that a compiled function writing t in place
// leaves the snapshot intact. (A TensorState is a plain value, so the
// buffer stays excluded from donation for as long as it lives.)
func (t *Tensor) State() TensorState {
	if t == nil {
		nilTensor("State")
	}
	if t.data != nil {
		t.data.holders.Add(1)
	}
	return t.state()
}

// TransientState is State for a Restore that follows before anything
// executes (the runtime's read-every-value-then-write sequences): it does
// not keep the buffer from donation.
func (t *Tensor) TransientState() TensorState {
	if t == nil {
		nilTensor("TransientState")
	}
	return t.state()
}

func (t *Tensor) state() TensorState {
	return TensorState{t.data, t.val, t.origin}
}

// Restore puts back a snapshot taken with State, with the computation
// gradients follow back from it. Inside a traced function, restoring a
// tensor the function did not make is a graph break, as Item is (a
// replay repeats tensor operations, and this is not one: write into the
// tensor with Assign instead); so is restoring a snapshot that holds
// device data the trace did not compute (an argument's, a constant's) or
// IR from before the trace, and so are TakeData, SetData and Release.
func (t *Tensor) Restore(s TensorState) {
	if t == nil { // an emptied t may take contents back (a swap)
		nilTensor("Restore")
	}
	if sh, ok := s.shape(); ok && !sh.Equal(t.shape) {
		throw("Restore", []Shape{t.shape, sh}, "the snapshot is of another shape")
	}
	if s.data != nil && s.data.dev != nil && s.data.dev != t.dev {
		throw("Restore", []Shape{t.shape}, "the snapshot is on another device (%s, %s)", s.data.dev, t.dev)
	}
	t.noReplaceInTrace("Restore", &s)
	t.restore(s)
}

// shape is the shape of what s holds: its pending value's, or its
// buffer's (false for an empty snapshot or a placeholder's data).
func (s TensorState) shape() (Shape, bool) {
	switch {
	case s.val.valid():
		return s.val.Shape(), true
	case s.data != nil && s.data.buf != nil:
		return bufferShape(s.data.buf), true
	}
	return Shape{}, false
}

func (t *Tensor) restore(s TensorState) {
	t.setData(s.data)
	if s.val.Node != nil && s.val != t.val {
		// t becomes a user of the IR, as by Assign: a cut computing
		// another user must not donate what it reads.
		s.val.Node.uses.Add(1)
	}
	t.val = s.val
	t.origin = s.origin
	t.leaf.Store(nil)
}

// someData stands for device data SetData puts into a tensor.
var someData = TensorState{data: &deviceData{}}

// noReplaceInTrace reports to the calling goroutine's trace, if any, that
// op is about to replace the contents of t other than by Assign, with s
// (nil: nothing, as Release leaves). The trace records no op for it, so it
// is a graph break unless the traced function made t itself and s is IR
// the trace recorded or data it computed from that IR (a host op's
// operands and results): other device data (an argument's buffer, a
// constant's) or IR from before the trace would be read through t as a
// capture of the graph, frozen at the trace. t stays the function's own
// afterwards.
func (t *Tensor) noReplaceInTrace(op string, s *TensorState) {
	st := currentTrace()
	if st == nil {
		return
	}
	before := t.state()
	if !st.local(t, before) {
		st.t.OnCut(op+" of a tensor the traced function did not make", callerSite())
	}
	if s != nil && !st.recorded(*s) {
		st.t.OnCut(op+" of device data or of IR from before the trace", callerSite())
	}
	st.keepLocal(t, before)
}

// Share returns a new tensor holding what t holds: its device data or its
// pending IR. Buffers are never written in place, so the two are
// independent: assigning to one leaves the other as it is.
func (t *Tensor) Share() *Tensor {
	needTensors("Share", "t", t)
	if st := currentTrace(); st != nil {
		// In a trace, t's device data (or IR from before the trace,
		// computed first as an op's operand is) is an argument's or a
		// capture's, which the trace knows by tensor: the share reads
		// it through t's IR (a stand-in for the one of each call), and
		// it is the function's own tensor, so writing it writes no
		// input.
		syncExternal(st, []*Tensor{t})
		n := newPending(t.value(), t.dev)
		st.locals[n] = true
		return n
	}
	if t.data == nil {
		return newPending(t.val, t.dev)
	}
	n := &Tensor{shape: t.shape, dev: t.dev}
	n.setData(t.data)
	return n
}

// Release empties t (it must not be used again) and returns what it held,
// for Restore into another tensor: a move, so the buffer's holders do not
// count t any more.
func (t *Tensor) Release() TensorState {
	t.noReplaceInTrace("Release", nil)
	s := t.state()
	t.setData(nil)
	t.val = Value{}
	t.origin = Value{}
	t.leaf.Store(nil)
	return s
}

// SameData reports whether two states hold the same device data.
func (s TensorState) SameData(o TensorState) bool { return s.data == o.data && s.val == o.val }

// Assign writes v into t in place: t takes v's value (pending until the
// next cut). This is the mutation primitive the jit tracks.
func (t *Tensor) Assign(v *Tensor) {
	needTensors("Assign", "t,v", t, v)
	if !t.shape.Equal(v.shape) {
		throw("Assign", []Shape{t.shape, v.shape}, "shapes differ")
	}
	if t.dev != v.dev {
		throw("Assign", []Shape{t.shape, v.shape}, "tensors are on different devices (%s, %s)", t.dev, v.dev)
	}
	if st := currentTrace(); st != nil {
		SyncExternal([]*Tensor{v})
		st.onAssign(t)
	}
	t.val = t.keepSharding(v.value())
	t.val.Node.uses.Add(1)
	t.setData(nil)
	t.origin = Value{}
	t.leaf.Store(nil)
	if eager() && !Tracing() {
		mustSync("Eager", t)
	}
}

// SetData replaces t's contents with a buffer of t's shape. t takes the
// buffer over: no other tensor may hold it (as it may be donated to a
// later computation once nothing holds t's data, which deletes it); to
// share another tensor's contents use TakeData or Restore, which share its
// data.
func (t *Tensor) SetData(buf pjrt.Buffer) {
	needTensors("SetData", "t", t)
	if buf == nil || !bufferShape(buf).Equal(t.shape) {
		got := "nil"
		if buf != nil {
			got = bufferShape(buf).String()
		}
		throw("SetData", []Shape{t.shape}, "the buffer is %s, not of the tensor's shape", got)
	}
	t.noReplaceInTrace("SetData", &someData)
	t.setData(&deviceData{buf: buf, dev: t.dev})
	t.val = Value{}
	t.origin = Value{}
	t.leaf.Store(nil)
}

func mustSync(reason string, ts ...*Tensor) {
	if err := syncTensors(reason, ts); err != nil {
		panic(&Error{Op: reason, Msg: err.Error(), Site: callerSite(), Err: err})
	}
}

// DataID identifies the device data the state holds (nil while pending).
func (s TensorState) DataID() any {
	if s.data == nil {
		return nil
	}
	return s.data
}

// Pending returns the IR value the state holds (Node nil when materialized).
func (s TensorState) Pending() Value { return s.val }

// DataID identifies t's current device data (nil while pending).
func (t *Tensor) DataID() any { return t.state().DataID() }

// Value returns the IR value for t as an operand (a device-data leaf when t
// is materialized).
func (t *Tensor) Value() Value {
	needTensors("Value", "t", t)
	return t.value()
}

// symbolic reports whether t is a placeholder or depends on one (its IR
// can be lowered and hashed, never computed).
func (t *Tensor) symbolic() bool {
	return t.val.Node != nil && t.val.Node.symbolic || t.val.Node == nil && t.data != nil && t.data.buf == nil
}

const errSymbolic = "the tensor is or depends on a placeholder (NewPlaceholder): it can be lowered, not computed"

// NewPlaceholder returns a tensor of shape s on dev that stands for data
// supplied later: it has no buffer and can only be used to build IR that is
// lowered (never executed directly). Each placeholder is its own parameter.
func NewPlaceholder(s Shape, dev *Device) *Tensor {
	needDevice("NewPlaceholder", dev)
	needDType("NewPlaceholder", nil, s.DType)
	needDims("NewPlaceholder", nil, s.DType, s.Dims)
	return &Tensor{shape: NewShape(s.DType, s.Dims...), dev: dev, data: &deviceData{dev: dev}}
}

// TakeData makes t hold src's device data (src must be materialized and of
// t's shape): the write-back of a replayed mutation.
func (t *Tensor) TakeData(src *Tensor) {
	needTensors("TakeData", "t,src", t, src)
	if src.data == nil || !t.shape.Equal(src.shape) {
		panic(&Error{Op: "TakeData", Shapes: []string{t.shape.String(), src.shape.String()}, Msg: "source must be materialized with the same shape"})
	}
	s := src.state()
	t.noReplaceInTrace("TakeData", &s)
	t.setData(src.data)
	t.val = Value{}
	t.leaf.Store(nil)
}

// MustLiteral is Literal panicking with an *Error on failure.
func (t *Tensor) MustLiteral() *Literal { return t.mustLiteral("Literal") }
