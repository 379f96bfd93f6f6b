// Command stats shows what the jit counts and how it explains itself: a
// compiled layer is called in phases (first call, steady state, a changed
// static argument, a new input shape, the first signature again), and a
// function that reads a tensor value with Item() graph-breaks, next to its
// fix with tensor ops. After each phase it prints jit.StatsOf and the
// change of the lazy counters; at the end jit.Explain of each function and
// lazy.MetricsReport. The test asserts the same phases with jittest.
//
//	go run ./examples/stats [-steady 10]
package main
