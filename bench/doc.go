// Package bench compares the embedded device with other implementations
// of the same workloads. It is a separate module so that the main module
// stays free of the peers' dependencies (gonum, GoMLX).
//
// BenchmarkSideBySide holds the workloads of the side-by-side table
// (matmuls, an MLP forward, an elementwise chain, MNIST, CNN and
// transformer training steps, a tiny call, first calls), with
// torch_sidebyside.py the same in PyTorch. One command runs both in
// interleaved rounds with the machine's FMA peak and prints the table of
// medians and ratios. Both sides warm a steady-state row up alike (50 ms
// of calls, untimed) and time the rest:
//
//	cd bench && go run ./cmd/sidebyside -rounds 5
//
// PyTorch is Debian's (apt-get install python3-torch libopenblas0-pthread):
// without OpenBLAS, python3-torch runs its products on the reference BLAS
// (a 1024² product in about 350 ms instead of 7), and the table says so.
// An OPENBLAS_CORETYPE set in the environment is kept; the table says
// when it is not the kernel family the CPU supports best.
//
// Each benchmark also runs alone, for benchstat (keys row=... and
// impl=...):
//
//	cd bench && go test -run X -bench SideBySide -count 7 | tee new.txt && benchstat -col /impl new.txt
package bench
