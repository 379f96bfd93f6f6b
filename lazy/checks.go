package lazy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// Run-time checks (RATIONALE.md: "Why run-time checks are program
// results?"). Some errors depend on values, not shapes: an index out of
// range in IndexSelect, a class label outside [0, C) in CrossEntropy, an
// integer remainder by zero. PyTorch raises for them; here the program
// computes a bool "all good" per check alongside its results, the cut (or
// jit replay) reads them after the execution and fails with an error naming
// the op instead of storing results.
//
// In the IR a check is the op Check(value, ok): it returns value and makes
// the boolean scalar ok a result of every program that computes the value.
// Lowered programs return the flags of all their checks, in graph order, as
// one extra bool[k] result (a bool scalar for one check) whose result
// attribute xlajit.checks lists the messages, so an executable loaded from
// the persistent cache knows them too.

// checkAttr is the result attribute naming a program's check messages.
const checkAttr = "xlajit.checks"

// checked returns v guarded by ok (a bool tensor of any shape, all of whose
// elements must be true): computing the result fails with msg, naming op and
// the shapes of operands, when one is false.
func checked(v, ok *Tensor, op, msg string, operands ...*Tensor) *Tensor {
	flag := allTrue(ok)
	shapes := strings.Join(shapeStrings(shapesOf(operands)), ", ")
	out := apply1(opCheck, Attrs{{"op", op}, {"shapes", shapes}, {"msg", msg}}, v, flag)
	if n := out.val.Node; n != nil && n.op == table[opCheck] && n.stack == nil {
		n.stack = captureStack()
	}
	return out
}

// allTrue reduces a bool tensor to a scalar that is true when every element
// is (an empty tensor is all true).
func allTrue(ok *Tensor) *Tensor {
	if ok.Rank() == 0 {
		return ok
	}
	return apply1(opReduceMin, Attrs{{"axes", seq(0, int64(ok.Rank()))}}, ok)
}

// checkMessage is the text a check's flag stands for in a module.
func checkMessage(a Attrs) string {
	op, msg := checkOpMsg(a)
	return op + "(" + a.Str("shapes") + "): " + msg
}

// checkOpMsg is a Check node's op and message; a node that names neither
// (an fx graph from outside, whose attributes may say anything) still
// gets an error that says what failed.
func checkOpMsg(a Attrs) (op, msg string) {
	op, msg = a.Str("op"), a.Str("msg")
	if op == "" {
		op = "Check"
	}
	if msg == "" {
		msg = "a run-time check failed"
	}
	return op, msg
}

// errCheck is a failed check found by an execution: which one (in graph
// order) and its message.
type errCheck struct {
	index int
	msg   string
}

func (e *errCheck) Error() string { return e.msg }

// checkNodes lists the Check nodes of g in lowering order.
func (g *Graph) checkNodes() []*Node {
	var out []*Node
	for _, n := range g.Nodes {
		if n.op == table[opCheck] {
			out = append(out, n)
		}
	}
	return out
}

// checkError turns a failed check of an execution of g into an *Error
// naming the op, its operand shapes and the call site that built it.
func (g *Graph) checkError(err error) error {
	var ec *errCheck
	if !errors.As(err, &ec) {
		return err
	}
	ns := g.checkNodes()
	if ec.index >= len(ns) {
		return &Error{Op: "Check", Msg: ec.msg}
	}
	n := ns[ec.index]
	var shapes []string
	if s := n.attrs.Str("shapes"); s != "" {
		shapes = strings.Split(s, ", ")
	}
	op, msg := checkOpMsg(n.attrs)
	return &Error{Op: op, Shapes: shapes, Msg: msg, Site: n.Site()}
}

// moduleChecks returns the check messages of a lowered module (nil: none).
func moduleChecks(m *hlo.Module) []string {
	f := m.Entry()
	if f == nil || len(f.ResultAttrs) == 0 {
		return nil
	}
	d := f.ResultAttrs[len(f.ResultAttrs)-1]
	if d == nil {
		return nil
	}
	arr, ok := d.Get(checkAttr).(hlo.ArrayAttr)
	if !ok {
		return nil
	}
	msgs := make([]string, len(arr))
	for i, a := range arr {
		s, _ := a.(hlo.StringAttr)
		msgs[i] = string(s)
	}
	return msgs
}

// hostLiteral is a buffer whose storage is a host literal it can lend
// (the embedded device's): its flags are read without a copy.
type hostLiteral interface{ Literal() *hlo.Literal }

// verifyChecks reads the flags result of an execution (the last one),
// frees it and returns the other results, or an *errCheck for the first
// failed check (freeing every result).
func verifyChecks(msgs []string, out []pjrt.Buffer) ([]pjrt.Buffer, error) {
	if len(out) == 0 {
		return nil, fmt.Errorf("lazy: program with %d checks returned no results", len(msgs))
	}
	flags := out[len(out)-1]
	out = out[:len(out)-1]
	var l *hlo.Literal
	var err error
	if h, ok := flags.(hostLiteral); ok {
		l = h.Literal() // read in place, before the buffer goes
	} else {
		l, err = flags.ToHost()
	}
	if err == nil && l.NumElements() != len(msgs) {
		err = fmt.Errorf("lazy: program returned %d check flags for %d checks", l.NumElements(), len(msgs))
	}
	if err == nil {
		err = checkFlags(msgs, l.Data)
	}
	flags.Delete()
	if err != nil {
		for _, b := range out {
			b.Delete()
		}
		return nil, err
	}
	return out, nil
}

// checkFlags is the *errCheck of the first of msgs whose flag (one byte
// per check) is false, or nil.
func checkFlags(msgs []string, flags []byte) error {
	if len(flags) != len(msgs) {
		return fmt.Errorf("lazy: program returned %d bytes of check flags for %d checks", len(flags), len(msgs))
	}
	for i, f := range flags {
		if f == 0 {
			return &errCheck{index: i, msg: msgs[i]}
		}
	}
	return nil
}

// resultReader is an executable that can read its last results as bytes
// instead of handing them out as buffers, keeping their storage for its
// next execution, and append the other buffers to a caller's list (the
// embedded device): check flags, read and dropped after every execution,
// then cost no allocation.
type resultReader interface {
	ExecuteReading(args []pjrt.Buffer, opts pjrt.ExecuteOptions, out []pjrt.Buffer, nRead int, dst []byte) ([]pjrt.Buffer, []byte, error)
}

// lowerChecks returns the graph's results with the check flags appended as
// one bool[k] result (a scalar for one check), and the result attributes
// that name the checks.
func (lc *LowerCtx) lowerChecks(outs []*hlo.Value) ([]*hlo.Value, []*hlo.DictAttr) {
	if len(lc.checks) == 0 {
		return outs, nil
	}
	msgs := make(hlo.ArrayAttr, len(lc.checks))
	for i, c := range lc.checks {
		msgs[i] = hlo.StringAttr(c.msg)
	}
	// One check's flag is returned as it is, a scalar: reshaped to bool[1]
	// it would be a view, which the device copies before handing it out.
	all := lc.checks[0].flag
	if len(lc.checks) > 1 {
		flags := make([]*hlo.Value, len(lc.checks))
		for i, c := range lc.checks {
			flags[i] = lc.S.Reshape(c.flag, 1)
		}
		all = lc.S.Concatenate(0, flags...)
	}
	attrs := make([]*hlo.DictAttr, len(outs)+1)
	attrs[len(outs)] = &hlo.DictAttr{{Name: checkAttr, Value: msgs}}
	return append(outs, all), attrs
}

type loweredCheck struct {
	flag *hlo.Value
	msg  string
}

func init() {
	define(opCheck, &OpDef{
		Name: "Check",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if !in[1].Equal(NewShape(Bool)) {
				return nil, fmt.Errorf("check flag must be a bool scalar, got %s", in[1])
			}
			return []Shape{in[0]}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			lc.checks = append(lc.checks, loweredCheck{in[1], checkMessage(n.attrs)})
			return in[:1]
		},
		GoKernel: func(in []*hlo.Literal, a Attrs) ([]*hlo.Literal, error) {
			if in[1].Data[0] == 0 {
				return nil, fmt.Errorf("%s", checkMessage(a))
			}
			return []*hlo.Literal{in[0].Clone()}, nil
		},
		// Checks guard integer values (indices, labels, divisors), which
		// have no gradient.
		NoGrad: true,
	})
}

// preCheck is the program that computes only a graph's check flags: an
// execution that donates inputs runs it first, so
// that a failed check consumes nothing.
type preCheck struct {
	exe    *Executable
	params []int // the program's parameters, as indices of the full program's
	order  []int // its checks, as indices of the full program's checks
	err    error
}

// runPreCheck runs x's checks alone on x's arguments.
func (x *Executable) runPreCheck(args []pjrt.Buffer) error {
	x.preOnce.Do(func() { x.pre = x.buildPreCheck() })
	p := x.pre
	if p.err != nil {
		return p.err
	}
	sc := runPool.Get().(*runScratch)
	defer sc.put()
	sub := sc.bufs[:0]
	for _, k := range p.params {
		sub = append(sub, args[k])
	}
	sc.bufs = sub
	out, err := p.exe.execute(sc, sub, nil)
	if err != nil {
		if ec := (*errCheck)(nil); errors.As(err, &ec) {
			return &errCheck{index: p.order[ec.index], msg: ec.msg}
		}
		return err
	}
	for _, b := range out {
		b.Delete()
	}
	return nil
}

func (x *Executable) buildPreCheck() *preCheck {
	g := x.graph
	if g == nil {
		return &preCheck{err: fmt.Errorf("lazy: program %s has checks but no graph", x.Hash)}
	}
	all := g.checkNodes()
	roots := make([]Value, len(all))
	for i, n := range all {
		roots[i] = Value{n, 0}
	}
	cg := CollectGraph(roots)
	// Only the flags come back: the checked values would be copies of
	// arguments (or new values) made on every execution for nothing.
	cg.checksOnly = true
	h := newHasher()
	h.hash(cg.Hash)
	h.str("checks only")
	cg.Hash = h.sum()
	exe, _, err := compileGraph(x.dev, cg, "checks")
	if err != nil {
		return &preCheck{err: err}
	}
	p := &preCheck{exe: exe}
	for _, n := range cg.Params {
		p.params = append(p.params, g.ParamOf[n])
	}
	index := make(map[*Node]int, len(all))
	for i, n := range all {
		index[n] = i
	}
	for _, n := range cg.checkNodes() {
		p.order = append(p.order, index[n])
	}
	return p
}
