package host

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host/gspmd"
)

// SPMDExecutable is a program partitioned by gspmd for SPMD execution:
// ExecuteReplicated takes and returns the shards of each device.
type SPMDExecutable struct {
	*Executable
	part *gspmd.Result
}

var (
	_ pjrt.ShardedExecutable = (*SPMDExecutable)(nil)
	_ pjrt.PartitionReport   = (*SPMDExecutable)(nil)
)

// compileSPMD partitions m over opts.NumPartitions devices and plans the
// partitioned program.
func (c *Client) compileSPMD(m *hlo.Module, opts pjrt.CompileOptions) (pjrt.Executable, error) {
	np := max(opts.NumPartitions, 1)
	if opts.NumReplicas > 1 {
		return nil, fmt.Errorf("host: SPMD partitioning with %d replicas: use one replica and NumPartitions devices", opts.NumReplicas)
	}
	if np > len(c.devices) {
		return nil, fmt.Errorf("host: SPMD program over %d partitions, the client has %d devices", np, len(c.devices))
	}
	res, err := gspmd.Partition(m, gspmd.Options{NumPartitions: np, PropagateToOutput: opts.PropagateShardingToOutput})
	if err != nil {
		return nil, err
	}
	o := opts
	o.UseSPMDPartitioning = false
	o.NumReplicas, o.NumPartitions = 1, np
	x, err := c.Compile(res.Module, o)
	if err != nil {
		return nil, fmt.Errorf("host: partitioned program: %w", err)
	}
	return &SPMDExecutable{Executable: x.(*Executable), part: res}, nil
}

// PartitionedModule is the program each device runs.
func (e *SPMDExecutable) PartitionedModule() *hlo.Module { return e.part.Module }

// ParameterShardings implements pjrt.ShardedExecutable.
func (e *SPMDExecutable) ParameterShardings() []*pjrt.Sharding { return e.part.Params }

// OutputShardings implements pjrt.ShardedExecutable.
func (e *SPMDExecutable) OutputShardings() []*pjrt.Sharding { return e.part.Outputs }

// Reshards implements pjrt.PartitionReport.
func (e *SPMDExecutable) Reshards() []pjrt.Reshard { return e.part.Reshards }

// Collectives implements pjrt.PartitionReport.
func (e *SPMDExecutable) Collectives() map[string]int { return e.part.Collectives }
