package plugin

import (
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/hlo"
)

// isCheckOp reports whether op is a conformance check: an op of the check
// dialect or a stablehlo.custom_call whose target is check.*.
func isCheckOp(op *hlo.Op) bool {
	if strings.HasPrefix(op.Name, "check.") {
		return true
	}
	if op.Name != "stablehlo.custom_call" {
		return false
	}
	var target string
	switch a := op.Attr("call_target_name").(type) {
	case hlo.StringAttr:
		target = strings.TrimPrefix(string(a), "@")
	case hlo.SymbolRefAttr:
		target = a.Name
	}
	return strings.HasPrefix(target, "check.")
}

// LiftChecks turns the check ops at the top level of m's entry function into
// results: each check is removed and its tensor operands are appended to the
// entry's results, so that a device without the check dialect computes the
// values the checks would have looked at. A check's own result (the i1 of
// custom_call @check.eq) may only be returned; it is dropped from the
// results. m is modified in place. It returns the number of results added;
// a check nested in a region, or whose result feeds another op, is an
// error naming it.
func LiftChecks(m *hlo.Module) (int, error) {
	entry := m.Entry()
	if entry == nil || entry.Body == nil || len(entry.Body.Blocks) == 0 {
		return 0, fmt.Errorf("module has no entry function with a body")
	}
	var nested *hlo.Op
	for _, b := range entry.Body.Blocks {
		for _, op := range b.Ops {
			for _, r := range op.Regions {
				r.Walk(func(o *hlo.Op) bool {
					if isCheckOp(o) {
						nested = o
						return false
					}
					return true
				})
			}
		}
	}
	if nested != nil {
		return 0, fmt.Errorf("%s: %s inside a region cannot be lifted", nested.Loc, nested.Name)
	}
	if len(entry.Body.Blocks) != 1 {
		return 0, fmt.Errorf("entry @%s has %d blocks", entry.Name, len(entry.Body.Blocks))
	}
	blk := entry.Body.Blocks[0]
	checkResults := map[*hlo.Value]bool{}
	var kept []*hlo.Op
	var lifted []*hlo.Value
	for _, op := range blk.Ops {
		if !isCheckOp(op) {
			kept = append(kept, op)
			continue
		}
		for _, v := range op.Operands {
			if _, ok := v.Type.(*hlo.TensorType); ok {
				lifted = append(lifted, v)
			}
		}
		for _, r := range op.Results {
			checkResults[r] = true
		}
	}
	if len(kept) == 0 || kept[len(kept)-1].Name != "func.return" {
		return 0, fmt.Errorf("entry @%s does not end with func.return", entry.Name)
	}
	ret := kept[len(kept)-1]
	for _, op := range kept[:len(kept)-1] {
		for _, v := range op.Operands {
			if checkResults[v] {
				return 0, fmt.Errorf("%s: %s uses the result of a check", op.Loc, op.Name)
			}
		}
	}
	var operands []*hlo.Value
	var types []hlo.Type
	var attrs []*hlo.DictAttr
	for i, v := range ret.Operands {
		if checkResults[v] {
			continue
		}
		operands = append(operands, v)
		types = append(types, entry.ResultTypes[i])
		if entry.ResultAttrs != nil {
			attrs = append(attrs, entry.ResultAttrs[i])
		}
	}
	for _, v := range lifted {
		operands = append(operands, v)
		types = append(types, v.Type)
		if entry.ResultAttrs != nil {
			attrs = append(attrs, nil)
		}
	}
	ret.Operands = operands
	entry.ResultTypes = types
	entry.ResultAttrs = attrs
	blk.Ops = kept
	return len(lifted), nil
}
