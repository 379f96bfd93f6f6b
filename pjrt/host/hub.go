package host

import (
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Hub is the rendezvous point of one replicated or parallel run: the
// collectives (kernel.Comm), the send/recv channels (kernel.Channels) and
// the infeed/outfeed streams (kernel.Feeds) of its n devices.
//
// Collectives match up by order, as on real devices: the k-th Exchange that
// device d makes under a key meets the k-th Exchange of every other member
// of the group under the same key. Callers therefore pass a key that names
// the group (not the op instance), and a loop that runs a collective three
// times meets its peers three times. A device that finishes (Done) or fails
// (Abort) while others wait for it turns their wait into an error instead of
// a hang.
type Hub struct {
	n       int
	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]*rendezvous
	seq     map[seqKey]int
	done    []bool
	running int
	err     error

	channels map[int64][][]kernel.Value
	infeed   []kernel.Subplan
	outfeed  [][]kernel.Value
}

type seqKey struct {
	dev int
	key string
}

type rendezvous struct {
	group   []int
	vals    map[int]kernel.Value
	readers int
}

// NewHub returns a hub for n devices.
func NewHub(n int) *Hub {
	h := &Hub{n: n, pending: map[string]*rendezvous{}, seq: map[seqKey]int{},
		done: make([]bool, n), running: n, channels: map[int64][][]kernel.Value{}}
	h.cond = sync.NewCond(&h.mu)
	return h
}

// SetInfeed sets the infeed queue: each infeed op pops the next function and
// runs it to get its tensors.
func (h *Hub) SetInfeed(q []kernel.Subplan) {
	h.mu.Lock()
	h.infeed = append([]kernel.Subplan(nil), q...)
	h.mu.Unlock()
}

// Outfeeds returns what the outfeed ops wrote, in the order they ran.
func (h *Hub) Outfeeds() [][]kernel.Value {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([][]kernel.Value(nil), h.outfeed...)
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

// Done records that device dev has finished its program: collectives that
// still wait for it, and receives that nobody is left to serve, fail.
func (h *Hub) Done(dev int) {
	h.mu.Lock()
	if dev >= 0 && dev < h.n && !h.done[dev] {
		h.done[dev] = true
		h.running--
	}
	h.mu.Unlock()
	h.cond.Broadcast()
}

// Exchange implements kernel.Comm.
func (h *Hub) Exchange(key string, self int, group []int, v kernel.Value) ([]kernel.Value, error) {
	if !slices.Contains(group, self) {
		return nil, fmt.Errorf("host: device %d exchanges in collective %q whose group %v does not contain it", self, key, group)
	}
	for _, g := range group {
		if g < 0 || g >= h.n {
			return nil, fmt.Errorf("host: collective %q: device %d out of range (the run has %d devices)", key, g, h.n)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	sk := seqKey{self, key}
	k := h.seq[sk]
	h.seq[sk] = k + 1
	full := key + "#" + strconv.Itoa(k)
	r := h.pending[full]
	if r == nil {
		r = &rendezvous{group: append([]int(nil), group...), vals: map[int]kernel.Value{}}
		h.pending[full] = r
	} else if !slices.Equal(r.group, group) {
		return nil, fmt.Errorf("host: collective %q: device %d joins with group %v, another device with %v", full, self, group, r.group)
	}
	if _, dup := r.vals[self]; dup {
		return nil, fmt.Errorf("host: device %d contributed twice to collective %q", self, full)
	}
	r.vals[self] = v
	h.cond.Broadcast()
	for len(r.vals) < len(r.group) {
		if h.err != nil {
			return nil, fmt.Errorf("host: collective %q aborted: %w", full, h.err)
		}
		for _, g := range r.group {
			if _, ok := r.vals[g]; !ok && h.done[g] {
				return nil, fmt.Errorf("host: collective %q: device %d finished without joining it (devices run different collectives?)", full, g)
			}
		}
		h.cond.Wait()
	}
	out := make([]kernel.Value, len(r.group))
	for i, g := range r.group {
		out[i] = r.vals[g]
	}
	r.readers++
	if r.readers == len(r.group) {
		delete(h.pending, full)
	}
	return out, nil
}

// Send implements kernel.Channels: the message is queued on the channel.
func (h *Hub) Send(channel int64, self int, vals []kernel.Value) error {
	h.mu.Lock()
	h.channels[channel] = append(h.channels[channel], vals)
	h.mu.Unlock()
	h.cond.Broadcast()
	return nil
}

// Recv implements kernel.Channels: it takes the oldest message of the
// channel, waiting while another device could still send one.
func (h *Hub) Recv(channel int64, self int) ([]kernel.Value, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for len(h.channels[channel]) == 0 {
		if h.err != nil {
			return nil, fmt.Errorf("host: recv on channel %d aborted: %w", channel, h.err)
		}
		others := h.running
		if self >= 0 && self < h.n && !h.done[self] {
			others--
		}
		if others <= 0 {
			return nil, fmt.Errorf("host: recv on channel %d: no message was sent and no other device is left to send one", channel)
		}
		h.cond.Wait()
	}
	q := h.channels[channel]
	m := q[0]
	h.channels[channel] = q[1:]
	return m, nil
}

// Infeed implements kernel.Feeds.
func (h *Hub) Infeed(x *kernel.Ctx) ([]kernel.Value, error) {
	h.mu.Lock()
	if len(h.infeed) == 0 {
		h.mu.Unlock()
		return nil, fmt.Errorf("host: infeed is empty")
	}
	f := h.infeed[0]
	h.infeed = h.infeed[1:]
	h.mu.Unlock()
	return f.Run(x, nil)
}

// Outfeed implements kernel.Feeds.
func (h *Hub) Outfeed(self int, vals []kernel.Value) error {
	h.mu.Lock()
	h.outfeed = append(h.outfeed, append([]kernel.Value(nil), vals...))
	h.mu.Unlock()
	return nil
}
