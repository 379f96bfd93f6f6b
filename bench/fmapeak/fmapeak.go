package fmapeak

import (
	"runtime"
	"sync"
	"time"
)

// Result is one measurement.
type Result struct {
	ISA     string  // "avx512", "avx2" or "none"
	Threads int     // goroutines (each on its own OS thread)
	GFLOPs  float64 // f32 GFLOP/s of all threads together (an FMA is 2 FLOP)
}

// kernel runs iters iterations of a loop of fmaPerIter independent vector
// FMAs of lanes f32 lanes each.
type kernel struct {
	isa   string
	lanes int
	run   func(iters int)
}

// fmaPerIter is the number of independent accumulators the assembly
// loops update per iteration: enough to cover the FMA latency on two
// pipes (4 cycles x 2 on current x86 cores needs 8).
const fmaPerIter = 12

// Peak measures every available ISA with 1 to threads goroutines for about
// d each and returns all results, best first. threads <= 0 means
// GOMAXPROCS.
func Peak(threads int, d time.Duration) []Result {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	var out []Result
	for _, k := range kernels() {
		for t := 1; t <= threads; t++ {
			out = append(out, Result{ISA: k.isa, Threads: t, GFLOPs: measure(k, t, d)})
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].GFLOPs > out[j-1].GFLOPs; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// measure runs k on t locked threads for about d and returns GFLOP/s.
func measure(k kernel, t int, d time.Duration) float64 {
	const chunk = 1 << 16 // iterations between clock reads
	k.run(chunk)          // warm up (clock and power state)
	var wg sync.WaitGroup
	counts := make([]int, t)
	start := make(chan struct{})
	deadline := time.Now().Add(d + 10*time.Millisecond)
	for i := range t {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			<-start
			for time.Now().Before(deadline) {
				k.run(chunk)
				counts[i] += chunk
			}
		}()
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	el := time.Since(t0).Seconds()
	total := 0
	for _, c := range counts {
		total += c
	}
	return float64(total) * fmaPerIter * float64(k.lanes) * 2 / el / 1e9
}
