package host

import (
	"runtime"
	"sync/atomic"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Storage kept between executions. Each compiled program keeps the pools
// of its idle run states, so that its next execution reuses the storage
// its intermediates died in instead of allocating (and zeroing) it again.
// A process may hold thousands of compiled programs (the compile cache
// keeps 2048), so what all of them keep together is bounded: a run state
// whose pool would pass retainedMax is kept empty. A program's share goes
// back when Go collects the program.

// retainedMax bounds the bytes kept in idle run states' pools.
var retainedMax int64 = 512 << 20

// retained is the bytes kept in idle run states' pools.
var retained atomic.Int64

// retainedOf returns the program's count of bytes it keeps, made on first
// use with a cleanup that gives them back when the program is collected.
func (p *Program) retainedOf() *atomic.Int64 {
	if c := p.kept.Load(); c != nil {
		return c
	}
	c := new(atomic.Int64)
	if p.kept.CompareAndSwap(nil, c) {
		runtime.AddCleanup(p, func(c *atomic.Int64) { retained.Add(-c.Load()) }, c)
		return c
	}
	return p.kept.Load()
}

// retain ends the execution pool served (kernel.Pool.Settle: its results
// have left) and counts pool's storage as kept by p, or empties pool when
// the bound would be passed or p has not executed more than once (a
// replicated launch counts once, a call refused before it ran not at
// all); it returns the bytes counted.
//
// A program's first execution keeps nothing: most programs that run once
// never run again (a first call whose function is then dropped, a
// compile cache entry of a shape seen once), and their pools, kept until
// the compile cache drops them, would hold storage the recycler then
// lacks (it counts storage in use against its budget): every later
// execution's intermediates would be fresh, zeroed allocations. Storage
// let go goes back to the recycler, and a program that runs again takes
// it from there on its second execution and keeps it from then on.
func (p *Program) retain(pool *kernel.Pool) int64 {
	pool.Settle()
	n := int64(pool.Held())
	if p.execs.Load() < 2 && n > 0 {
		pool.Reset()
		return 0
	}
	if n == 0 {
		return 0
	}
	if retained.Add(n) > retainedMax {
		retained.Add(-n)
		pool.Reset()
		return 0
	}
	p.retainedOf().Add(n)
	return n
}

// unretain gives back n bytes p counted.
func (p *Program) unretain(n int64) {
	if n != 0 {
		retained.Add(-n)
		p.retainedOf().Add(-n)
	}
}
