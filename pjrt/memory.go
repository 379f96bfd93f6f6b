package pjrt

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrOutOfMemory is what errors.Is finds in every error a device returns
// because an allocation would pass its memory limit. The device's state is
// unchanged by the failed call: nothing was allocated.
var ErrOutOfMemory = errors.New("out of device memory")

// OutOfMemoryError is an allocation refused by a device's memory limit: it
// names what asked (an op with its source position, or a transfer), the
// shape and the bytes asked against those in use and the limit.
type OutOfMemoryError struct {
	Op     string // "stablehlo.broadcast_in_dim", "BufferFromHost", ...
	Loc    string // source position of the op ("file:line:col"), or ""
	Shape  string // "f32[1099511627776]"
	Device int
	Bytes  int64 // asked
	InUse  int64 // in use on the device (or the account that refused) when asked
	Limit  int64
	// Setting names how to change the limit (an environment variable), or "".
	Setting string
}

func (e *OutOfMemoryError) Error() string {
	s := ""
	if e.Loc != "" {
		s = e.Loc + ": "
	}
	s += fmt.Sprintf("%s: out of memory on device %d: %s needs %s with %s in use; the limit is %s",
		e.Op, e.Device, e.Shape, FormatBytes(e.Bytes), FormatBytes(e.InUse), FormatBytes(e.Limit))
	if e.Setting != "" {
		s += " (" + e.Setting + ")"
	}
	return s
}

// Is makes errors.Is(err, ErrOutOfMemory) hold.
func (e *OutOfMemoryError) Is(target error) bool { return target == ErrOutOfMemory }

// FormatBytes prints a byte count exactly and, from 1 KiB, with a binary
// unit: "4398046511104 bytes (4 TiB)".
func FormatBytes(n int64) string {
	s := strconv.FormatInt(n, 10) + " bytes"
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	if n < 1024 {
		return s
	}
	v := float64(n)
	u := -1
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	return s + " (" + strconv.FormatFloat(v, 'g', 4, 64) + " " + units[u] + ")"
}

// PeakResetter is optionally implemented by a Client whose MemoryInfo
// tracks its peak: ResetPeakBytes makes the device's PeakBytes its current
// BytesInUse, so that the peak of one step can be measured.
type PeakResetter interface {
	ResetPeakBytes(device int) error
}

// ResetPeakBytes resets device's peak memory use through c's PeakResetter.
func ResetPeakBytes(c Client, device int) error {
	r, ok := c.(PeakResetter)
	if !ok {
		return fmt.Errorf("pjrt: the %s client (%s) cannot reset its peak memory use", c.Platform(), c.PlatformVersion())
	}
	return r.ResetPeakBytes(device)
}
