package difftest

import (
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/lazy"
)

// regName names register r in printed programs: a0.. parameters, c0..
// captures, tN locals.
func (p *Program) regName(r int) string {
	switch {
	case r < p.NumParams():
		return fmt.Sprintf("a%d", r)
	case r < p.InstrReg(0):
		return fmt.Sprintf("c%d", r-p.NumParams())
	}
	return fmt.Sprintf("t%d", r)
}

// Text prints the program as Go: the captured tensors, the function, and
// the calls made to its compiled form (each call's input data included).
// It compiles as the body of a test in a package importing lazy, jit and
// difftest (math too when the data holds NaN or infinities, optim with an
// optimizer).
func (p *Program) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "// difftest seed %d, features %s\n", p.Seed, p.Features)
	for v, shapes := range p.Variants {
		var s []string
		for i, x := range shapes {
			s = append(s, fmt.Sprintf("a%d %s", i, x))
		}
		fmt.Fprintf(&b, "// input variant %d: %s\n", v, strings.Join(s, ", "))
	}
	if sp := p.Shardings; sp != nil {
		fmt.Fprintf(&b, "// spmd mode: mesh %v of devices %v; parameter specs %v, capture specs %v, annotated instructions %v\n", sp.Mesh, sp.Order, sp.Params, sp.Caps, sp.Marks)
	}
	if c := p.Conc; c != nil {
		fmt.Fprintf(&b, "// jit-concurrent mode: %d goroutines call jf (and f, in step) from different calls on", c.Goroutines)
		if c.Partner != nil {
			fmt.Fprintf(&b, ", as many goroutines the partner program printed at the end")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "lazy.ManualSeed(%d)\n", p.Seed)
	p.typeDecls(&b)
	for c, s := range p.Captures {
		fmt.Fprintf(&b, "c%d := %s\n_ = c%d\n", c, fromDataText(s, p.CapData[c]), c)
	}
	if p.Optim != nil {
		fmt.Fprintf(&b, "%s\n_ = opt\n", p.Optim.text())
	}
	// Signature.
	var params []string
	if p.SliceArgs {
		params = append(params, "args []*lazy.Tensor")
	} else if len(p.Holders) > 0 {
		for _, gp := range p.goParams() {
			if gp.holder >= 0 {
				params = append(params, p.holderParam(gp.holder)+" "+p.holderTypeText(gp.holder))
			} else {
				params = append(params, fmt.Sprintf("a%d *lazy.Tensor", gp.param))
			}
		}
	} else if p.NumParams() > 0 {
		var names []string
		for i := 0; i < p.NumParams(); i++ {
			names = append(names, fmt.Sprintf("a%d", i))
		}
		params = append(params, strings.Join(names, ", ")+" *lazy.Tensor")
	}
	if p.optimArg() {
		params = append(params, "opt "+p.Optim.typeText())
	}
	for i, isInt := range p.Statics {
		t := "float64"
		if isInt {
			t = "int"
		}
		params = append(params, fmt.Sprintf("%s %s", staticName(int64(i)), t))
	}
	var results []string
	switch {
	case len(p.Outs) > 0:
		for j := range p.Outs {
			results = append(results, p.valueTypeText(j, &p.Outs[j]))
		}
	case p.SliceRes:
		results = append(results, "[]*lazy.Tensor")
	default:
		for range p.Results {
			results = append(results, "*lazy.Tensor")
		}
	}
	if p.ErrResult {
		results = append(results, "error")
	}
	res := strings.Join(results, ", ")
	if len(results) > 1 {
		res = "(" + res + ")"
	}
	fmt.Fprintf(&b, "f := func(%s) %s {\n", strings.Join(params, ", "), res)
	if p.SliceArgs && p.NumParams() > 0 {
		var names, vals []string
		for i := 0; i < p.NumParams(); i++ {
			names = append(names, fmt.Sprintf("a%d", i))
			vals = append(vals, fmt.Sprintf("args[%d]", i))
		}
		fmt.Fprintf(&b, "\t%s := %s\n", strings.Join(names, ", "), strings.Join(vals, ", "))
		fmt.Fprintf(&b, "\t%s = %s\n", strings.TrimSuffix(strings.Repeat("_, ", len(names)), ", "), strings.Join(names, ", "))
	}
	p.holderText(&b)
	used := p.usedRegs()
	for k, in := range p.Body {
		a := make([]string, len(in.In))
		for i, r := range in.In {
			a[i] = p.regName(r)
		}
		d := p.regName(p.InstrReg(k))
		if !used[p.InstrReg(k)] && !opOf(in.Op).void {
			d = "_"
			if strings.HasPrefix(opOf(in.Op).text(in, a, "X"), "var ") {
				d = p.regName(p.InstrReg(k))
			}
		}
		line := opOf(in.Op).text(in, a, d)
		if d == "_" {
			line = strings.Replace(line, "_ := ", "_ = ", 1)
		}
		fmt.Fprintf(&b, "\t%s\n", line)
		if strings.HasPrefix(line, "var ") && !used[p.InstrReg(k)] {
			fmt.Fprintf(&b, "\t_ = %s\n", d)
		}
	}
	var rs []string
	for _, r := range p.Results {
		rs = append(rs, p.regName(r))
	}
	if len(p.Outs) > 0 {
		rs = rs[:0]
		for j := range p.Outs {
			rs = append(rs, p.valueText(j, &p.Outs[j]))
		}
	}
	ret := strings.Join(rs, ", ")
	if p.SliceRes {
		ret = "[]*lazy.Tensor{" + ret + "}"
	}
	if p.ErrResult {
		if ret != "" {
			ret += ", "
		}
		ret += "nil"
	}
	if ret != "" {
		fmt.Fprintf(&b, "\treturn %s\n", ret)
	}
	b.WriteString("}\n")
	b.WriteString("jf := jit.Compile(f) // and once more with f itself, in lazy and eager mode\n")
	for k, c := range p.Calls {
		fmt.Fprintf(&b, "// call %d (input variant %d)\n", k, c.Variant)
		for _, u := range c.UpdateCaps {
			v := fromDataText(p.Captures[u.Cap], u.Data)
			if u.Pending && p.Captures[u.Cap].DType == lazy.Bool {
				v += ".Not().Not()"
			} else if u.Pending {
				v += ".Neg().Neg()"
			}
			fmt.Fprintf(&b, "c%d.Assign(%s)\n", u.Cap, v)
		}
		if c.SetLR != 0 {
			fmt.Fprintf(&b, "opt.Shared().SetLR(%s)\n", fnum(c.SetLR))
		}
		for _, ci := range c.RollBack {
			fmt.Fprintf(&b, "snap%d_%d := c%d.State()\n", k, ci, ci)
		}
		var args []string
		for i, bd := range c.Args {
			name := fmt.Sprintf("x%d_%d", k, i)
			s := p.Variants[c.Variant][i]
			switch bd.Kind {
			case BindFresh:
				fmt.Fprintf(&b, "%s := %s\n", name, fromDataText(s, bd.Data))
			case BindPending:
				neg := ".Neg().Neg()"
				if s.DType == lazy.Bool {
					neg = ".Not().Not()"
				}
				fmt.Fprintf(&b, "%s := %s%s // pending\n", name, fromDataText(s, bd.Data), neg)
			case BindSame:
				name = args[bd.Index]
			case BindKeep:
				name = argName(p, k-1, i)
			case BindCapture:
				name = fmt.Sprintf("c%d", bd.Index)
			case BindPrevOut:
				name = fmt.Sprintf("r%d_%d", k-1, bd.Index)
			}
			args = append(args, name)
		}
		in := strings.Join(args, ", ")
		if p.SliceArgs {
			in = "[]*lazy.Tensor{" + in + "}"
		}
		if len(p.Holders) > 0 {
			in = strings.Join(p.callArgsText(&b, k, args), ", ")
		}
		if p.optimArg() {
			in += ", opt"
		}
		for i := range p.Statics {
			in += fmt.Sprintf(", %v", c.Statics[i])
		}
		in = strings.TrimPrefix(in, ", ")
		var outs []string
		switch {
		case len(p.Outs) > 0:
			outs = p.outNames(k)
		case p.SliceRes:
			outs = append(outs, fmt.Sprintf("r%d", k))
		default:
			for o := range p.Results {
				outs = append(outs, fmt.Sprintf("r%d_%d", k, o))
			}
		}
		if p.ErrResult {
			outs = append(outs, fmt.Sprintf("err%d", k))
		}
		if len(outs) == 0 {
			fmt.Fprintf(&b, "jf(%s)\n", in)
		} else {
			fmt.Fprintf(&b, "%s := jf(%s)\n", strings.Join(outs, ", "), in)
		}
		if p.SliceRes {
			outs = append([]string{fmt.Sprintf("r%d", k)}, outs[1:]...)
			for o := range p.Results {
				fmt.Fprintf(&b, "r%d_%d := r%d[%d]\n", k, o, k, o)
				outs = append(outs, fmt.Sprintf("r%d_%d", k, o))
			}
		}
		if len(p.Outs) > 0 {
			outs = append(outs, p.outTensorsText(&b, k)...)
		}
		for _, o := range outs {
			fmt.Fprintf(&b, "_ = %s\n", o)
		}
		for _, u := range c.MutateResults {
			fmt.Fprintf(&b, "r%d_%d.Assign(%s) // the caller writes to a result\n", k, u.Result, fromDataText(p.regShape(p.Results[u.Result], c.Variant), u.Data))
		}
		for _, u := range c.MutateOuts {
			fmt.Fprintf(&b, "%s\n", p.outUpdateText(k, u))
		}
		for _, ci := range c.RollBack {
			fmt.Fprintf(&b, "c%d.Restore(snap%d_%d) // the caller rolls c%d back\n", ci, k, ci, ci)
		}
	}
	if p.Conc != nil && p.Conc.Partner != nil {
		b.WriteString("// the partner program of the jit-concurrent mode:\n")
		for _, l := range strings.SplitAfter(strings.TrimSuffix(p.Conc.Partner.Text(), "\n"), "\n") {
			b.WriteString("// " + l)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// argName is the printed name of argument i of call k.
func argName(p *Program, k, i int) string {
	switch b := p.Calls[k].Args[i]; b.Kind {
	case BindSame:
		return argName(p, k, b.Index)
	case BindKeep:
		return argName(p, k-1, i)
	case BindCapture:
		return fmt.Sprintf("c%d", b.Index)
	case BindPrevOut:
		return fmt.Sprintf("r%d_%d", k-1, b.Index)
	}
	return fmt.Sprintf("x%d_%d", k, i)
}

// usedRegs marks registers read by an instruction or returned.
func (p *Program) usedRegs() map[int]bool {
	u := map[int]bool{}
	for _, in := range p.Body {
		for _, r := range in.In {
			u[r] = true
		}
	}
	for _, r := range p.Results {
		u[r] = true
	}
	p.outRegs(func(r *int) { u[*r] = true })
	return u
}

// regShape is register r's shape in variant v (from the analysis).
func (p *Program) regShape(r, v int) lazy.Shape {
	st, err := analyze(p)
	if err != nil {
		return lazy.Shape{}
	}
	return st.regs[r].shapes[v]
}
