package optim

import (
	"fmt"
	"runtime"
	"strings"
	"unsafe"

	"github.com/xlajit/xlajit/lazy"
)

// Sites of lazy's errors and IR nodes pass over this package's frames to
// the user's line (the one that called Step).
func init() { lazy.SkipInSites("github.com/xlajit/xlajit/optim") }

// Optimizer is what every optimizer of this package offers.
type Optimizer interface {
	// Step applies one update from grads (one per parameter, in order; a
	// nil gradient leaves its parameter and state unchanged).
	Step(grads []*lazy.Tensor)
	// Shared returns the parameters, learning rate, step count and schedule.
	Shared() *Base
	// StateDict names every state tensor (PyTorch's names).
	StateDict() map[string]*lazy.Tensor
}

// Base is the part every optimizer shares.
type Base struct {
	// Params are the tensors updated in place, in order.
	Params []*lazy.Tensor
	// LR is the learning rate of the last or next update (f32 scalar on the
	// device). Without a Schedule, SetLR writes it; with one, Step writes
	// Schedule.LR(Steps) into it before each update.
	LR *lazy.Tensor
	// Steps counts the updates done (i64 scalar on the device); the
	// Schedule reads it.
	Steps *lazy.Tensor
	// ParamSteps counts, per parameter, the updates that had a gradient for
	// it (i64 scalars on the device; PyTorch's state[p]["step"]): a nil
	// gradient advances Steps but not its parameter's count, which is what
	// bias corrections, learning-rate decay and first-step rules read.
	ParamSteps []*lazy.Tensor
	// Schedule computes the learning rate from Steps inside the graph
	// (nil: LR as set).
	Schedule Schedule
}

// Shared returns b, the part every optimizer embeds.
func (b *Base) Shared() *Base { return b }

// SetLR writes the learning rate (a host-to-device copy; the compiled step
// reads the tensor, so this never retraces). With a Schedule the next Step
// overwrites it.
func (b *Base) SetLR(lr float64) {
	if lazy.Tracing() {
		b.LR.Assign(lazy.FullOn(b.LR.Device(), lazy.F32, lr))
		return
	}
	// A host-to-device copy, not a program: a constant of a new value
	// would be a new graph to compile.
	words := make([]complex128, 1)
	data := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 4)
	*(*float32)(unsafe.Pointer(&data[0])) = float32(lr)
	b.LR.TakeData(lazy.FromLiteralOn(b.LR.Device(), &lazy.Literal{DType: lazy.F32, Dims: []int64{}, Data: data}))
}

// CurrentLR reads the learning rate (a device-to-host read: outside a
// compiled function only).
func (b *Base) CurrentLR() float64 { return b.LR.Item() }

// StepCount reads the number of updates done.
func (b *Base) StepCount() int64 { return int64(b.Steps.Item()) }

func newBase(op string, params []*lazy.Tensor, lr float64, o *options) Base {
	if len(params) == 0 {
		throw(op, nil, "no parameters to optimise")
	}
	seen := map[*lazy.Tensor]bool{}
	for i, p := range params {
		if p == nil {
			throw(op, nil, "parameter %d is nil", i)
		}
		if !p.DType().IsFloat() {
			throw(op, []*lazy.Tensor{p}, "parameter %d is not floating point", i)
		}
		if seen[p] {
			throw(op, []*lazy.Tensor{p}, "parameter %d appears twice", i)
		}
		seen[p] = true
	}
	if !(lr >= 0) {
		throw(op, nil, "learning rate %v must be a number >= 0", lr)
	}
	dev := params[0].Device()
	b := Base{Params: append([]*lazy.Tensor(nil), params...), LR: lazy.FullOn(dev, lazy.F32, lr),
		Steps: lazy.FullOn(dev, lazy.I64, 0), Schedule: o.schedule}
	b.ParamSteps = make([]*lazy.Tensor, len(params))
	for i, p := range params {
		b.ParamSteps[i] = lazy.FullOn(p.Device(), lazy.I64, 0)
	}
	return b
}

// begin validates grads, advances the schedule and returns the learning
// rate of this update (an f32 scalar), writing Steps.
func (b *Base) begin(op string, grads []*lazy.Tensor) (lr *lazy.Tensor) {
	if len(grads) != len(b.Params) {
		throw(op, nil, "%d gradients for %d parameters", len(grads), len(b.Params))
	}
	for i, g := range grads {
		if g != nil && !g.Shape().Equal(b.Params[i].Shape()) {
			throw(op, []*lazy.Tensor{b.Params[i], g}, "gradient %d does not match its parameter", i)
		}
	}
	if b.Schedule != nil {
		lr = b.Schedule.LR(b.Steps.Cast(lazy.F32))
		if lr.Rank() != 0 || lr.DType() != lazy.F32 {
			throw(op, []*lazy.Tensor{lr}, "schedule %T must return an f32 scalar", b.Schedule)
		}
		b.LR.Assign(lr)
	} else {
		lr = b.LR
	}
	b.Steps.Assign(b.Steps.AddScalar(1))
	return lr
}

// update writes v into parameter p as torch.optim does under no_grad: the
// new value keeps no gradient history. Otherwise a pending parameter held
// the IR of the updates that made it, and a Grad taken with respect to
// parameters before the next cut followed that history from one parameter
// into another's last update (a parameter skipped with a nil gradient is
// read by the others' updates), giving another gradient than the same
// step after a Sync or compiled with jit.
func update(p, v *lazy.Tensor) { p.Assign(v.Detach()) }

// paramStep advances parameter i's step count (called only when its
// gradient is not nil) and returns the new count, an i64 scalar: 1 on the
// parameter's first update.
func (b *Base) paramStep(i int) *lazy.Tensor {
	next := b.ParamSteps[i].AddScalar(1)
	b.ParamSteps[i].Assign(next)
	return next
}

// UpgradeCheckpoint completes an optimizer checkpoint saved before step
// counts were kept per parameter: when lits (names under prefix, as
// nn.WithPrefix wrote them) has prefix+"step" and no prefix+"state.<i>.step",
// it adds each parameter's count as the shared one, which is what those
// versions used. It reports whether it added anything; call it between
// nn.ReadFile and nn.AssignState.
func (b *Base) UpgradeCheckpoint(lits map[string]*lazy.Literal, prefix string) bool {
	step, ok := lits[prefix+"step"]
	if !ok {
		return false
	}
	for i := range b.Params {
		if _, ok := lits[fmt.Sprintf("%sstate.%d.step", prefix, i)]; ok {
			return false
		}
	}
	for i := range b.Params {
		lits[fmt.Sprintf("%sstate.%d.step", prefix, i)] = step
	}
	return true
}

// as casts a scalar to the parameter's dtype.
func as(s *lazy.Tensor, p *lazy.Tensor) *lazy.Tensor { return s.Cast(p.DType()) }

func (b *Base) stateDict(slots map[string][]*lazy.Tensor) map[string]*lazy.Tensor {
	out := map[string]*lazy.Tensor{"lr": b.LR, "step": b.Steps}
	for i, t := range b.ParamSteps {
		out[fmt.Sprintf("state.%d.step", i)] = t
	}
	for name, ts := range slots {
		for i, t := range ts {
			if t != nil {
				out[fmt.Sprintf("state.%d.%s", i, name)] = t
			}
		}
	}
	return out
}

// zerosLike makes a zero state slot per parameter, materialised.
func zerosLike(params []*lazy.Tensor, v float64) []*lazy.Tensor {
	out := make([]*lazy.Tensor, len(params))
	for i, p := range params {
		out[i] = lazy.FullOn(p.Device(), p.DType(), v, p.Dims()...)
	}
	return out
}

func materialise(b *Base, slots ...[]*lazy.Tensor) {
	if lazy.Tracing() {
		return
	}
	all := append([]*lazy.Tensor{b.LR, b.Steps}, b.ParamSteps...)
	for _, s := range slots {
		all = append(all, s...)
	}
	if err := lazy.Sync(all...); err != nil {
		panic(err)
	}
}

// Option sets a hyperparameter; each optimizer accepts those it has and
// panics naming any other.
type Option struct {
	name  string
	apply func(*options)
}

type options struct {
	schedule                    Schedule
	momentum, dampening, wd     float64
	nesterov, centered, amsgrad bool
	beta1, beta2, eps, alpha    float64
	lrDecay, initialAccumulator float64
	set                         map[string]bool
}

func opt(name string, f func(*options)) Option { return Option{name, f} }

// WithSchedule computes the learning rate from the step count on the device.
func WithSchedule(s Schedule) Option { return opt("WithSchedule", func(o *options) { o.schedule = s }) }

// Momentum sets SGD's or RMSProp's momentum factor.
func Momentum(m float64) Option { return opt("Momentum", func(o *options) { o.momentum = m }) }

// Dampening sets SGD's momentum dampening.
func Dampening(d float64) Option { return opt("Dampening", func(o *options) { o.dampening = d }) }

// Nesterov makes SGD's momentum Nesterov's.
func Nesterov() Option { return opt("Nesterov", func(o *options) { o.nesterov = true }) }

// WeightDecay sets the L2 penalty (decoupled for AdamW).
func WeightDecay(wd float64) Option { return opt("WeightDecay", func(o *options) { o.wd = wd }) }

// Betas sets Adam's moment decay rates (default 0.9, 0.999).
func Betas(b1, b2 float64) Option {
	return opt("Betas", func(o *options) { o.beta1, o.beta2 = b1, b2 })
}

// Eps sets the term added to denominators.
func Eps(e float64) Option { return opt("Eps", func(o *options) { o.eps = e }) }

// AMSGrad makes Adam keep the maximum of the second moment estimates.
func AMSGrad() Option { return opt("AMSGrad", func(o *options) { o.amsgrad = true }) }

// Alpha sets RMSProp's smoothing constant (default 0.99).
func Alpha(a float64) Option { return opt("Alpha", func(o *options) { o.alpha = a }) }

// Centered makes RMSProp normalise by the estimated variance.
func Centered() Option { return opt("Centered", func(o *options) { o.centered = true }) }

// LRDecay sets Adagrad's learning-rate decay.
func LRDecay(d float64) Option { return opt("LRDecay", func(o *options) { o.lrDecay = d }) }

// InitialAccumulator sets Adagrad's starting sum of squares.
func InitialAccumulator(v float64) Option {
	return opt("InitialAccumulator", func(o *options) { o.initialAccumulator = v })
}

func buildOptions(op string, allowed string, opts []Option, o options) options {
	o.set = map[string]bool{}
	for _, f := range opts {
		if f.apply == nil {
			throw(op, nil, "zero Option")
		}
		if f.name != "WithSchedule" && !strings.Contains(" "+allowed+" ", " "+f.name+" ") {
			throw(op, nil, "option %s does not apply (it takes %s)", f.name, allowed)
		}
		f.apply(&o)
		o.set[f.name] = true
	}
	for _, v := range []struct {
		name string
		v    float64
	}{{"Momentum", o.momentum}, {"Dampening", o.dampening}, {"WeightDecay", o.wd}, {"Eps", o.eps},
		{"LRDecay", o.lrDecay}, {"InitialAccumulator", o.initialAccumulator}} {
		if !(v.v >= 0) {
			throw(op, nil, "%s %v must not be negative", v.name, v.v)
		}
	}
	for _, v := range []struct {
		name string
		v    float64
	}{{"beta1", o.beta1}, {"beta2", o.beta2}, {"Alpha", o.alpha}} {
		if !(v.v >= 0 && v.v < 1) {
			throw(op, nil, "%s %v must be in [0, 1)", v.name, v.v)
		}
	}
	return o
}

// throw panics with a *lazy.Error, as lazy ops and nn layers do.
func throw(op string, ts []*lazy.Tensor, format string, args ...any) {
	var shapes []string
	for _, t := range ts {
		shapes = append(shapes, t.Shape().String())
	}
	site := ""
	pcs := make([]uintptr, 16)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "github.com/xlajit/xlajit/optim.") || strings.HasSuffix(f.File, "_test.go") {
			site = fmt.Sprintf("%s:%d", f.File[strings.LastIndex(f.File, "/")+1:], f.Line)
			break
		}
		if !more {
			break
		}
	}
	panic(&lazy.Error{Op: op, Shapes: shapes, Msg: fmt.Sprintf(format, args...), Site: site})
}
