package collective

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// send/recv move tensors through channels of the run's hub (a FIFO per
// channel id); infeed/outfeed use its streams. All four need a replicated or
// parallel run: a single-device program has nobody at the other end.
func init() {
	kernel.Register(
		kernel.Entry{Name: "stablehlo.send", Compile: compileSend},
		kernel.Entry{Name: "stablehlo.recv", Compile: compileRecv},
		kernel.Entry{Name: "stablehlo.infeed", Compile: compileInfeed},
		kernel.Entry{Name: "stablehlo.outfeed", Compile: compileOutfeed},
	)
}

func channelID(c *kernel.OpCtx) (int64, error) {
	switch a := c.Op.Attr("channel_handle").(type) {
	case hlo.ChannelHandleAttr:
		return a.Handle, nil
	case nil:
		if v, ok := c.Int("channel_id"); ok {
			return v, nil
		}
		return 0, c.Errorf("missing channel_handle")
	default:
		return 0, c.Errorf("channel_handle %s is not a #stablehlo.channel_handle", hlo.AttrString(a))
	}
}

// cloneValues copies tensors handed to another device or to the host: the
// sender's planner may recycle its own storage right after the op.
func cloneValues(vals []kernel.Value) []kernel.Value {
	out := make([]kernel.Value, len(vals))
	for i, v := range vals {
		if l, ok := v.(*hlo.Literal); ok {
			v = l.Clone()
		}
		out[i] = v
	}
	return out
}

// splitToken separates the data values from the trailing token.
func splitToken(vals []kernel.Value) []kernel.Value {
	if n := len(vals); n > 0 {
		if _, ok := vals[n-1].(kernel.Token); ok {
			return vals[:n-1]
		}
	}
	return vals
}

func compileSend(c *kernel.OpCtx) (kernel.RunFn, error) {
	ch, err := channelID(c)
	if err != nil {
		return nil, err
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		chans, ok := x.Comm.(kernel.Channels)
		if !ok {
			return kernel.OpErrorf(op, "channel %d: send needs a replicated or parallel run with channels", ch)
		}
		if err := chans.Send(ch, self(x), cloneValues(splitToken(args))); err != nil {
			return kernel.WrapError(op, err)
		}
		for i := range results {
			results[i] = kernel.Token{}
		}
		return nil
	}, nil
}

// tensorResults counts the results before the trailing token.
func tensorResults(c *kernel.OpCtx) (int, error) {
	n := len(c.Out)
	if n == 0 {
		return 0, c.Errorf("want a token result")
	}
	if _, ok := c.Out[n-1].(*hlo.TokenType); !ok {
		return 0, c.Errorf("last result is %s, want !stablehlo.token", c.Out[n-1])
	}
	return n - 1, nil
}

func compileRecv(c *kernel.OpCtx) (kernel.RunFn, error) {
	ch, err := channelID(c)
	if err != nil {
		return nil, err
	}
	nt, err := tensorResults(c)
	if err != nil {
		return nil, err
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		chans, ok := x.Comm.(kernel.Channels)
		if !ok {
			return kernel.OpErrorf(op, "channel %d: recv needs a replicated or parallel run with channels", ch)
		}
		msg, err := chans.Recv(ch, self(x))
		if err != nil {
			return kernel.WrapError(op, err)
		}
		return fillFromMessage(op, c.Out, nt, msg, results, fmt.Sprintf("channel %d", ch))
	}, nil
}

// fillFromMessage checks received tensors against the result types and
// stores them, then the token.
func fillFromMessage(op *hlo.Op, types []hlo.Type, nt int, msg []kernel.Value, results []kernel.Value, from string) error {
	if len(msg) != nt {
		return kernel.OpErrorf(op, "%s delivered %d values, the op has %d tensor results", from, len(msg), nt)
	}
	for i, v := range msg {
		l, ok := v.(*hlo.Literal)
		tt, _ := types[i].(*hlo.TensorType)
		if !ok || tt == nil || l.DType != tt.DType || len(l.Dims) != len(tt.Dims) {
			return kernel.OpErrorf(op, "%s delivered %v for result %d of type %s", from, describeValue(v), i, types[i])
		}
		for d := range l.Dims {
			if tt.Dims[d] >= 0 && tt.Dims[d] != l.Dims[d] {
				return kernel.OpErrorf(op, "%s delivered %s for result %d of type %s", from, l.ShapeString(), i, tt)
			}
		}
		results[i] = l
	}
	results[nt] = kernel.Token{}
	return nil
}

func describeValue(v kernel.Value) string {
	if l, ok := v.(*hlo.Literal); ok {
		return l.ShapeString()
	}
	return fmt.Sprintf("%T", v)
}

func compileInfeed(c *kernel.OpCtx) (kernel.RunFn, error) {
	nt, err := tensorResults(c)
	if err != nil {
		return nil, err
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		feeds, ok := x.Comm.(kernel.Feeds)
		if !ok {
			return kernel.OpErrorf(op, "infeed needs a run with an infeed queue (interpreter.run_parallel with infeed=[...])")
		}
		msg, err := feeds.Infeed(x)
		if err != nil {
			return kernel.WrapError(op, err)
		}
		return fillFromMessage(op, c.Out, nt, msg, results, "infeed")
	}, nil
}

func compileOutfeed(c *kernel.OpCtx) (kernel.RunFn, error) {
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		feeds, ok := x.Comm.(kernel.Feeds)
		if !ok {
			return kernel.OpErrorf(op, "outfeed needs a replicated or parallel run")
		}
		if err := feeds.Outfeed(self(x), cloneValues(splitToken(args))); err != nil {
			return kernel.WrapError(op, err)
		}
		for i := range results {
			results[i] = kernel.Token{}
		}
		return nil
	}, nil
}
