package plugin

import (
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// BuildOptions are the fields of XLA's ExecutableBuildOptionsProto the
// plugin sets when it compiles a module (through go-xla's compile
// configuration), with the device assignment over the client's device
// indices.
type BuildOptions struct {
	Portable             bool // one device, chosen at Execute: no assignment
	NumReplicas          int
	NumPartitions        int
	UseSPMDPartitioning  bool
	UseShardyPartitioner bool
	// DeviceAssignment[partition][replica] is the device of that replica
	// and partition (DeviceAssignmentProto.computation_devices).
	DeviceAssignment [][]int
}

// BuildOptionsFor returns what compiling m with opts on a client of ndev
// devices asks XLA for: a replicated program (num_replicas = N) gets SPMD
// mode with one partition; a partitioned one (num_partitions = N, GSPMD
// shardings in mhlo.sharding) gets SPMD partitioning with the Shardy
// partitioner, which imports those shardings, and one replica.
// Unannotated results of a partitioned program come back replicated
// (go-xla does not expose allow_spmd_sharding_propagation_to_output).
func BuildOptionsFor(m *hlo.Module, opts pjrt.CompileOptions, ndev int) (BuildOptions, error) {
	t, err := resolveTopology(m, opts, ndev)
	if err != nil {
		return BuildOptions{}, err
	}
	return t.buildOptions(), nil
}

func (t topology) buildOptions() BuildOptions {
	if t.assign == nil {
		return BuildOptions{Portable: true, NumReplicas: 1, NumPartitions: 1}
	}
	b := BuildOptions{NumReplicas: t.replicas, NumPartitions: t.partitions, UseSPMDPartitioning: true}
	if t.partitions > 1 {
		b.NumReplicas, b.UseShardyPartitioner = 1, true
	} else {
		b.NumPartitions = 1
	}
	for p := 0; p < b.NumPartitions; p++ {
		var devs []int
		for r := 0; r < b.NumReplicas; r++ {
			devs = append(devs, t.assign[r*b.NumPartitions+p])
		}
		b.DeviceAssignment = append(b.DeviceAssignment, devs)
	}
	return b
}

// String prints the options in protobuf text form.
func (b BuildOptions) String() string {
	var s strings.Builder
	s.WriteString("executable_build_options {\n")
	fmt.Fprintf(&s, "  num_replicas: %d\n  num_partitions: %d\n", b.NumReplicas, b.NumPartitions)
	fmt.Fprintf(&s, "  use_spmd_partitioning: %t\n  use_shardy_partitioner: %t\n", b.UseSPMDPartitioning, b.UseShardyPartitioner)
	if b.Portable {
		s.WriteString("}\ncompile_portable_executable: true\n")
		return s.String()
	}
	fmt.Fprintf(&s, "  device_assignment {\n    replica_count: %d\n    computation_count: %d\n", b.NumReplicas, b.NumPartitions)
	for _, devs := range b.DeviceAssignment {
		s.WriteString("    computation_devices {")
		for _, d := range devs {
			fmt.Fprintf(&s, " replica_device_ids: %d", d)
		}
		s.WriteString(" }\n")
	}
	s.WriteString("  }\n}\n")
	return s.String()
}
