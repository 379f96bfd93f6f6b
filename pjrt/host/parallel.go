package host

import (
	"fmt"
	"sync"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Parallel execution on the embedded device, for callers such as the
// conformance runner:
//
//   - A module whose entry uses interpreter.run_parallel needs nothing
//     special: Program.Run(&kernel.Ctx{Checks: log}, args) runs it, and the
//     op launches its replicas x partitions grid of functions itself
//     (through Program.Launch), each device with its own Hub.
//   - A module meant for N replicas x M partitions (SPMD, collectives in the
//     entry function) runs with RunReplicated(prog, N, M, args, log), or
//     Executable.ExecuteReplicated through the pjrt seam.
//   - Checks inside any device record into the shared log; a closed
//     Ctx.Cancel stops loops and wakes devices blocked in collectives.

// Launch implements kernel.Launcher: it runs g's functions concurrently on
// a fresh Hub, one goroutine per virtual device. interpreter.run_parallel
// and RunReplicated both end here.
func (p *Program) Launch(parent *kernel.Ctx, g *kernel.Grid) ([][]kernel.Value, error) {
	nr, np := g.NumReplicas, g.NumPartitions
	if nr < 1 || np < 1 {
		return nil, fmt.Errorf("host: parallel run needs at least one replica and one partition, got %d x %d", nr, np)
	}
	n := nr * np
	if len(g.Funcs) != n || len(g.Args) != n {
		return nil, fmt.Errorf("host: parallel run of %d replicas x %d partitions needs %d functions and argument lists, got %d and %d", nr, np, n, len(g.Funcs), len(g.Args))
	}
	p.execs.Add(1) // one execution, whatever the number of devices
	hub := NewHub(n)
	hub.SetInfeed(g.Infeed)
	var checks *kernel.CheckLog
	var cancel <-chan struct{}
	mem := p.mem
	if parent != nil {
		checks, cancel = parent.Checks, parent.Cancel
		if parent.Mem != nil {
			mem = parent.Mem
		}
	}
	// A canceled run also wakes devices blocked in the hub.
	finished := make(chan struct{})
	defer close(finished)
	if cancel != nil {
		go func() {
			select {
			case <-cancel:
				hub.Abort(kernel.ErrCanceled)
			case <-finished:
			}
		}()
	}
	results := make([][]kernel.Value, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer hub.Done(i)
			defer func() {
				// A kernel panic fails this run instead of the process.
				if r := recover(); r != nil {
					hub.Abort(fmt.Errorf("device %d (replica %d, partition %d): panic: %v", i, i/np, i%np, r))
				}
			}()
			x := &kernel.Ctx{Replica: i / np, Partition: i % np, NumReplicas: nr, NumPartitions: np,
				Comm: hub, Checks: checks, Program: p, Cancel: cancel, Mem: mem}
			if g.Mems != nil {
				x.Mem = g.Mems[i]
			}
			res, err := g.Funcs[i].Run(x, g.Args[i])
			if err != nil {
				err = fmt.Errorf("device %d (replica %d, partition %d): %w", i, i/np, i%np, err)
				hub.Abort(err)
				return
			}
			results[i] = res
		}(i)
	}
	wg.Wait()
	hub.mu.Lock()
	first := hub.err
	hub.mu.Unlock()
	if first != nil {
		return nil, first
	}
	return results, nil
}

// entryRunner runs a program's entry function as Program.Run does (results
// that alias arguments or constants are copied), for RunReplicated.
type entryRunner struct{ p *Program }

func (e entryRunner) Run(x *kernel.Ctx, args []kernel.Value) ([]kernel.Value, error) {
	return e.p.Run(x, args)
}

func (e entryRunner) NumResults() int { return e.p.entry.NumResults() }

// runReplicated runs prog's entry on nr*np devices (see RunReplicated);
// mems, when not nil, are the devices' memory accounts; closing cancel
// (may be nil) stops the run.
func runReplicated(prog *Program, nr, np int, ins [][]kernel.Value, checks *kernel.CheckLog, mems []*kernel.Mem, cancel <-chan struct{}) ([][]kernel.Value, error) {
	n := nr * np
	if len(ins) != n {
		return nil, fmt.Errorf("host: replicated run of %d replicas x %d partitions needs %d argument lists, got %d", nr, np, n, len(ins))
	}
	for i, in := range ins {
		if err := prog.checkArgs(in); err != nil {
			return nil, fmt.Errorf("device %d: %w", i, err)
		}
	}
	g := &kernel.Grid{NumReplicas: nr, NumPartitions: np, Funcs: make([]kernel.Subplan, n), Args: ins, Mems: mems}
	for i := range g.Funcs {
		g.Funcs[i] = entryRunner{prog}
	}
	return prog.Launch(&kernel.Ctx{Checks: checks, Cancel: cancel}, g)
}
