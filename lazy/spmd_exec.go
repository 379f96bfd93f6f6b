package lazy

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// notePartition counts the reshards the partitioner inserted into a newly
// compiled SPMD program, per op (SPMDReshard.<op>).
func notePartition(exe pjrt.Executable) {
	if r, ok := exe.(pjrt.PartitionReport); ok {
		for _, x := range r.Reshards() {
			getCounter(MetricSPMDReshardPrefix + x.Op).add(1)
		}
	}
}

// Reshards lists the layout changes with communication the SPMD
// partitioner inserted into x because an op could not run on the layout
// it found (nil for other programs or devices that do not report them).
func (x *Executable) Reshards() []pjrt.Reshard {
	if r, ok := x.exe.(pjrt.PartitionReport); ok {
		return r.Reshards()
	}
	return nil
}

// Collectives counts the collective ops of x's partitioned program by name
// ("all_reduce"); nil when the device does not report them.
func (x *Executable) Collectives() map[string]int {
	if r, ok := x.exe.(pjrt.PartitionReport); ok {
		return r.Collectives()
	}
	return nil
}

// PartitionedModule is the program each device runs after SPMD
// partitioning, when the device exposes it (nil otherwise).
func (x *Executable) PartitionedModule() *hlo.Module {
	if p, ok := x.exe.(interface{ PartitionedModule() *hlo.Module }); ok {
		return p.PartitionedModule()
	}
	return nil
}

// shardings returns the layouts of x's parameters and results: the
// partitioner's when the executable reports them, else the module's
// mhlo.sharding attributes (replicated where absent).
func (x *Executable) shardings() (params, outs []*Sharding, err error) {
	if se, ok := x.exe.(pjrt.ShardedExecutable); ok {
		return se.ParameterShardings(), se.OutputShardings(), nil
	}
	e := x.Module.Entry()
	read := func(d *hlo.DictAttr) (*Sharding, error) {
		if d == nil {
			return pjrt.Replicated(), nil
		}
		a := d.Get(shardingAttr)
		if a == nil {
			return pjrt.Replicated(), nil
		}
		text, _ := hlo.AttrStr(a)
		return pjrt.ParseSharding(text)
	}
	for i := range e.Args {
		var d *hlo.DictAttr
		if i < len(e.ArgAttrs) {
			d = e.ArgAttrs[i]
		}
		s, err := read(d)
		if err != nil {
			return nil, nil, err
		}
		params = append(params, s)
	}
	for i := range e.ResultTypes {
		var d *hlo.DictAttr
		if i < len(e.ResultAttrs) {
			d = e.ResultAttrs[i]
		}
		s, err := read(d)
		if err != nil {
			return nil, nil, err
		}
		outs = append(outs, s)
	}
	return params, outs, nil
}

// executeSPMD runs x on every device of its SPMD device: argument i's
// shards go to their devices (moved to the layout x was compiled for if
// they have another), and the per-device results are put together as
// sharded buffers in the layouts the partitioner chose.
func (x *Executable) executeSPMD(args []pjrt.Buffer) ([]pjrt.Buffer, error) {
	n := x.dev.spmd
	pshard, oshard, err := x.shardings()
	if err != nil {
		return nil, err
	}
	if len(args) != len(pshard) {
		return nil, fmt.Errorf("lazy: SPMD program %s takes %d arguments, got %d", x.Hash, len(pshard), len(args))
	}
	per := make([][]pjrt.Buffer, n)
	var temps []pjrt.Buffer
	defer func() {
		for _, b := range temps {
			b.Delete()
		}
	}()
	for i, a := range args {
		sb, ok := a.(*pjrt.ShardedBuffer)
		if !ok {
			return nil, fmt.Errorf("lazy: argument %d of SPMD program %s is a %T, not data of the SPMD device", i, x.Hash, a)
		}
		if !sb.Sharding().Equal(pshard[i]) {
			l, err := sb.ToHost()
			if err != nil {
				return nil, err
			}
			if sb, err = pjrt.ShardToDevices(x.dev.client, l, pshard[i], n); err != nil {
				return nil, err
			}
			temps = append(temps, sb)
			cInputRes.add(1)
		}
		for d := range per {
			per[d] = append(per[d], sb.Shards()[d])
		}
	}
	res, err := x.exe.ExecuteReplicated(per, pjrt.ExecuteOptions{})
	if err != nil {
		return nil, err
	}
	if len(res) != n {
		return nil, fmt.Errorf("lazy: SPMD program %s returned results of %d devices, want %d", x.Hash, len(res), n)
	}
	types := x.Module.Entry().ResultTypes
	out := make([]pjrt.Buffer, len(res[0]))
	for j := range out {
		tt, ok := types[j].(*hlo.TensorType)
		if !ok || j >= len(oshard) {
			return nil, fmt.Errorf("lazy: SPMD program %s: result %d has type %s", x.Hash, j, types[j])
		}
		shards := make([]pjrt.Buffer, n)
		for d := range shards {
			shards[d] = res[d][j]
		}
		if out[j], err = pjrt.NewShardedBuffer(tt.DType, tt.Dims, oshard[j], shards); err != nil {
			return nil, err
		}
	}
	return out, nil
}
