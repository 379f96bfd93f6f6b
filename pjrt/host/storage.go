package host

import (
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Storage accounts. A buffer of trackedBytes or more counts its bytes in
// its device's bytes in use while it is alive and undeleted. The count
// belongs to the storage (the literal) rather than to the Buffer: one
// literal is often the storage of buffer after buffer (a parameter updated
// in place in donated storage step after step, pooled storage that becomes
// a result again), and each storage gets a single cleanup, made when it is
// first counted, that gives back the bytes of buffers nobody deleted once
// Go collects it. A later buffer of the same storage takes a reference on
// its account and allocates nothing (runtime.AddCleanup allocates twice).

// trackedBytes is the size from which a buffer counts in its device's
// bytes in use. A buffer nobody deletes is released when Go collects its
// storage, through a cleanup that costs about as much as copying a few
// KiB, so smaller buffers are not counted at all: they never add up in
// the account, and a small tensor's memory is Go's to free.
const trackedBytes = 16 << 10

// storageAccount counts one storage in a device's bytes in use while
// buffers hold references to it.
type storageAccount struct {
	mem  *kernel.Mem
	n    int64
	refs atomic.Int64 // undeleted buffers of the storage
}

// storageAccounts finds a storage's account by the literal's identity (a
// weak pointer never matches a later literal at the same address).
type storageAccounts struct{ m sync.Map } // weak.Pointer[hlo.Literal] -> *storageAccount

// acquire counts l (n bytes, on mem) for one more buffer; the storage's
// bytes count once, while any buffer holds it. reserved says the caller
// added them to mem already (BufferFromHost reserves before copying).
func (s *storageAccounts) acquire(l *hlo.Literal, mem *kernel.Mem, n int64, reserved bool) *storageAccount {
	key := weak.Make(l)
	if v, ok := s.m.Load(key); ok {
		if a := v.(*storageAccount); a.mem == mem && a.n == n {
			a.take(reserved)
			return a
		}
	}
	a := &storageAccount{mem: mem, n: n}
	if v, loaded := s.m.LoadOrStore(key, a); loaded {
		if b := v.(*storageAccount); b.mem == mem && b.n == n {
			b.take(reserved)
			return b
		}
		s.m.Store(key, a) // the storage moved devices or changed size: a new account
	}
	a.take(reserved)
	runtime.AddCleanup(l, storageCollected, storageCleanup{s, a, key})
	return a
}

func (a *storageAccount) take(reserved bool) {
	if a.refs.Add(1) == 1 {
		if !reserved {
			a.mem.Add(a.n)
		}
	} else if reserved {
		a.mem.Release(a.n) // counted already: the reservation was one too many
	}
}

// release drops one buffer's reference; the last gives the bytes back.
func (a *storageAccount) release() {
	if a.refs.Add(-1) == 0 {
		a.mem.Release(a.n)
	}
}

type storageCleanup struct {
	s   *storageAccounts
	a   *storageAccount
	key weak.Pointer[hlo.Literal]
}

// storageCollected runs when Go collects a counted storage: buffers that
// held it without being deleted give its bytes back.
func storageCollected(c storageCleanup) {
	if c.a.refs.Swap(0) > 0 {
		c.a.mem.Release(c.a.n)
	}
	c.s.m.CompareAndDelete(c.key, c.a)
}
