package host

import (
	"fmt"
	"sync"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Hub is the rendezvous point for the collectives of one replicated run:
// every participant of a collective contributes a value under the same key
// and receives all contributions in group order.
type Hub struct {
	n       int
	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]*rendezvous
	err     error
}

type rendezvous struct {
	group   []int
	vals    map[int]kernel.Value
	readers int
}

// NewHub returns a hub for n devices.
func NewHub(n int) *Hub {
	h := &Hub{n: n, pending: map[string]*rendezvous{}}
	h.cond = sync.NewCond(&h.mu)
	return h
}

// Abort wakes every waiter with err (a device failed).
func (h *Hub) Abort(err error) {
	h.mu.Lock()
	if h.err == nil {
		h.err = err
	}
	h.mu.Unlock()
	h.cond.Broadcast()
}

// Exchange implements kernel.Comm. The key must identify the collective
// instance and the group (callers include the op's position, a per-device
// sequence number and the group).
func (h *Hub) Exchange(key string, self int, group []int, v kernel.Value) ([]kernel.Value, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.pending[key]
	if r == nil {
		r = &rendezvous{group: group, vals: map[int]kernel.Value{}}
		h.pending[key] = r
	}
	if _, dup := r.vals[self]; dup {
		return nil, fmt.Errorf("host: device %d contributed twice to collective %q", self, key)
	}
	r.vals[self] = v
	h.cond.Broadcast()
	for len(r.vals) < len(r.group) && h.err == nil {
		h.cond.Wait()
	}
	if h.err != nil && len(r.vals) < len(r.group) {
		return nil, fmt.Errorf("host: collective %q aborted: %w", key, h.err)
	}
	out := make([]kernel.Value, len(r.group))
	for i, g := range r.group {
		out[i] = r.vals[g]
	}
	r.readers++
	if r.readers == len(r.group) {
		delete(h.pending, key)
	}
	return out, nil
}
