package movement

import (
	"fmt"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// stablehlo.broadcast is the legacy form of broadcast_in_dim: the result
// is broadcast_sizes ++ shape(operand), the operand's dimensions mapping
// to the trailing ones unchanged (none of them broadcasts). It runs as the
// broadcast_in_dim box with broadcast_dimensions [len(sizes), ...).

func init() {
	kernel.Register(kernel.Entry{Name: "stablehlo.broadcast", Compile: compileBroadcast, Fresh: true})
}

func compileBroadcast(c *kernel.OpCtx) (kernel.RunFn, error) {
	inT, err := tensorIn(c, 0)
	if err != nil {
		return nil, err
	}
	sizes, err := reqInts(c, "broadcast_sizes")
	if err != nil {
		return nil, err
	}
	for _, s := range sizes {
		if s < 0 {
			return nil, c.Errorf("broadcast_sizes %v has a negative size (operand %s)", sizes, inT.ShapeString())
		}
	}
	es := inT.DType.Size()
	return compileBoxOp(c, func(in []int64) (*boxPlan, error) {
		out := append(append(make([]int64, 0, len(sizes)+len(in)), sizes...), in...)
		bd := make([]int64, len(in))
		for i := range bd {
			bd[i] = int64(len(sizes) + i)
		}
		p, err := broadcastPlan(in, out, bd, es)
		if err != nil {
			return nil, fmt.Errorf("broadcast_sizes %v: %v", sizes, err)
		}
		return p, nil
	})
}
