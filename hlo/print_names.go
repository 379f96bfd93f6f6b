package hlo

import "strconv"

// namer assigns printed names to values the way MLIR's SSANameState does,
// so that printed modules match stablehlo-opt:
//   - each region is numbered after its whole parent region, starting from
//     the parent's counters at that point (sibling regions restart from the
//     same counters, and may reuse the same numbers and names);
//   - entry block arguments are arg0, arg1, ... (a counter separate from
//     the value numbers); while arguments are iterArg, chlo.scan arguments
//     input / carry;
//   - constants are named cst (float, complex, quantized) or c (integer);
//     ops with several declared results name them after the results
//     (rng_bit_generator: output_state, output);
//   - a name already used in an enclosing scope gets the suffix _N, where
//     N is one counter shared by all names;
//   - other results are numbered; an op's results form one group per name
//     (%0:2, used as %0#1).
type namer struct {
	names  map[*Value]string // without '%'
	groups map[*Op][]int     // result indexes starting a group
	used   *nameScope

	nextValue, nextArg, nextConflict int
}

type nameScope struct {
	set    map[string]bool
	parent *nameScope
}

func (s *nameScope) has(n string) bool {
	for ; s != nil; s = s.parent {
		if s.set[n] {
			return true
		}
	}
	return false
}

func newNamer() *namer {
	return &namer{names: map[*Value]string{}, groups: map[*Op][]int{}, used: &nameScope{set: map[string]bool{}}}
}

func (n *namer) unique(name string) string {
	if n.used.has(name) {
		for {
			probe := name + "_" + strconv.Itoa(n.nextConflict)
			n.nextConflict++
			if !n.used.has(probe) {
				name = probe
				break
			}
		}
	}
	n.used.set[name] = true
	return name
}

type regionCtx struct {
	r                *Region
	owner            *Op // nil for a function body
	value, arg, conf int
	scope            *nameScope
}

// numberFunc numbers a function starting from the given counters.
func (n *namer) numberFunc(f *Func, value, arg, conf int, scope *nameScope) {
	if f.Body == nil {
		n.nextArg = arg
		for _, a := range f.Args {
			n.names[a] = "arg" + strconv.Itoa(n.nextArg)
			n.nextArg++
		}
		return
	}
	n.run([]regionCtx{{r: f.Body, value: value, arg: arg, conf: conf, scope: scope}})
}

// numberRegionsOf numbers the regions of a top-level op.
func (n *namer) numberRegionsOf(op *Op, value, arg, conf int, scope *nameScope) {
	var stack []regionCtx
	for _, r := range op.Regions {
		stack = append(stack, regionCtx{r: r, owner: op, value: value, arg: arg, conf: conf, scope: scope})
	}
	n.run(stack)
}

// numberLoose numbers a single op and its regions for OpString.
func (n *namer) numberLoose(op *Op) {
	n.nextValue = n.numberOpResults(op, 0)
	n.numberRegionsOf(op, n.nextValue, 0, 0, n.used)
}

func (n *namer) run(stack []regionCtx) {
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n.nextValue, n.nextArg, n.nextConflict = c.value, c.arg, c.conf
		n.used = &nameScope{set: map[string]bool{}, parent: c.scope}
		cur := n.used
		if c.owner != nil {
			n.blockArgNames(c.owner, c.r)
		}
		for bi, b := range c.r.Blocks {
			for _, a := range b.Args {
				if _, done := n.names[a]; done {
					continue
				}
				if bi == 0 {
					n.names[a] = n.unique("arg" + strconv.Itoa(n.nextArg))
					n.nextArg++
				} else {
					n.names[a] = strconv.Itoa(n.nextValue)
					n.nextValue++
				}
			}
			for _, op := range b.Ops {
				n.nextValue = n.numberOpResults(op, n.nextValue)
			}
		}
		for _, b := range c.r.Blocks {
			for _, op := range b.Ops {
				for _, r := range op.Regions {
					stack = append(stack, regionCtx{r: r, owner: op, value: n.nextValue, arg: n.nextArg, conf: n.nextConflict, scope: cur})
				}
			}
		}
	}
}

// blockArgNames applies the names some ops give their region arguments.
func (n *namer) blockArgNames(op *Op, r *Region) {
	if len(r.Blocks) == 0 {
		return
	}
	args := r.Blocks[0].Args
	switch op.Name {
	case "stablehlo.while":
		for _, a := range args {
			n.names[a] = n.unique("iterArg")
		}
	case "chlo.scan":
		nin := 0
		if seg, ok := LookupAttr(op.Attrs, "operandSegmentSizes").(*DenseArrayAttr); ok && len(seg.Ints) == 2 {
			nin = int(seg.Ints[0])
		}
		for i, a := range args {
			if i < nin {
				n.names[a] = n.unique("input")
			} else {
				n.names[a] = n.unique("carry")
			}
		}
	}
}

// numberOpResults names or numbers op's results and returns the next
// value number.
func (n *namer) numberOpResults(op *Op, next int) int {
	if len(op.Results) == 0 {
		return next
	}
	groups := []int{0}
	switch {
	case op.Name == "stablehlo.constant" && len(op.Results) == 1:
		name := "cst"
		if tt, ok := op.Results[0].Type.(*TensorType); ok && tt.Quant == nil && (tt.DType.IsInt() || tt.DType.IsBool()) {
			name = "c"
		}
		n.names[op.Results[0]] = n.unique(name)
	case len(resultNames[op.Name]) == len(op.Results):
		for i, r := range op.Results {
			n.names[r] = n.unique(resultNames[op.Name][i])
			if i > 0 {
				groups = append(groups, i)
			}
		}
	}
	if _, named := n.names[op.Results[0]]; !named {
		n.names[op.Results[0]] = strconv.Itoa(next)
		next++
	}
	n.groups[op] = groups
	return next
}

// groupOf returns the start and size of the result group holding v.
func (n *namer) groupOf(v *Value) (start, size int) {
	gs := n.groups[v.Def]
	if gs == nil {
		return v.Index, 1
	}
	start = 0
	for _, g := range gs {
		if g <= v.Index {
			start = g
		}
	}
	end := len(v.Def.Results)
	for _, g := range gs {
		if g > start {
			end = g
			break
		}
	}
	return start, end - start
}

// ref returns the printed reference to v: %name, %N or %N#k.
func (n *namer) ref(v *Value) string {
	if v == nil {
		return "%<<null>>"
	}
	if v.Def != nil {
		if _, ok := n.groups[v.Def]; ok {
			start, size := n.groupOf(v)
			head := n.names[v.Def.Results[start]]
			if size > 1 {
				return "%" + head + "#" + strconv.Itoa(v.Index-start)
			}
			return "%" + head
		}
	} else if name, ok := n.names[v]; ok {
		return "%" + name
	}
	if v.Name != "" {
		return "%" + v.Name
	}
	return "%<<unknown>>"
}

// resultList prints the left side of an op: %0, %0:2, or %a, %b:2.
func (n *namer) resultList(op *Op) string {
	gs := n.groups[op]
	if gs == nil {
		gs = []int{0}
	}
	s := ""
	for i, g := range gs {
		end := len(op.Results)
		if i+1 < len(gs) {
			end = gs[i+1]
		}
		if i > 0 {
			s += ", "
		}
		name, ok := n.names[op.Results[g]]
		if !ok {
			name = "<<unknown>>"
		}
		s += "%" + name
		if end-g > 1 {
			s += ":" + strconv.Itoa(end-g)
		}
	}
	return s
}
