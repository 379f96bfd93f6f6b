package difftest

import (
	"fmt"
	"reflect"

	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/optim"
)

var (
	tensorType  = reflect.TypeOf((*lazy.Tensor)(nil))
	tensorsType = reflect.TypeOf([]*lazy.Tensor(nil))
	errType     = reflect.TypeOf((*error)(nil)).Elem()
	intType     = reflect.TypeOf(0)
	floatType   = reflect.TypeOf(0.0)
)

// env is the interpreter's state during one call.
type env struct {
	regs    []*lazy.Tensor
	statics []float64
	reads   int // graph-break reads executed
	// want, when set, are the register shapes the analysis expects in this
	// call's variant: a tensor of another shape means the generator's shape
	// rules are wrong, reported as a harness error.
	want []lazy.Shape
	// forms and holders are the holders' forms in this call and the Go
	// values passed for them (Program.Holders).
	forms   []Form
	holders []reflect.Value
	// opt is the program's optimizer (Program.Optim); breaks are the
	// replacing instructions predicted to break a trace (state.breaks),
	// counted as reads.
	opt    optim.Optimizer
	breaks map[int]bool
}

// harnessError is a disagreement between the generator's shape analysis
// and the lazy ops (a bug in difftest, or a shape rule lazy changed).
type harnessError struct{ msg string }

func (e *harnessError) Error() string { return "difftest harness: " + e.msg }

// body runs the program body on args with captures caps: a plain Go
// computation over lazy tensors, exactly what the printed program does.
func (p *Program) body(caps, args []*lazy.Tensor, statics []float64, e *env) []*lazy.Tensor {
	e.regs = append(append(make([]*lazy.Tensor, 0, p.NumRegs()), args...), caps...)
	e.statics = statics
	for k, in := range p.Body {
		if e.breaks[k] {
			e.reads++
		}
		x := make([]*lazy.Tensor, len(in.In))
		for i, r := range in.In {
			x[i] = e.regs[r]
		}
		t := opOf(in.Op).run(in, x, e)
		// (A zero want is a variant the analysis expected to have failed
		// already: a data-dependent size made an op valid after all.)
		if r := len(e.regs); t != nil && e.want != nil && e.want[r].DType != 0 && !anyDyn(e.want[r].Dims) && !dynInputs(in, e.want) && !t.Shape().Equal(e.want[r]) {
			panic(&harnessError{fmt.Sprintf("%s gave %s, the analysis expects %s", in.Op, t.Shape(), e.want[r])})
		}
		markReg(len(e.regs), t) // SPMD mode: the plan's annotations
		e.regs = append(e.regs, t)
	}
	out := make([]*lazy.Tensor, len(p.Results))
	for i, r := range p.Results {
		out[i] = e.regs[r]
	}
	return out
}

// FuncType is the Go type of the program's function.
func (p *Program) FuncType() reflect.Type {
	var in, out []reflect.Type
	if p.SliceArgs {
		in = append(in, tensorsType)
	} else {
		for _, gp := range p.goParams() {
			if gp.holder >= 0 {
				in = append(in, p.Holders[gp.holder].goType())
			} else {
				in = append(in, tensorType)
			}
		}
	}
	if p.optimArg() {
		in = append(in, p.Optim.goType())
	}
	for _, isInt := range p.Statics {
		if isInt {
			in = append(in, intType)
		} else {
			in = append(in, floatType)
		}
	}
	switch {
	case len(p.Outs) > 0:
		for j := range p.Outs {
			out = append(out, p.Outs[j].goType(p))
		}
	case p.SliceRes:
		out = append(out, tensorsType)
	default:
		for range p.Results {
			out = append(out, tensorType)
		}
	}
	if p.ErrResult {
		out = append(out, errType)
	}
	return reflect.FuncOf(in, out, false)
}

// makeFunc returns the program as a Go function value of FuncType closing
// over caps and opt (the optimizer, nil without Program.Optim). reads, when
// not nil, counts the graph-break reads of each call; want, when not nil,
// holds the register shapes the call's variant must give.
func (p *Program) makeFunc(caps []*lazy.Tensor, opt optim.Optimizer, reads *int, want *[]lazy.Shape) reflect.Value {
	ft := p.FuncType()
	var breaks map[int]bool
	if st, err := analyze(p); err == nil {
		breaks = st.breaks
	}
	return reflect.MakeFunc(ft, func(in []reflect.Value) []reflect.Value {
		e := env{opt: opt, breaks: breaks}
		if want != nil {
			e.want = *want
		}
		args, statics := p.unpackArgs(in, &e)
		if reads != nil {
			defer func() { *reads += e.reads }() // a failing call counts its reads too
		}
		outs := p.body(caps, args, statics, &e)
		var res []reflect.Value
		switch {
		case len(p.Outs) > 0:
			for j := range p.Outs {
				res = append(res, p.Outs[j].build(p, &e, outs))
			}
		case p.SliceRes:
			res = append(res, reflect.ValueOf(outs))
		default:
			for _, o := range outs {
				res = append(res, reflect.ValueOf(o))
			}
		}
		if p.ErrResult {
			res = append(res, reflect.Zero(errType))
		}
		return res
	})
}

// unpackArgs is the function's side of its parameters: the tensor
// parameters (read out of their holders, whose forms and values go to e)
// and the statics.
func (p *Program) unpackArgs(in []reflect.Value, e *env) ([]*lazy.Tensor, []float64) {
	var args []*lazy.Tensor
	k := 0
	if p.SliceArgs {
		args = append(args, in[0].Interface().([]*lazy.Tensor)...)
		k = 1
	} else {
		args = make([]*lazy.Tensor, p.NumParams())
		e.forms = make([]Form, len(p.Holders))
		e.holders = make([]reflect.Value, len(p.Holders))
		for _, gp := range p.goParams() {
			if h := gp.holder; h >= 0 {
				e.holders[h] = in[k]
				e.forms[h] = p.Holders[h].extract(in[k], args)
			} else {
				args[gp.param] = in[k].Interface().(*lazy.Tensor)
			}
			k++
		}
	}
	if p.optimArg() {
		e.opt = in[k].Interface().(optim.Optimizer)
		k++
	}
	var statics []float64
	for i, isInt := range p.Statics {
		if isInt {
			statics = append(statics, float64(in[k+i].Int()))
		} else {
			statics = append(statics, in[k+i].Float())
		}
	}
	return args, statics
}

// packArgs builds the reflect arguments of a call from its tensors, the
// values of its holders, the optimizer (passed when Optim.Arg says so) and
// its statics.
func (p *Program) packArgs(args []*lazy.Tensor, hv []reflect.Value, opt optim.Optimizer, statics []float64) []reflect.Value {
	var in []reflect.Value
	if p.SliceArgs {
		in = append(in, reflect.ValueOf(append([]*lazy.Tensor{}, args...)))
	} else {
		for _, gp := range p.goParams() {
			if gp.holder >= 0 {
				in = append(in, hv[gp.holder])
			} else {
				in = append(in, reflect.ValueOf(args[gp.param]))
			}
		}
	}
	if p.optimArg() {
		in = append(in, reflect.ValueOf(opt).Convert(p.Optim.goType()))
	}
	for i, isInt := range p.Statics {
		if isInt {
			in = append(in, reflect.ValueOf(int(statics[i])))
		} else {
			in = append(in, reflect.ValueOf(statics[i]))
		}
	}
	return in
}

// unpackResults splits a call's reflect results into tensors and error;
// with Outs it also returns the Go results themselves (without the error).
func (p *Program) unpackResults(out []reflect.Value) ([]*lazy.Tensor, []reflect.Value, error) {
	var err error
	if p.ErrResult {
		if e := out[len(out)-1]; !e.IsNil() {
			err = e.Interface().(error)
		}
		out = out[:len(out)-1]
	}
	if len(p.Outs) > 0 {
		if err != nil {
			return nil, out, err
		}
		ts := make([]*lazy.Tensor, len(p.Results))
		for j := range p.Outs {
			if !p.Outs[j].collect(out[j], ts) {
				return ts, out, errBadResults
			}
		}
		return ts, out, nil
	}
	if p.SliceRes {
		ts, _ := out[0].Interface().([]*lazy.Tensor)
		if err == nil && len(ts) != len(p.Results) {
			return ts, nil, errBadResults
		}
		return ts, nil, err
	}
	ts := make([]*lazy.Tensor, len(out))
	for i, o := range out {
		ts[i], _ = o.Interface().(*lazy.Tensor)
	}
	return ts, nil, err
}

type resultsError string

func (e resultsError) Error() string { return string(e) }

const errBadResults = resultsError("difftest: wrong number of results")

// dynInputs reports whether an operand of in has a data-dependent size in
// the analysis (broadcasting against it is decided by the data).
func dynInputs(in Instr, want []lazy.Shape) bool {
	for _, r := range in.In {
		if r < len(want) && anyDyn(want[r].Dims) {
			return true
		}
	}
	return false
}
