package jit

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/xlajit/xlajit/lazy"
)

// Replays that write into tensors are linearizable: each holds, while it
// runs, the locks of every tensor it reads or writes (arguments and
// captures), taken in one global order, so two replays touching a common
// tensor run one after the other and no update is lost. The locks are 64
// stripes chosen by the tensor's address; a replay takes each stripe once.
// Replays that write nothing take no lock.
var stripes [64]sync.Mutex

func stripeOf(t *lazy.Tensor) uint {
	return uint((uint64(uintptr(unsafe.Pointer(t))>>4) * 0x9E3779B97F4A7C15) >> 58)
}

// stripeMask is the set of stripes of ts.
func stripeMask(ts []*lazy.Tensor) uint64 {
	var m uint64
	for _, t := range ts {
		if t != nil {
			m |= 1 << stripeOf(t)
		}
	}
	return m
}

// lockStripes locks the stripes in m in increasing order.
func lockStripes(m uint64) {
	for x := m; x != 0; x &= x - 1 {
		stripes[bits.TrailingZeros64(x)].Lock()
	}
}

func unlockStripes(m uint64) {
	for x := m; x != 0; x &= x - 1 {
		stripes[bits.TrailingZeros64(x)].Unlock()
	}
}
