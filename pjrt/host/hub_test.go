package host

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// TestHubOrderedMatching: the k-th exchange of each device under one key
// meets the k-th of its peers, whatever the interleaving.
func TestHubOrderedMatching(t *testing.T) {
	h := NewHub(3)
	const rounds = 50
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for d := 0; d < 3; d++ {
		wg.Add(1)
		go func(d int) {
			defer wg.Done()
			defer h.Done(d)
			for k := 0; k < rounds; k++ {
				got, err := h.Exchange("g", d, []int{0, 1, 2}, k*10+d)
				if err != nil {
					errs <- err
					return
				}
				for i, v := range got {
					if v != k*10+i {
						errs <- errors.New("round mismatch")
						return
					}
				}
			}
		}(d)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(h.pending) != 0 {
		t.Fatalf("%d rendezvous left pending", len(h.pending))
	}
}

func TestHubFailures(t *testing.T) {
	h := NewHub(2)
	if _, err := h.Exchange("g", 0, []int{1}, 1); err == nil || !strings.Contains(err.Error(), "does not contain") {
		t.Fatalf("err = %v", err)
	}
	// A peer that finishes without joining fails the waiter.
	done := make(chan error)
	go func() {
		_, err := h.Exchange("g", 0, []int{0, 1}, 1)
		done <- err
	}()
	h.Done(1)
	if err := <-done; err == nil || !strings.Contains(err.Error(), "finished without joining") {
		t.Fatalf("err = %v", err)
	}
	// Nobody left to send: recv fails instead of blocking.
	if _, err := h.Recv(7, 0); err == nil {
		t.Fatal("recv with no sender succeeded")
	}
	// Abort wakes a blocked receiver.
	h2 := NewHub(2)
	go func() { done <- func() error { _, err := h2.Recv(1, 0); return err }() }()
	h2.Abort(kernel.ErrCanceled)
	if err := <-done; !errors.Is(err, kernel.ErrCanceled) {
		t.Fatalf("err = %v", err)
	}
	// Messages queue in order.
	h3 := NewHub(2)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(h3.Send(4, 0, []kernel.Value{1}))
	must(h3.Send(4, 0, []kernel.Value{2}))
	for _, want := range []int{1, 2} {
		m, err := h3.Recv(4, 1)
		must(err)
		if m[0] != want {
			t.Fatalf("got %v, want %d", m, want)
		}
	}
}
