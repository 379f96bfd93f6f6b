package lazy

import (
	"sync"
	"sync/atomic"
)

// goroutineMap holds one value per goroutine (a trace, a counting scope),
// with a count of goroutines that have one, so that a lookup on the hot
// path costs one atomic load when none has.
type goroutineMap[T any] struct {
	m sync.Map // goroutine id → *T
	n atomic.Int32
}

// get returns the calling goroutine's value, or nil.
func (g *goroutineMap[T]) get() *T {
	if g.n.Load() == 0 {
		return nil
	}
	if v, ok := g.m.Load(goid()); ok {
		return v.(*T)
	}
	return nil
}

// any reports whether some goroutine has a value.
func (g *goroutineMap[T]) any() bool { return g.n.Load() != 0 }

// set makes v the value of goroutine id (nil: none).
func (g *goroutineMap[T]) set(id uint64, v *T) {
	if v == nil {
		if _, had := g.m.LoadAndDelete(id); had {
			g.n.Add(-1)
		}
		return
	}
	if _, had := g.m.Swap(id, v); !had {
		g.n.Add(1)
	}
}
