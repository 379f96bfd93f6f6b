package difftest

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/optim"
)

// The OptimSteps family: an optimizer of package optim over some captured
// tensors (Program.Optim), made before the calls in every mode, and
// OptStep instructions stepping it inside the function: their operands are
// the parameters' registers, then one gradient per parameter, some nil (always, or when a static
// parameter is below 1, which the guard sees). A nil gradient leaves its
// parameter, its state and its step count alone; Steps and the schedule
// advance on every step. The optimizer's state tensors are compared after
// the calls as captures are, and calls may set the learning rate first
// (Call.SetLR, a host-to-device copy the next replay must read).

// OptimSpec is the optimizer of a program.
type OptimSpec struct {
	Kind   string // SGD, Adam, AdamW, RMSProp or Adagrad
	LR     float64
	Params []int // the captures it updates, in order
	// Hyperparameters (those of Kind; zero: the default).
	Momentum, Dampening, WeightDecay, Alpha, LRDecay, InitialAccumulator float64
	Nesterov, AMSGrad, Centered                                          bool
	// Schedule, when set, is a StepDecay from LR halving every Schedule
	// steps (SetLR is then overwritten by each step).
	Schedule int64 `json:",omitempty"`
	// Arg passes the optimizer to the function as its parameter after the
	// tensors (1: its pointer type, 2: an optim.Optimizer), as a training
	// step takes it, instead of the function closing over it. The jit then
	// reaches its parameters both through the argument and as captured
	// tensors.
	Arg int `json:",omitempty"`
}

// goType is the type of the optimizer parameter (Arg).
func (o *OptimSpec) goType() reflect.Type {
	if o.Arg == 2 {
		return reflect.TypeFor[optim.Optimizer]()
	}
	return map[string]reflect.Type{"SGD": reflect.TypeFor[*optim.SGD](), "Adam": reflect.TypeFor[*optim.Adam](),
		"AdamW": reflect.TypeFor[*optim.Adam](), "RMSProp": reflect.TypeFor[*optim.RMSProp](),
		"Adagrad": reflect.TypeFor[*optim.Adagrad]()}[o.Kind]
}

// typeText is goType in Go source.
func (o *OptimSpec) typeText() string {
	return o.goType().String()
}

// optimArg reports whether p passes its optimizer as a parameter.
func (p *Program) optimArg() bool { return p.Optim != nil && p.Optim.Arg > 0 }

// options lists the spec's options as Go source and as values.
func (o *OptimSpec) options() ([]string, []optim.Option) {
	var text []string
	var opts []optim.Option
	add := func(t string, v optim.Option) { text, opts = append(text, "optim."+t), append(opts, v) }
	num := func(name string, v float64, f func(float64) optim.Option) {
		if v != 0 {
			add(fmt.Sprintf("%s(%s)", name, fnum(v)), f(v))
		}
	}
	num("Momentum", o.Momentum, optim.Momentum)
	num("Dampening", o.Dampening, optim.Dampening)
	num("WeightDecay", o.WeightDecay, optim.WeightDecay)
	num("Alpha", o.Alpha, optim.Alpha)
	num("LRDecay", o.LRDecay, optim.LRDecay)
	num("InitialAccumulator", o.InitialAccumulator, optim.InitialAccumulator)
	if o.Nesterov {
		add("Nesterov()", optim.Nesterov())
	}
	if o.AMSGrad {
		add("AMSGrad()", optim.AMSGrad())
	}
	if o.Centered {
		add("Centered()", optim.Centered())
	}
	if o.Schedule > 0 {
		s := optim.StepDecay{Base: o.LR, Gamma: 0.5, Every: o.Schedule}
		add(fmt.Sprintf("WithSchedule(optim.StepDecay{Base: %s, Gamma: 0.5, Every: %d})", fnum(o.LR), o.Schedule), optim.WithSchedule(s))
	}
	return text, opts
}

// make builds the optimizer over the captures caps.
func (o *OptimSpec) make(caps []*lazy.Tensor) optim.Optimizer {
	params := make([]*lazy.Tensor, len(o.Params))
	for i, c := range o.Params {
		params[i] = caps[c]
	}
	_, opts := o.options()
	switch o.Kind {
	case "SGD":
		return optim.NewSGD(params, o.LR, opts...)
	case "Adam":
		return optim.NewAdam(params, o.LR, opts...)
	case "AdamW":
		return optim.NewAdamW(params, o.LR, opts...)
	case "RMSProp":
		return optim.NewRMSProp(params, o.LR, opts...)
	}
	return optim.NewAdagrad(params, o.LR, opts...)
}

// text is the Go statement making the optimizer.
func (o *OptimSpec) text() string {
	var ps []string
	for _, c := range o.Params {
		ps = append(ps, fmt.Sprintf("c%d", c))
	}
	args := append([]string{"[]*lazy.Tensor{" + strings.Join(ps, ", ") + "}", fnum(o.LR)}, func() []string { t, _ := o.options(); return t }()...)
	return fmt.Sprintf("opt := optim.New%s(%s)", o.Kind, strings.Join(args, ", "))
}

// optimState lists the optimizer's state tensors in name order.
func optimState(o optim.Optimizer) []*lazy.Tensor {
	d := o.StateDict()
	names := make([]string, 0, len(d))
	for n := range d {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*lazy.Tensor, len(names))
	for i, n := range names {
		out[i] = d[n]
	}
	return out
}

// optimizer draws the program's optimizer (OptimSteps): one to three new
// float captures for it to update, from the families' own stream.
func (g *gen) optimizer() {
	x := g.aux()
	if !g.f.OptimSteps || !x.chance(10) {
		return
	}
	p := g.p
	o := &OptimSpec{Kind: []string{"SGD", "Adam", "AdamW", "RMSProp", "Adagrad"}[x.r.IntN(5)], LR: []float64{0.1, 0.5, 0.03}[x.r.IntN(3)]}
	for n := 1 + x.r.IntN(3); n > 0; n-- {
		s := shp([]lazy.DType{lazy.F32, lazy.F32, lazy.F64}[x.r.IntN(3)], x.randomDims()...)
		if p.NumParams() > 0 && x.chance(2) && isFloat(p.Variants[0][0].DType) {
			s = p.Variants[0][0] // gradients may come from the first argument
		}
		o.Params = append(o.Params, len(p.Captures))
		p.Captures = append(p.Captures, s)
		p.CapData = append(p.CapData, x.data(s.DType, numel(s.Dims)))
	}
	pickF := func(vs ...float64) float64 { return vs[x.r.IntN(len(vs))] }
	switch o.Kind {
	case "SGD":
		o.Momentum = pickF(0, 0.9, 0.5)
		if o.Momentum > 0 && x.chance(2) {
			o.Nesterov = true
		} else if o.Momentum > 0 {
			o.Dampening = pickF(0, 0.5, 0.1)
		}
	case "Adam", "AdamW":
		o.AMSGrad = x.chance(2)
	case "RMSProp":
		o.Alpha, o.Momentum, o.Centered = pickF(0, 0.9), pickF(0, 0.5), x.chance(2)
	case "Adagrad":
		o.LRDecay, o.InitialAccumulator = pickF(0, 0.1), pickF(0, 0.5)
	}
	o.WeightDecay = pickF(0, 0, 0.1, 0.01)
	if x.chance(4) {
		o.Schedule = 1 + x.r.Int64N(3)
	}
	if x.chance(2) {
		o.Arg = 1 + x.r.IntN(2)
	}
	p.Optim = o
}

// finalStep ends a body that never steps its optimizer with a step (as a
// training step ends).
func (g *gen) finalStep() {
	if g.p.Optim == nil {
		return
	}
	for _, in := range g.p.Body {
		if in.Op == "OptStep" {
			return
		}
	}
	add := func(in Instr) bool {
		k := len(g.p.Body)
		res, errs, fatal := g.st.check(in, k)
		if fatal != nil || !instrAllowed(&g.f, g.st, in, k, res) {
			return false
		}
		g.p.Body = append(g.p.Body, in)
		g.st.add(in, k, res, errs)
		return true
	}
	for try := 0; try < 2; try++ {
		if in, ok := opOf("OptStep").gen(g); ok && add(in) {
			return
		}
		// A parameter may be its own gradient only with RepeatedOperand:
		// compute gradients from the parameters first.
		if try == 0 && g.f.Elementwise {
			for _, c := range g.p.Optim.Params {
				add(Instr{Op: "Tanh", In: []int{g.p.CapReg(c)}})
			}
		}
	}
}

// setLRs has some calls set the learning rate first.
func (g *gen) setLRs() {
	if g.p.Optim == nil {
		return
	}
	x := g.aux()
	for k := 1; k < len(g.p.Calls); k++ {
		if x.chance(3) {
			g.p.Calls[k].SetLR = []float64{0.2, 0.05, 1}[x.r.IntN(3)]
		}
	}
}

// optimValue names the value parameter i of the optimizer holds after the
// step of instruction k (no register's).
func optimValue(k, i int) int { return -(1 << 20) - k*64 - i }

// addOptim records the step of instruction k: every parameter whose
// gradient is not always nil may take a new value (IR of the step, in
// calls whose gradient for it is not nil).
func (st *state) addOptim(in Instr, k int) {
	for i, c := range st.p.Optim.Params {
		root := st.p.CapReg(c)
		if in.I[i] < 0 {
			continue
		}
		st.assigned[root] = true
		st.valOf[root] = optimValue(k, i)
		st.cont[root] = contOwn
		if in.I[i] > 0 {
			st.cont[root] = contUnknown // written in some calls only
		}
		if st.p.optimArg() {
			// The jit traces a call first on stand-ins for the tensors
			// its arguments reach (jit's RATIONALE, "Why aliasing is part
			// of the guard?"): there the step writes the stand-in, and
			// the captured tensor still holds its data. A Restore of its
			// state into a tensor the function made breaks that trace,
			// where the plain function restores IR.
			st.cont[root] = contUnknown
		}
	}
}

// optimWellFormed: a step needs the program's optimizer, its parameters'
// registers, one gradient per parameter, and statics for the gradients that
// depend on one.
func optimWellFormed(p *Program, in Instr) bool {
	o := p.Optim
	n := len(in.In) / 2
	if o == nil || n != len(o.Params) || len(in.In) != 2*n || len(in.I) != n {
		return false
	}
	for i, c := range o.Params {
		if in.In[i] != p.CapReg(c) {
			return false
		}
	}
	for _, c := range in.I {
		if c > int64(len(p.Statics)) || c < -1 {
			return false
		}
	}
	return true
}

// optimAllowed: a step must be well formed (the rules every op follows
// do the rest).
func optimAllowed(f *Features, st *state, in Instr) bool { return optimWellFormed(st.p, in) }

// GradIf returns g when ok, else nil (a gradient a step does without).
func GradIf(ok bool, g *lazy.Tensor) *lazy.Tensor {
	if ok {
		return g
	}
	return nil
}

// stepGrads picks the gradients of a step from its operands after the
// parameters, x: I[i] is 0 for x[i], -1 for nil, and j+1 for x[i] when
// static j is at least 1.
func stepGrads(in Instr, x []*lazy.Tensor, statics []float64) []*lazy.Tensor {
	gs := make([]*lazy.Tensor, len(x))
	for i, g := range x {
		switch c := in.I[i]; {
		case c == 0:
			gs[i] = g
		case c > 0:
			gs[i] = GradIf(statics[c-1] >= 1, g)
		}
	}
	return gs
}

func init() {
	define(&opSpec{
		name: "OptStep", on: func(f *Features) bool { return f.OptimSteps }, kind: kindOptim, void: true, weight: 8,
		gen: func(g *gen) (Instr, bool) {
			o := g.p.Optim
			if o == nil {
				return Instr{}, false
			}
			in := Instr{Op: "OptStep"}
			for _, c := range o.Params {
				in.In = append(in.In, g.p.CapReg(c))
			}
			for _, c := range o.Params {
				p := g.p.CapReg(c)
				r, ok := g.pickWhere(func(r int) bool {
					return g.sameEverywhere(r, p) && (g.f.RepeatedOperand || g.st.value(r) != g.st.value(p))
				})
				if !ok {
					return Instr{}, false
				}
				in.In = append(in.In, r)
				switch x := g.r.IntN(6); {
				case x < 3:
					in.I = append(in.I, 0)
				case x == 3:
					in.I = append(in.I, -1)
				case len(g.p.Statics) > 0:
					in.I = append(in.I, int64(1+g.r.IntN(len(g.p.Statics))))
				default:
					in.I = append(in.I, 0)
				}
			}
			return in, true
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			n := len(s) / 2
			for i := 0; i < n; i++ {
				if !isFloat(s[i].DType) || !s[i].Equal(s[n+i]) {
					return lazy.Shape{}, fmt.Errorf("OptStep: gradient %s for parameter %s", s[n+i], s[i])
				}
			}
			return lazy.Shape{}, nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			e.opt.Step(stepGrads(in, x[len(x)/2:], e.statics))
			return nil
		},
		text: func(in Instr, a []string, d string) string {
			gs := make([]string, len(a)/2)
			for i, n := range a[len(a)/2:] {
				switch c := in.I[i]; {
				case c == 0:
					gs[i] = n
				case c < 0:
					gs[i] = "nil"
				default:
					gs[i] = fmt.Sprintf("difftest.GradIf(float64(%s) >= 1, %s)", staticName(c-1), n)
				}
			}
			return "opt.Step([]*lazy.Tensor{" + strings.Join(gs, ", ") + "})"
		},
	})
}
