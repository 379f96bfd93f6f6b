package kernel

import "errors"

// ErrCanceled is the error of an op that stopped because its Ctx's Cancel
// channel was closed (for example by the conformance runner's per-case
// timeout, which cannot otherwise stop a goroutine stuck in a loop).
var ErrCanceled = errors.New("kernel: execution canceled")

// Canceled returns ErrCanceled once x.Cancel is closed, else nil. Loops
// (stablehlo.while) call it once per iteration; it costs a non-blocking
// channel poll.
func (x *Ctx) Canceled() error {
	if x.Cancel == nil {
		return nil
	}
	select {
	case <-x.Cancel:
		return ErrCanceled
	default:
		return nil
	}
}
