package difftest

import (
	"fmt"
	"reflect"

	"github.com/xlajit/xlajit/lazy"
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
	for _, in := range p.Body {
		x := make([]*lazy.Tensor, len(in.In))
		for i, r := range in.In {
			x[i] = e.regs[r]
		}
		t := opOf(in.Op).run(in, x, e)
		// (A zero want is a variant the analysis expected to have failed
		// already: a data-dependent size made an op valid after all.)
		if r := len(e.regs); t != nil && e.want != nil && e.want[r].DType != 0 && !anyDyn(e.want[r].Dims) && !t.Shape().Equal(e.want[r]) {
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
		for range p.NumParams() {
			in = append(in, tensorType)
		}
	}
	for _, isInt := range p.Statics {
		if isInt {
			in = append(in, intType)
		} else {
			in = append(in, floatType)
		}
	}
	if p.SliceRes {
		out = append(out, tensorsType)
	} else {
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
// over caps. reads, when not nil, counts the graph-break reads of each call.
func (p *Program) makeFunc(caps []*lazy.Tensor, reads *int, want *[]lazy.Shape) reflect.Value {
	ft := p.FuncType()
	return reflect.MakeFunc(ft, func(in []reflect.Value) []reflect.Value {
		args, statics := p.unpackArgs(in)
		e := env{want: *want}
		if reads != nil {
			defer func() { *reads += e.reads }() // a failing call counts its reads too
		}
		outs := p.body(caps, args, statics, &e)
		var res []reflect.Value
		if p.SliceRes {
			res = append(res, reflect.ValueOf(outs))
		} else {
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

func (p *Program) unpackArgs(in []reflect.Value) ([]*lazy.Tensor, []float64) {
	var args []*lazy.Tensor
	k := 0
	if p.SliceArgs {
		args = append(args, in[0].Interface().([]*lazy.Tensor)...)
		k = 1
	} else {
		for ; k < p.NumParams(); k++ {
			args = append(args, in[k].Interface().(*lazy.Tensor))
		}
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

// packArgs builds the reflect arguments of a call.
func (p *Program) packArgs(args []*lazy.Tensor, statics []float64) []reflect.Value {
	var in []reflect.Value
	if p.SliceArgs {
		in = append(in, reflect.ValueOf(append([]*lazy.Tensor{}, args...)))
	} else {
		for _, a := range args {
			in = append(in, reflect.ValueOf(a))
		}
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

// unpackResults splits a call's reflect results into tensors and error.
func (p *Program) unpackResults(out []reflect.Value) ([]*lazy.Tensor, error) {
	var err error
	if p.ErrResult {
		if e := out[len(out)-1]; !e.IsNil() {
			err = e.Interface().(error)
		}
		out = out[:len(out)-1]
	}
	if p.SliceRes {
		ts, _ := out[0].Interface().([]*lazy.Tensor)
		if err == nil && len(ts) != len(p.Results) {
			return ts, errBadResults
		}
		return ts, err
	}
	ts := make([]*lazy.Tensor, len(out))
	for i, o := range out {
		ts[i], _ = o.Interface().(*lazy.Tensor)
	}
	return ts, err
}

type resultsError string

func (e resultsError) Error() string { return string(e) }

const errBadResults = resultsError("difftest: wrong number of results")
