package control

import (
	"strings"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// custom_call compiles each op through the target registered for its
// call_target_name (kernel.RegisterTarget: the check family's check.*
// targets, this package's customcall_targets.go); any other target is a
// compile error naming it.
func init() {
	kernel.Register(kernel.Entry{Name: "stablehlo.custom_call", Compile: compileCustomCall})
}

func compileCustomCall(c *kernel.OpCtx) (kernel.RunFn, error) {
	a := c.Op.Attr("call_target_name")
	target, ok := kernel.Symbol(a)
	if !ok {
		return nil, c.Errorf("missing call_target_name")
	}
	if compile := kernel.LookupTarget(target); compile != nil {
		return compile(c)
	}
	return nil, c.Errorf("unsupported custom_call target %q (the embedded device runs %s)", target, strings.Join(kernel.TargetNames(), ", "))
}
