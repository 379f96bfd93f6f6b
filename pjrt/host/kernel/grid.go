package kernel

// Grid is one parallel run: a replicas x partitions grid of virtual devices,
// each running its own function (SPMD when all are the same, MPMD
// otherwise). Device i is replica i/NumPartitions, partition
// i%NumPartitions, as the spec's flattened ids number processes.
type Grid struct {
	NumReplicas, NumPartitions int
	// Funcs[i] runs on device i.
	Funcs []Subplan
	// Args[i] are device i's arguments.
	Args [][]Value
	// Mems[i] is device i's memory account; nil: the parent context's.
	Mems []*Mem
	// Infeed is the grid's shared infeed queue: each stablehlo.infeed op,
	// on whichever device, pops the next function and runs it (with no
	// arguments) to produce its tensors.
	Infeed []Subplan
}

// Launcher runs a Grid. The program found in Ctx.Program implements it, so
// that ops of the op families (interpreter.run_parallel) can start virtual
// devices without importing the planner.
type Launcher interface {
	// Launch runs g.Funcs concurrently, each on a fresh Ctx that shares
	// parent's check log and has its own collective hub, and returns every
	// device's results in device order. The first device error aborts the
	// run (devices blocked in collectives return) and is returned.
	Launch(parent *Ctx, g *Grid) ([][]Value, error)
}

// Channels is implemented by a Comm that also carries the point-to-point
// channels of stablehlo.send and stablehlo.recv: per channel id, a FIFO of
// messages. Send never blocks; Recv blocks until a message arrives, and
// fails once no other device of the run is left to send one.
type Channels interface {
	Send(channel int64, self int, vals []Value) error
	Recv(channel int64, self int) ([]Value, error)
}

// Feeds is implemented by a Comm that also carries the streaming interfaces
// of stablehlo.infeed and stablehlo.outfeed.
type Feeds interface {
	// Infeed returns the next infeed entry's tensors (computed with x).
	Infeed(x *Ctx) ([]Value, error)
	// Outfeed appends the tensors of one outfeed op of device self.
	Outfeed(self int, vals []Value) error
}
