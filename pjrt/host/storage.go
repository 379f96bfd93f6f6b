package host

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
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
// Finding the account takes a registry, filled when a buffer is donated
// (below).

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
	// key and addr are set when the storage is registered (storageAccounts).
	key  weak.Pointer[hlo.Literal]
	addr uintptr
}

// storageAccounts finds the accounts of registered storages: those a
// buffer of was donated, whose storage may come back as a result (written
// in place, or from the run's pool). A storage is found by its literal's
// address and checked by a weak pointer (a collected literal's address may
// hold a new one before its cleanup runs). Storages never donated (a fresh
// result, an upload) are not registered: a weak pointer and a map entry
// cost two allocations, which only a storage used again pays back.
type storageAccounts struct {
	mu sync.Mutex
	m  map[uintptr]*storageAccount
}

// acquire counts l (n bytes, on mem) for one more buffer; the storage's
// bytes count once, while any buffer holds it. reserved says the caller
// added them to mem already (BufferFromHost reserves before copying).
func (s *storageAccounts) acquire(l *hlo.Literal, mem *kernel.Mem, n int64, reserved bool) *storageAccount {
	if a := s.find(l); a != nil && a.mem == mem && a.n == n {
		a.take(reserved)
		return a
	}
	a := &storageAccount{mem: mem, n: n}
	a.take(reserved)
	runtime.AddCleanup(l, storageCollected, storageCleanup{s, a})
	return a
}

// find returns the account of l if l is registered.
func (s *storageAccounts) find(l *hlo.Literal) *storageAccount {
	addr := uintptr(unsafe.Pointer(l))
	s.mu.Lock()
	a := s.m[addr]
	s.mu.Unlock()
	if a != nil && a.key.Value() == l {
		return a
	}
	return nil
}

// register makes a, the account of l, findable by l.
func (s *storageAccounts) register(l *hlo.Literal, a *storageAccount) {
	addr := uintptr(unsafe.Pointer(l))
	s.mu.Lock()
	defer s.mu.Unlock()
	if a.addr != 0 {
		return
	}
	if s.m == nil {
		s.m = map[uintptr]*storageAccount{}
	}
	a.key, a.addr = weak.Make(l), addr
	s.m[addr] = a
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
	s *storageAccounts
	a *storageAccount
}

// storageCollected runs when Go collects a counted storage: buffers that
// held it without being deleted give its bytes back.
func storageCollected(c storageCleanup) {
	if c.a.refs.Swap(0) > 0 {
		c.a.mem.Release(c.a.n)
	}
	c.s.mu.Lock()
	if c.a.addr != 0 && c.s.m[c.a.addr] == c.a {
		delete(c.s.m, c.a.addr)
	}
	c.s.mu.Unlock()
}
