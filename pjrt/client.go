package pjrt

import (
	"context"

	"github.com/xlajit/xlajit/hlo"
)

// Client is the device seam: everything above it (lazy, bridge, jit) talks to
// a device only through these methods. Whole programs cross it, never single
// ops. Implementations: pjrt/host (embedded, default) and pjrt/plugin (real
// PJRT plugins through go-xla).
type Client interface {
	// Platform names the platform ("cpu" for the embedded device, "cuda", ...).
	Platform() string
	// PlatformVersion describes the implementation and its version.
	PlatformVersion() string
	// Devices lists the addressable devices.
	Devices() []Device
	// BufferFromHost copies a host literal to device memory.
	BufferFromHost(lit *hlo.Literal, device int) (Buffer, error)
	// Compile compiles a StableHLO module (its entry function: "main" or the
	// only function). Nothing runs.
	Compile(m *hlo.Module, opts CompileOptions) (Executable, error)
	// MemoryInfo reports device memory use.
	MemoryInfo(device int) (MemoryInfo, error)
	// Close releases the client; buffers and executables become invalid.
	Close() error
}

// Device is one addressable device.
type Device struct {
	ID       int    // index in Client.Devices()
	Platform string // "cpu", "cuda", ...
	Kind     string // "embedded-cpu", "NVIDIA H200", ...
}

// Buffer is an array in device memory.
type Buffer interface {
	DType() hlo.DType
	Dims() []int64
	Device() int
	// ToHost copies the buffer to a new host literal.
	ToHost() (*hlo.Literal, error)
	// Delete frees the device memory; using the buffer afterwards is an error.
	Delete()
}

// CompileOptions control compilation (as PJRT's CompileOptions).
type CompileOptions struct {
	// NumReplicas and NumPartitions: 0 means 1.
	NumReplicas   int
	NumPartitions int
	// DeviceAssignment maps replica*NumPartitions+partition to a device ID;
	// nil means the identity.
	DeviceAssignment []int
	// UseSPMDPartitioning compiles one program for NumPartitions devices
	// from a program over whole tensors annotated with mhlo.sharding
	// (GSPMD); the executable implements ShardedExecutable.
	UseSPMDPartitioning bool
	// PropagateShardingToOutput lets the partitioner choose the layout of
	// results without an mhlo.sharding (otherwise they are replicated).
	PropagateShardingToOutput bool
}

// ExecuteOptions control one execution.
type ExecuteOptions struct {
	// Device is the device of a single-device execution.
	Device int
	// Donate lists argument indices whose buffers the execution may reuse
	// for its outputs; donated buffers are invalid afterwards.
	Donate []int
	// Context, when not nil, bounds the execution: once it is done, loops
	// stop and Execute returns an error wrapping its Err (the embedded
	// device checks it once per loop iteration; a PJRT plugin runs to
	// completion). Nothing is donated by a stopped execution.
	Context context.Context
}

// Executable is a compiled program.
type Executable interface {
	// NumOutputs is the number of results of the entry function (a tuple
	// result counts as its flattened elements).
	NumOutputs() int
	// Execute runs the program on one device.
	Execute(args []Buffer, opts ExecuteOptions) ([]Buffer, error)
	// ExecuteReplicated runs the program on every device of the assignment:
	// args[i] are the arguments of replica/partition i, and so are the
	// results.
	ExecuteReplicated(args [][]Buffer, opts ExecuteOptions) ([][]Buffer, error)
	// Close releases the executable.
	Close() error
}

// MemoryInfo is a device's memory use in bytes.
type MemoryInfo struct {
	// BytesInUse is what the device holds now: its buffers and the
	// intermediates of programs running on it.
	BytesInUse int64
	// PeakBytes is the most BytesInUse has been since the client opened or
	// its peak was reset (PeakResetter).
	PeakBytes int64
	// BytesLimit is the most the device may hold (0 if unknown); an
	// allocation beyond it fails with an error matching ErrOutOfMemory.
	BytesLimit int64
}

// Capabilities is optionally implemented by a Client: the ops (full names,
// "stablehlo.add") and element types it can compile. The partitioner asks it
// which lazy ops must run on the host.
type Capabilities interface {
	SupportsOp(name string) bool
	SupportsDType(dt hlo.DType) bool
}
