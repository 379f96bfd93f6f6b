package host

import (
	"math"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Memory accounting of a running plan. Each block run counts, in the
// device's kernel.Mem, the bytes of the values its steps make while they
// are live:
//
//   - a Fresh or fused step reserves the bytes of its (static) results
//     before it runs, so an allocation that would pass the limit fails as
//     an out-of-memory error naming the op before anything is allocated;
//   - a step of another kernel that allocates (NoAlloc unset) must fit its
//     results' bytes before it runs; those results, and the results of
//     steps that allocate nothing (views, tuples, control flow), are
//     counted after the step, at their actual size;
//   - a slot freed after its last use gives its bytes back, and a block
//     gives back everything it still counts when it ends (its results pass
//     to the op or caller that ran it, which counts them in turn);
//   - a region's block counts its arguments too (a loop's state is held
//     by the loop, not by a frame), a function body does not (its caller
//     holds them).
//
// A value and a view of it (reshape, a tuple element) are both counted
// while both are live; the count errs high, never low. Blocks whose steps
// together make less than accountMinBytes (reduction bodies, comparators,
// scalar chains) count nothing, so they cost nothing per run.

// accountMinBytes is the size of the results of all steps of a block below
// which the block does no accounting.
const accountMinBytes = 4 << 10

// stepAccount is what a step does for the memory account.
type stepAccount struct {
	reserve int64   // bytes reserved before the step runs
	check   int64   // bytes that must fit before the step runs
	after   bool    // count the results' actual bytes after the step
	release []int32 // freed slots whose bytes the block counts
}

// valueBytes is the storage of a runtime value (tuples summed).
func valueBytes(v kernel.Value) int64 {
	switch v := v.(type) {
	case *hlo.Literal:
		return int64(len(v.Data))
	case kernel.Tuple:
		n := int64(0)
		for _, e := range v {
			n += valueBytes(e)
		}
		return n
	}
	return 0
}

// planAccount decides the accounting of every step of bp (built with the
// given arguments; region says bp is a region's block) and whether bp
// accounts at all.
func (c *planner) planAccount(bp *blockPlan, args []*hlo.Value, region bool) {
	counted := map[int32]bool{}
	if region {
		for _, a := range args {
			counted[int32(a.ID)] = true
		}
	}
	total := int64(0)
	for i := range bp.steps {
		s := &bp.steps[i]
		var types []hlo.Type
		fresh, noAlloc := true, false
		if cp := s.compound; cp != nil {
			for _, v := range cp.Outputs {
				types = append(types, v.Type)
			}
		} else if s.fused != nil {
			for j, t := range s.fused.outType {
				if s.fused.inPlace[j] < 0 {
					types = append(types, t)
				}
			}
		} else {
			for _, r := range s.op.Results {
				types = append(types, r.Type)
			}
			e := kernel.Lookup(s.op.Name)
			fresh, noAlloc = e.IsFresh(s.op), e.NoAlloc
		}
		bytes, static := int64(0), true
		for _, t := range types {
			n, ok := hlo.TypeByteSize(t)
			static = static && ok
			bytes = satAdd(bytes, n)
		}
		switch {
		case !static:
			total = accountMinBytes
			s.acct.after = true
		case fresh:
			s.acct.reserve = bytes
		case noAlloc:
			s.acct.after = true
		default:
			s.acct.check = bytes
			s.acct.after = true
		}
		total = min(satAdd(total, bytes), accountMinBytes)
		// Slots an in-place output took over stay counted as that output.
		inPlace := map[int32]bool{}
		if f := s.fused; f != nil {
			for j, k := range f.inPlace {
				if k >= 0 {
					inPlace[int32(f.inVals[k].ID)] = true
					counted[s.out[j]] = true
				}
			}
		}
		for _, id := range s.free {
			if counted[id] && !inPlace[id] {
				s.acct.release = append(s.acct.release, id)
			}
		}
		for _, id := range s.out {
			counted[id] = true
		}
	}
	bp.account = total >= accountMinBytes
	bp.adoptArgs = region
}

// satAdd adds non-negative byte counts, saturating.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// before reserves or checks the step's bytes; on an error nothing was
// reserved.
func (s *step) before(x *kernel.Ctx, frame []kernel.Value, mem *kernel.Mem, live *int64) error {
	a := &s.acct
	if n := a.reserve; n > 0 {
		if f := s.fused; f != nil && f.argInPlace != nil && len(x.Donated) > 0 {
			// Outputs that will take donated storage need no bytes of
			// their own (the donated buffer is counted until the end).
			n -= f.donatedBytes(x, frame, s)
		}
		if !mem.Reserve(n) {
			return s.outOfMemory(mem, n)
		}
		*live += n
	}
	if a.check > 0 && !mem.Fits(a.check) {
		return s.outOfMemory(mem, a.check)
	}
	return nil
}

// afterStep gives back the bytes of the slots the step frees and counts
// its results when they are counted after the step.
func (s *step) afterStep(x *kernel.Ctx, frame []kernel.Value, mem *kernel.Mem, live *int64) {
	a := &s.acct
	n := int64(0)
	for _, id := range a.release {
		if !x.InDonatedValue(frame[id]) { // counted by its donated buffer
			n -= valueBytes(frame[id])
		}
	}
	if a.after {
		for _, id := range s.out {
			n += valueBytes(frame[id])
		}
	}
	if n != 0 {
		mem.Add(n)
		*live += n
	}
}

// outOfMemory is the error of a step whose n bytes of results mem refused.
func (s *step) outOfMemory(mem *kernel.Mem, n int64) error {
	op := s.op
	var shapes []string
	if f := s.fused; f != nil {
		op = f.outVals[0].Def
		for _, t := range f.outType {
			shapes = append(shapes, t.ShapeString())
		}
	} else {
		for _, r := range s.op.Results {
			if t := r.TensorType(); t != nil {
				shapes = append(shapes, t.ShapeString())
			} else {
				shapes = append(shapes, r.Type.String())
			}
		}
	}
	return mem.OutOfMemory(op, "", strings.Join(shapes, ", "), n)
}
