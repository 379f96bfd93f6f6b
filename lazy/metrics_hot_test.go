package lazy

import (
	"testing"
	"unsafe"
)

// The replay's counters share one cache line.
func TestHotCountersShareALine(t *testing.T) {
	first := uintptr(unsafe.Pointer(getCounter(hotCounterNames[0])))
	for _, name := range hotCounterNames {
		if p := uintptr(unsafe.Pointer(getCounter(name))); p/64 != first/64 {
			t.Errorf("counter %s at %#x, not in the line of %s at %#x", name, p, hotCounterNames[0], first)
		}
	}
}
