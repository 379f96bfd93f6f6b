package conform

import (
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// checkName returns the check a op performs ("check.expect_eq") or "": the
// check dialect's ops, and custom calls whose target is in the check
// namespace (testdata/ writes its expectations that way).
func checkName(op *hlo.Op) string {
	if d := op.Dialect(); d == "check" || d == "iree_check" {
		return op.Name
	}
	if op.Name == "stablehlo.custom_call" {
		if t := callTarget(op); strings.HasPrefix(t, "check.") {
			return t
		}
	}
	return ""
}

func isCheckOp(op *hlo.Op) bool { return checkName(op) != "" }

// callTarget returns a custom call's call_target_name.
func callTarget(op *hlo.Op) string {
	switch a := op.Attr("call_target_name").(type) {
	case hlo.StringAttr:
		return string(a)
	case hlo.SymbolRefAttr:
		return a.Name
	case *hlo.SymbolRefAttr:
		return a.Name
	}
	return ""
}

// valueCheck reports whether a check op yields its verdict as a value
// (custom_call @check.eq returns tensor<i1>) instead of recording it.
func valueCheck(op *hlo.Op) bool { return len(op.Results) > 0 }

// unconditionalChecks counts the recording check ops at the top level of f:
// each of them must have reported to the check log once f ran.
func unconditionalChecks(f *hlo.Func) []*hlo.Op {
	var out []*hlo.Op
	if f.Body == nil {
		return nil
	}
	for _, b := range f.Body.Blocks {
		for _, op := range b.Ops {
			if isCheckOp(op) && !valueCheck(op) {
				out = append(out, op)
			}
		}
	}
	return out
}

// verdictResults returns the indices of f's results that are produced by a
// value-returning check (their elements must all be true).
func verdictResults(f *hlo.Func) []int {
	if f.Body == nil || len(f.Body.Blocks) == 0 {
		return nil
	}
	b := f.Body.Blocks[len(f.Body.Blocks)-1]
	if len(b.Ops) == 0 {
		return nil
	}
	ret := b.Ops[len(b.Ops)-1]
	var idx []int
	for i, v := range ret.Operands {
		if v.Def != nil && isCheckOp(v.Def) && valueCheck(v.Def) {
			idx = append(idx, i)
		}
	}
	return idx
}

// allTrue reports whether every element of a boolean verdict is true.
func allTrue(v kernel.Value) (bool, error) {
	l, ok := v.(*hlo.Literal)
	if !ok {
		return false, fmt.Errorf("check verdict is a %T, not a tensor", v)
	}
	if !l.DType.IsBool() {
		return false, fmt.Errorf("check verdict has type %s, want i1", l.ShapeString())
	}
	for _, b := range l.Data {
		if b == 0 {
			return false, nil
		}
	}
	return true, nil
}

// subjectOp names the op a check verifies: the op defining the checked
// value, looking through calls (into the callee's returned value) and
// skipping constants. It routes check failures to the family that owns the
// op.
func subjectOp(m *hlo.Module, check *hlo.Op) string {
	for _, v := range check.Operands {
		if name := producer(m, v, 0); name != "" {
			return name
		}
	}
	return checkName(check)
}

// producer is the name of the op computing v, through calls; "" for a
// constant or an argument.
func producer(m *hlo.Module, v *hlo.Value, depth int) string {
	if v.Def == nil || depth > 8 {
		return ""
	}
	switch v.Def.Name {
	case "stablehlo.constant":
		return ""
	case "func.call":
		callee, ok := v.Def.Attr("callee").(hlo.SymbolRefAttr)
		if !ok {
			return v.Def.Name
		}
		f := m.Func(callee.Name)
		if f == nil || f.Body == nil || len(f.Body.Blocks) == 0 {
			return v.Def.Name
		}
		b := f.Body.Blocks[len(f.Body.Blocks)-1]
		if len(b.Ops) == 0 {
			return v.Def.Name
		}
		ret := b.Ops[len(b.Ops)-1]
		if v.Index >= len(ret.Operands) {
			return v.Def.Name
		}
		return producer(m, ret.Operands[v.Index], depth+1)
	}
	return v.Def.Name
}

// checkAt finds, among checks, the one whose location a failure message
// names ("file:line:col"), else the only one, else nil.
func checkAt(checks []*hlo.Op, msg string) *hlo.Op {
	for _, c := range checks {
		if c.Loc.Line > 0 && strings.Contains(msg, fmt.Sprintf(":%d:%d", c.Loc.Line, c.Loc.Col)) {
			return c
		}
	}
	for _, c := range checks {
		if c.Loc.Line > 0 && strings.Contains(msg, fmt.Sprintf(":%d:", c.Loc.Line)) {
			return c
		}
	}
	if len(checks) == 1 {
		return checks[0]
	}
	return nil
}
