package lazy

import (
	"fmt"
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// Manual regions (PyTorch/XLA's enable_manual_sharding): between
// EnableManualSharding and DisableManualSharding a tensor of the SPMD
// device stands for each device's own shard (its shape is the shard
// shape), and the ops on it run as written on every device; the
// partitioner leaves them alone. Only intermediates can be manual: a
// program result must be brought back to a full tensor.

// EnableManualSharding lays t out by s and returns the manual tensor of
// each device's shard (shape: s's shard shape, padding included).
func (t *Tensor) EnableManualSharding(s *Sharding) (*Tensor, error) {
	if err := manualArgs("EnableManualSharding", t, s); err != nil {
		return nil, err
	}
	var out *Tensor
	err := Try(func() { out = fullToShard(t, s) })
	return out, err
}

func fullToShard(t *Tensor, s *Sharding) *Tensor {
	return apply1(opFullToShard, Attrs{{Key: "sharding", Val: s.String()}, {Key: "dims", Val: s.ShardShape(t.Dims())}}, t)
}

func shardToFull(t *Tensor, s *Sharding, dims []int64) *Tensor {
	return apply1(opShardToFull, Attrs{{Key: "sharding", Val: s.String()}, {Key: "dims", Val: slices.Clone(dims)}}, t)
}

// DisableManualSharding turns the manual tensor t (each device's shard)
// back into a tensor of dims laid out by s.
func (t *Tensor) DisableManualSharding(s *Sharding, dims []int64) (*Tensor, error) {
	if err := manualArgs("DisableManualSharding", t, s); err != nil {
		return nil, err
	}
	var out *Tensor
	err := Try(func() { out = shardToFull(t, s, dims) })
	return out, err
}

func manualArgs(op string, t *Tensor, s *Sharding) error {
	if t == nil || s == nil {
		return &Error{Op: op, Msg: "nil tensor or sharding", Site: callerSite()}
	}
	if !t.dev.IsSPMD() {
		return &Error{Op: op, Shapes: []string{t.shape.String()}, Msg: fmt.Sprintf("the tensor is on %s; manual sharding needs the SPMD device", t.dev), Site: callerSite()}
	}
	if s.Type != pjrt.ShardReplicated && s.Type != pjrt.ShardTiled {
		return &Error{Op: op, Shapes: []string{t.shape.String()}, Msg: fmt.Sprintf("sharding %s: want a replicated or tiled sharding", s), Site: callerSite()}
	}
	return nil
}

// inferManual checks a manual op: the sharding parses and fits, and the
// shapes agree (whole is the full tensor's dims, shard the manual one's).
func inferManual(whole, shard []int64, text string) error {
	s, err := pjrt.ParseSharding(text)
	if err != nil {
		return err
	}
	if s.IsTiled() && s.DataRank() != len(whole) {
		return fmt.Errorf("sharding %s does not fit rank %d", s, len(whole))
	}
	if want := s.ShardShape(whole); !slices.Equal(want, shard) {
		return fmt.Errorf("shards of %v under %s are %v, not %v", whole, s, want, shard)
	}
	return nil
}

func init() {
	define(opFullToShard, &OpDef{
		Name: "FullToShard",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if err := inferManual(in[0].Dims, a.Ints("dims"), a.Str("sharding")); err != nil {
				return nil, err
			}
			return []Shape{NewShape(in[0].DType, a.Ints("dims")...)}, nil
		},
		// Elsewhere than the SPMD device a manual region of one device is
		// the identity; other shapes lower to the custom calls, which only
		// SPMD compiles accept.
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			if !lc.spmd && n.inputs[0].Shape().Equal(n.out[0]) {
				return in
			}
			text := n.attrs.Str("sharding")
			x := lc.S.CustomCall("Sharding", in, []hlo.Type{in[0].Type}, hlo.NamedAttr{Name: shardingAttr, Value: hlo.StringAttr(text)})
			return lc.S.CustomCall("SPMDFullToShardShape", x, []hlo.Type{n.out[0].TensorType()}, hlo.NamedAttr{Name: shardingAttr, Value: hlo.StringAttr("{manual}")})
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			s, _ := pjrt.ParseSharding(a.Str("sharding"))
			return []*Tensor{shardToFull(dy[0], s, x[0].Dims())}
		},
	})
	define(opShardToFull, &OpDef{
		Name: "ShardToFull",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if err := inferManual(a.Ints("dims"), in[0].Dims, a.Str("sharding")); err != nil {
				return nil, err
			}
			return []Shape{NewShape(in[0].DType, a.Ints("dims")...)}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			if !lc.spmd && n.inputs[0].Shape().Equal(n.out[0]) {
				return in
			}
			x := lc.S.CustomCall("Sharding", in, []hlo.Type{in[0].Type}, hlo.NamedAttr{Name: shardingAttr, Value: hlo.StringAttr("{manual}")})
			return lc.S.CustomCall("SPMDShardToFullShape", x, []hlo.Type{n.out[0].TensorType()}, hlo.NamedAttr{Name: shardingAttr, Value: hlo.StringAttr(n.attrs.Str("sharding"))})
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			s, _ := pjrt.ParseSharding(a.Str("sharding"))
			return []*Tensor{fullToShard(dy[0], s)}
		},
	})
}
