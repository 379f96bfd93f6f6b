// Command hostfallback runs a function that mixes device ops with ops only
// the host can run inside jit.Compile: NonZero and MaskedSelect (their
// output shapes depend on the data) and a user lazy.HostFunc written in Go.
// The jit splits the traced graph into device partitions and host nodes,
// compiles each device partition once and replays the stages on later
// calls. The example prints, per call, what ran (device executions, host
// fallbacks per op, compiles), the jit statistics and Explain, and checks
// every result against eager mode.
//
//	go run ./examples/hostfallback [-rows 64] [-cols 8] [-calls 4]
package main
