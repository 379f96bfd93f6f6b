package host

import "github.com/xlajit/xlajit/hlo"

// stepUse is the values a step reads and writes.
type stepUse struct{ reads, writes []*hlo.Value }

// pureOps are the ops whose step may be dropped when nothing reads its
// results: they compute a value and do nothing else (no communication, no
// host call, no region that could).
var pureOps = map[string]bool{
	"stablehlo.transpose":         true,
	"stablehlo.reshape":           true,
	"stablehlo.broadcast_in_dim":  true,
	"stablehlo.reverse":           true,
	"stablehlo.slice":             true,
	"stablehlo.pad":               true,
	"stablehlo.concatenate":       true,
	"stablehlo.convert":           true,
	"stablehlo.iota":              true,
	"stablehlo.constant":          true,
	"stablehlo.dot_general":       true,
	"stablehlo.convolution":       true,
	"stablehlo.get_tuple_element": true,
}

// dropDeadSteps removes the steps of pure ops whose results no later step
// reads and the block does not return. A compound step reads an operand
// through strides rather than the op that made it (a GEMM reading a
// transposed weight in place): when every reader of a transpose is in
// such steps, the transpose is left with no reader, and running it would
// compute and drop a copy on every execution. Steps are visited last
// first, so a step read only by dropped ones goes too.
func dropDeadSteps(steps []step, su []stepUse, returned map[int]bool) ([]step, []stepUse) {
	var read map[*hlo.Value]bool
	dead := 0
	for i := len(steps) - 1; i >= 0; i-- {
		s := &steps[i]
		if s.fused == nil && s.compound == nil && s.op != nil && pureOps[s.op.Name] && len(su[i].writes) > 0 {
			if read == nil {
				read = map[*hlo.Value]bool{}
				for j := i + 1; j < len(steps); j++ {
					for _, v := range su[j].reads {
						read[v] = true
					}
				}
			}
			used := false
			for _, v := range su[i].writes {
				used = used || read[v] || returned[v.ID]
			}
			if !used {
				s.op = nil // dropped
				dead++
				continue
			}
		}
		if read != nil {
			for _, v := range su[i].reads {
				read[v] = true
			}
		}
	}
	if dead == 0 {
		return steps, su
	}
	keep := 0
	for i := range steps {
		if steps[i].op == nil && steps[i].fused == nil && steps[i].compound == nil {
			continue
		}
		steps[keep], su[keep] = steps[i], su[i]
		keep++
	}
	clear(steps[keep:])
	return steps[:keep], su[:keep]
}
