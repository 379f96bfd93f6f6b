package gspmd

import (
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// ShardingAttr is the attribute holding a sharding's text on function
// arguments and results and on @Sharding custom calls.
const ShardingAttr = "mhlo.sharding"

// Options control a partitioning.
type Options struct {
	// NumPartitions is the number of devices (partition p runs on device
	// p; tile assignments name devices by partition).
	NumPartitions int
	// PropagateToOutput keeps the layout the partitioner reached for
	// results without an mhlo.sharding; otherwise they are replicated.
	PropagateToOutput bool
}

// Result is a partitioned program.
type Result struct {
	// Module is the program every partition runs: its arguments and
	// results are the shards of the original ones.
	Module *hlo.Module
	// Params and Outputs are the layouts of the arguments and results.
	Params, Outputs []*pjrt.Sharding
	// Reshards lists the layout changes with communication that ops
	// needed (not the ones annotations asked for).
	Reshards []pjrt.Reshard
	// Collectives counts the collectives of Module by op name without
	// the dialect ("all_reduce").
	Collectives map[string]int
}

// Partition turns m, a program over whole tensors whose entry function's
// arguments, results and @Sharding custom calls may carry mhlo.sharding
// annotations, into one program that each of opts.NumPartitions devices
// runs on its shards, communicating through collectives.
func Partition(m *hlo.Module, opts Options) (res *Result, err error) {
	if opts.NumPartitions < 1 {
		return nil, fmt.Errorf("gspmd: %d partitions", opts.NumPartitions)
	}
	entry := m.Entry()
	if entry == nil || entry.Body == nil {
		return nil, fmt.Errorf("gspmd: module has no entry function with a body")
	}
	if len(m.Funcs) != 1 {
		return nil, fmt.Errorf("gspmd: module has %d functions; the partitioner handles one (the entry function)", len(m.Funcs))
	}
	if len(entry.Body.Blocks) != 1 {
		return nil, fmt.Errorf("gspmd: entry function has %d blocks, want 1", len(entry.Body.Blocks))
	}
	p := newPass(m, opts)
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(passError)
			if !ok {
				panic(r)
			}
			res, err = nil, pe.err
		}
	}()
	return p.run(entry)
}

// passError carries an error out of the rules (recovered in Partition).
type passError struct{ err error }

func (p *pass) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if p.cur != nil {
		msg = fmt.Sprintf("%s (%s): %s", p.cur.Name, p.cur.Loc, msg)
	}
	panic(passError{fmt.Errorf("gspmd: %s", msg)})
}

// pval is the partitioned form of one value of the original program.
type pval struct {
	typ *hlo.TensorType // the whole tensor's type
	lay *layout         // how local holds it
	// local is the value in lay; nil for a value only gen can make.
	local *hlo.Value
	// gen, when set, makes the value in any layout without communication
	// (iota, splat constants, broadcasts of replicated values).
	gen func(l *layout, count bool) *hlo.Value
	// cache of materializations in other layouts, by layout key.
	cache map[string]*hlo.Value
	// manual: each device's own value (typ is its shape); ops on it run
	// as written.
	manual bool
}

type pass struct {
	n    int
	opts Options
	src  *hlo.Module
	b    *hlo.Builder
	f    *hlo.FuncBuilder
	vals map[*hlo.Value]*pval
	cur  *hlo.Op // the op being partitioned

	pid     *hlo.Value            // partition id (ui32 scalar), made on first use
	tables  map[string]*hlo.Value // per-partition scalars by content
	channel int64

	reshards []pjrt.Reshard
}

func newPass(m *hlo.Module, opts Options) *pass {
	b := hlo.NewBuilder(m.Name)
	b.SetLocations(false)
	for _, a := range m.Attrs {
		b.SetAttr(a.Name, a.Value)
	}
	return &pass{n: opts.NumPartitions, opts: opts, src: m, b: b, vals: map[*hlo.Value]*pval{}, tables: map[string]*hlo.Value{}}
}

func (p *pass) run(entry *hlo.Func) (*Result, error) {
	p.f = p.b.Func(entry.Name)
	res := &Result{}
	for i, a := range entry.Args {
		tt := a.TensorType()
		if tt == nil || !tt.IsStatic() {
			return nil, fmt.Errorf("gspmd: argument %d has type %s; the partitioner handles static tensors", i, a.Type)
		}
		s, err := shardingAttr(argAttrs(entry, i))
		if err != nil {
			return nil, fmt.Errorf("gspmd: argument %d: %w", i, err)
		}
		l, err := layoutOf(s, tt.Rank(), p.n)
		if err != nil {
			return nil, fmt.Errorf("gspmd: argument %d: %w", i, err)
		}
		canon, _ := l.sharding()
		res.Params = append(res.Params, canon)
		var keep []hlo.NamedAttr
		if d := argAttrs(entry, i); d != nil {
			for _, na := range *d {
				if na.Name != ShardingAttr {
					keep = append(keep, na)
				}
			}
		}
		local := p.f.ArgWithAttrs(hlo.NewTensorType(tt.DType, l.shardDims(tt.Dims)...), keep...)
		p.vals[a] = &pval{typ: tt, lay: l, local: local}
	}
	ops := entry.Body.Blocks[0].Ops
	for _, op := range ops {
		if op.Name == "func.return" {
			return p.finish(entry, op, res)
		}
		p.cur = op
		p.partitionOp(op)
		if err := p.b.Err(); err != nil {
			return nil, fmt.Errorf("gspmd: %s (%s): %w", op.Name, op.Loc, err)
		}
		p.cur = nil
	}
	return nil, fmt.Errorf("gspmd: entry function has no func.return")
}

func argAttrs(f *hlo.Func, i int) *hlo.DictAttr {
	if i < len(f.ArgAttrs) {
		return f.ArgAttrs[i]
	}
	return nil
}

// shardingAttr reads mhlo.sharding from an attribute dictionary (nil: none).
func shardingAttr(d *hlo.DictAttr) (*pjrt.Sharding, error) {
	if d == nil {
		return nil, nil
	}
	a := d.Get(ShardingAttr)
	if a == nil {
		return nil, nil
	}
	text, ok := hlo.AttrStr(a)
	if !ok {
		return nil, fmt.Errorf("%s is %s, not a string", ShardingAttr, hlo.AttrString(a))
	}
	return pjrt.ParseSharding(text)
}

func (p *pass) finish(entry *hlo.Func, ret *hlo.Op, res *Result) (*Result, error) {
	p.cur = ret
	outs := make([]*hlo.Value, len(ret.Operands))
	var attrs []*hlo.DictAttr
	for i, v := range ret.Operands {
		pv := p.val(v)
		if pv.manual {
			return nil, fmt.Errorf("gspmd: result %d is a manual value; leave the manual region (SPMDShardToFullShape) first", i)
		}
		var ra *hlo.DictAttr
		if i < len(entry.ResultAttrs) {
			ra = entry.ResultAttrs[i]
		}
		want, err := shardingAttr(ra)
		if err != nil {
			return nil, fmt.Errorf("gspmd: result %d: %w", i, err)
		}
		var target *layout
		switch {
		case want != nil:
			if target, err = layoutOf(want, pv.typ.Rank(), p.n); err != nil {
				return nil, fmt.Errorf("gspmd: result %d: %w", i, err)
			}
		case p.opts.PropagateToOutput:
			target = pv.lay
			if _, ok := target.sharding(); !ok {
				target = replicatedLayout(pv.typ.Rank(), p.n)
			}
		default:
			target = replicatedLayout(pv.typ.Rank(), p.n)
		}
		outs[i] = p.get(v, target, false)
		s, _ := target.sharding()
		res.Outputs = append(res.Outputs, s)
		var keep hlo.DictAttr
		if ra != nil {
			for _, na := range *ra {
				if na.Name != ShardingAttr {
					keep = append(keep, na)
				}
			}
		}
		if len(keep) > 0 {
			if attrs == nil {
				attrs = make([]*hlo.DictAttr, len(ret.Operands))
			}
			attrs[i] = &keep
		}
	}
	p.f.ReturnWithAttrs(outs, attrs)
	m, err := p.b.Build()
	if err != nil {
		return nil, fmt.Errorf("gspmd: partitioned program: %w", err)
	}
	res.Module = m
	res.Reshards = p.reshards
	res.Collectives = countCollectives(m)
	return res, nil
}

func countCollectives(m *hlo.Module) map[string]int {
	out := map[string]int{}
	for _, f := range m.Funcs {
		f.Body.Walk(func(op *hlo.Op) bool {
			switch op.Name {
			case "stablehlo.all_reduce", "stablehlo.all_gather", "stablehlo.reduce_scatter",
				"stablehlo.all_to_all", "stablehlo.collective_permute", "stablehlo.collective_broadcast":
				out[strings.TrimPrefix(op.Name, "stablehlo.")]++
			}
			return true
		})
	}
	return out
}

// val returns the partitioned form of an original value.
func (p *pass) val(v *hlo.Value) *pval {
	pv := p.vals[v]
	if pv == nil {
		p.fail("operand of type %s is not defined in the entry block (values captured by regions are not supported here)", v.Type)
	}
	return pv
}

// set records the partitioned form of an original value.
func (p *pass) set(v *hlo.Value, local *hlo.Value, l *layout) {
	tt := v.TensorType()
	if tt == nil {
		p.fail("result of type %s: the partitioner handles tensors only", v.Type)
	}
	p.vals[v] = &pval{typ: tt, lay: l, local: local}
}

// setGen records a value that can be made in any layout locally; natural
// is the layout it takes when nothing asks for another.
func (p *pass) setGen(v *hlo.Value, natural *layout, gen func(l *layout, count bool) *hlo.Value) {
	p.vals[v] = &pval{typ: v.TensorType(), lay: natural, gen: gen}
}

// partitionOp applies the op's rule, or the fallback.
func (p *pass) partitionOp(op *hlo.Op) {
	for _, r := range op.Results {
		if tt := r.TensorType(); tt == nil || !tt.IsStatic() {
			p.fallback(op)
			return
		}
	}
	if op.Name != "stablehlo.custom_call" && p.anyManual(op) {
		ruleManual(p, op)
		return
	}
	if rule := rules[op.Name]; rule != nil {
		rule(p, op)
		return
	}
	if isElementwise(op.Name) {
		ruleElementwise(p, op)
		return
	}
	p.fallback(op)
}

// rules maps op names to their partitioning rule (elementwise ops are
// recognized by isElementwise).
var rules map[string]func(p *pass, op *hlo.Op)

func init() {
	rules = map[string]func(p *pass, op *hlo.Op){
		"stablehlo.constant":           ruleConstant,
		"stablehlo.iota":               ruleIota,
		"stablehlo.broadcast_in_dim":   ruleBroadcast,
		"stablehlo.transpose":          ruleTranspose,
		"stablehlo.reshape":            ruleReshape,
		"stablehlo.dot_general":        ruleDot,
		"stablehlo.reduce":             ruleReduce,
		"stablehlo.custom_call":        ruleCustomCall,
		"stablehlo.gather":             ruleGather,
		"stablehlo.scatter":            ruleScatter,
		"stablehlo.slice":              ruleSlice,
		"stablehlo.pad":                rulePad,
		"stablehlo.reverse":            ruleReverse,
		"stablehlo.concatenate":        ruleConcat,
		"stablehlo.convolution":        ruleConvolution,
		"stablehlo.reduce_window":      ruleReduceWindow,
		"stablehlo.select_and_scatter": ruleSelectAndScatter,
		"stablehlo.sort":               ruleSort,
	}
}

var elementwise = map[string]bool{}

func init() {
	for _, n := range []string{
		"abs", "negate", "exponential", "exponential_minus_one", "log", "log_plus_one", "sqrt", "rsqrt",
		"cbrt", "tanh", "logistic", "sine", "cosine", "tan", "floor", "ceil", "round_nearest_even",
		"round_nearest_afz", "sign", "not", "is_finite", "real", "imag", "popcnt", "count_leading_zeros",
		"convert", "reduce_precision",
		"add", "subtract", "multiply", "divide", "remainder", "power", "maximum", "minimum", "atan2",
		"and", "or", "xor", "shift_left", "shift_right_arithmetic", "shift_right_logical", "complex",
		"compare", "select", "clamp",
	} {
		elementwise["stablehlo."+n] = true
	}
	for _, n := range []string{"erf", "erfc", "lgamma", "digamma", "acos", "asin", "atan", "acosh", "asinh", "atanh", "cosh", "sinh", "erf_inv", "next_after", "polygamma", "zeta", "is_inf", "is_neg_inf", "is_pos_inf", "conj"} {
		elementwise["chlo."+n] = true
	}
}

func isElementwise(name string) bool { return elementwise[name] }

// localType is the local type of a whole type under l.
func localType(t *hlo.TensorType, l *layout) *hlo.TensorType {
	return hlo.NewTensorType(t.DType, l.shardDims(t.Dims)...)
}

// emit adds an op on local operands with given local result types and
// returns its results, carrying the original op's location.
func (p *pass) emit(name string, operands []*hlo.Value, attrs []hlo.NamedAttr, regions []*hlo.Region, types ...hlo.Type) []*hlo.Value {
	out := p.f.OpWithRegions(name, operands, attrs, regions, types...)
	if p.cur != nil && len(out) > 0 && out[0].Def != nil {
		out[0].Def.Loc = p.cur.Loc
	}
	return append([]*hlo.Value(nil), out...) // not the op's own result list
}
