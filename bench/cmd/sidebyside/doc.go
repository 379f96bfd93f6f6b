// Command sidebyside runs xlajit's side-by-side benchmark
// (BenchmarkSideBySide in package bench) and the same workloads in PyTorch
// (torch_sidebyside.py) in interleaved rounds, measures the machine's FMA
// peak at the start of every round, and prints the table of medians with
// the ratio xlajit / PyTorch per workload:
//
//	cd bench && go run ./cmd/sidebyside [-rounds 5] [-benchtime 0.5s] [-rows regexp] [-raw out.txt]
//
// PyTorch runs under /usr/bin/python3 (flag -python) with 1 and 2 threads;
// its best is the faster of the two medians. Without PyTorch the table has
// the Go implementations only. When OPENBLAS_CORETYPE is unset it is set
// for the PyTorch process to the best OpenBLAS kernel family the CPU
// supports (SkylakeX with AVX-512, Haswell with AVX2): Debian's OpenBLAS
// 0.3.21 does not know recent CPU models and otherwise falls back to its
// SSE3 kernels. A value set in the environment is kept, with a warning
// under the table's header when it is not that family. Each Go implementation (xlajit, GoMLX, gonum) runs its
// rows in a process of its own every round, as PyTorch does. -raw writes
// every benchmark line, for benchstat.
package main
