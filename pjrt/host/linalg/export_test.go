package linalg

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// SetIm2colChunk shrinks the im2col chunk for a test and returns the undo.
func SetIm2colChunk(n int) func() {
	old := im2colChunk
	im2colChunk = n
	return func() { im2colChunk = old }
}

// The raw generators, for known-answer tests.
var (
	ThreeFry2x32 = threeFry2x32
	Philox4x32   = philox4x32
)

// ConvSchedule names the schedule a convolution op compiles to: "direct",
// "rows" or "accumulate" (planes), or "im2col".
func ConvSchedule(op *hlo.Op) (string, error) {
	c := &kernel.OpCtx{Op: op}
	for _, v := range op.Operands {
		c.In = append(c.In, v.Type)
	}
	for _, r := range op.Results {
		c.Out = append(c.Out, r.Type)
	}
	lt, rt, ot, err := convTypes(c)
	if err != nil {
		return "", err
	}
	a, err := readConvAttrs(c, lt.Rank(), true)
	if err != nil {
		return "", err
	}
	p, err := planConv(c, lt, rt, ot, a)
	if err != nil {
		return "", err
	}
	switch {
	case p.taps != nil:
		return "taps", nil
	case p.wgrad != nil:
		return "wgrad", nil
	case p.planes == nil:
		return "im2col", nil
	case p.planes.mode == planesAcc:
		return "accumulate", nil
	case p.planes.direct != nil && useDirect:
		return "direct", nil
	}
	return "rows", nil
}

// SetPlanes turns the planes schedule on or off and returns the undo.
func SetPlanes(on bool) func() {
	old := usePlanes
	usePlanes = on
	return func() { usePlanes = old }
}

// SetSmallConv turns the small-channel schedules on or off, with goOnly
// forcing their Go loops, and returns the undo.
func SetSmallConv(on, goOnly bool) func() {
	old, oldGo := useSmallConv, forceSmallGo
	useSmallConv, forceSmallGo = on, goOnly
	return func() { useSmallConv, forceSmallGo = old, oldGo }
}

// HasSmallConvKernels reports whether the small-channel schedules have
// their assembly kernels on this machine (else they are chosen only when
// the Go loops are forced).
func HasSmallConvKernels() bool { return tapsKernel != nil && wgradKernel != nil }

// RaceBuild reports a race-detector build: random numeric tests run their
// -short number of cases there (the detector slows the Go kernels tenfold
// and finds nothing more in the extra cases, which differ only in shapes).
const RaceBuild = raceBuild
