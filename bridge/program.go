package bridge

import (
	"fmt"
	"slices"
	"sync"

	"github.com/xlajit/xlajit/lazy"
)

// Run replays the program: args and captures supply the placeholders (in
// the order Trace saw them), pending ones are computed first, the
// executable runs by hash, results are written into mutated inputs and the
// outputs returned (an input passed through unchanged comes back as itself).
func (p *Program) Run(args, captures []*lazy.Tensor) ([]*lazy.Tensor, error) {
	return p.RunInto(nil, args, captures)
}

// RunInto is Run appending the outputs to dst (a caller's buffer, which
// it may keep on its stack: the output list then costs no allocation).
func (p *Program) RunInto(dst, args, captures []*lazy.Tensor) ([]*lazy.Tensor, error) {
	if len(args) != len(p.argShapes) || len(captures) != len(p.capShapes) {
		return nil, fmt.Errorf("bridge: program takes %d arguments and %d captures, got %d and %d",
			len(p.argShapes), len(p.capShapes), len(args), len(captures))
	}
	if err := checkNil(args, captures); err != nil {
		return nil, err
	}
	if exe := p.Direct(); exe != nil {
		return exe.RunDonatingInto(dst, args, nil)
	}
	return p.run(dst, args, captures)
}

// checkNil reports the first nil tensor of args and captures.
func checkNil(args, captures []*lazy.Tensor) error {
	for i, t := range args {
		if t == nil {
			return fmt.Errorf("bridge: argument %d is a nil tensor", i)
		}
	}
	for i, t := range captures {
		if t == nil {
			return fmt.Errorf("bridge: capture %d is a nil tensor", i)
		}
	}
	return nil
}

// Direct returns the executable whose run on the arguments is the replay,
// when the arguments are the program's parameters and its outputs the
// executable's results, nothing is written back and the executable was
// not evicted; nil otherwise.
func (p *Program) Direct() *lazy.Executable {
	if !p.direct {
		return nil
	}
	if exe := p.exe.Load(); !exe.Evicted() {
		return exe
	}
	return nil
}

func (p *Program) run(dst, args, captures []*lazy.Tensor) ([]*lazy.Tensor, error) {
	get := func(s source) *lazy.Tensor {
		if s.capture {
			return captures[s.index]
		}
		return args[s.index]
	}
	// Lists longer than the stack's take pooled ones.
	var rb *runLists
	lists := func() *runLists {
		if rb == nil {
			rb = runListPool.Get().(*runLists)
		}
		return rb
	}
	defer func() {
		if rb != nil {
			rb.put()
		}
	}()
	var res []*lazy.Tensor
	if exe := p.exe.Load(); exe != nil {
		if exe.Evicted() {
			var err error
			if exe, err = exe.Recompile(); err != nil {
				return nil, err
			}
			p.exe.Store(exe)
		}
		ins := args // the common case: parameters are the arguments in order
		if !p.paramsAreArgs {
			// No allocation for up to 16 parameters. The two loops are
			// apart so that buf never flows into the pooled list (one
			// loop storing back into l.ins makes buf escape: a warm
			// call then allocates once more).
			var buf [16]*lazy.Tensor
			if len(p.params) > len(buf) {
				l := lists()
				for _, s := range p.params {
					l.ins = append(l.ins, get(s))
				}
				ins = l.ins
			} else {
				ins = buf[:0]
				for _, s := range p.params {
					ins = append(ins, get(s))
				}
			}
		}
		if len(p.muts) == 0 && p.identity {
			return exe.RunDonatingInto(dst, ins, p.overwritten)
		}
		// The results are only picked from: their list stays on the stack
		// (for up to 16), returned nowhere.
		var resBuf [16]*lazy.Tensor
		var err error
		if exe.NOut > len(resBuf) {
			l := lists()
			l.res, err = exe.RunDonatingInto(l.res, ins, p.overwritten)
			res = l.res
		} else {
			res, err = exe.RunDonatingInto(resBuf[:0], ins, p.overwritten)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(p.muts) == 0 && p.identity {
		return nil, nil // no program: nothing to return
	}
	pick := func(r outRef) *lazy.Tensor {
		if r.root < 0 {
			return get(r.src)
		}
		return res[r.root]
	}
	outs := dst
	if outs == nil {
		outs = make([]*lazy.Tensor, 0, len(p.outs))
	}
	for i, r := range p.outs {
		o := pick(r)
		if r.root < 0 && p.written[r.src] {
			// An input passed through and also written: the output is its
			// value before the write (when the function returned that very
			// tensor, the jit returns the caller's tensor instead).
			o = o.Share()
		} else if p.repeat[i] {
			// Another output is this value too, but the traced function
			// returned two tensors: so does the replay.
			o = o.Share()
		}
		outs = append(outs, o)
	}
	// Read every written value before writing any (a swap of two inputs).
	// A result written into one input only moves there, keeping its buffer
	// to one holder.
	var stateBuf [16]lazy.TensorState // no allocation for up to 16 writes
	states := stateBuf[:0]
	if len(p.muts) > len(stateBuf) {
		l := lists()
		l.states = slices.Grow(l.states, len(p.muts))
		states = l.states
	}
	states = states[:len(p.muts)]
	for i, m := range p.muts {
		if p.move[i] {
			states[i] = pick(m.val).Release()
		} else {
			states[i] = pick(m.val).TransientState()
		}
	}
	for i, m := range p.muts {
		get(m.target).Restore(states[i])
	}
	return outs, nil
}

// runLists are a replay's lists of parameters, results and written states
// when they are longer than its stack's (a model with an optimizer's state
// writes dozens of tensors), pooled.
type runLists struct {
	ins, res []*lazy.Tensor
	states   []lazy.TensorState
}

var runListPool = sync.Pool{New: func() any { return new(runLists) }}

// put drops the lists' references and pools rb with its lists empty.
func (rb *runLists) put() {
	clear(rb.ins[:cap(rb.ins)])
	clear(rb.res[:cap(rb.res)])
	clear(rb.states[:cap(rb.states)])
	rb.ins, rb.res, rb.states = rb.ins[:0], rb.res[:0], rb.states[:0]
	runListPool.Put(rb)
}
