package host

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/internal/refs"
	"github.com/xlajit/xlajit/internal/slab"
	"github.com/xlajit/xlajit/pjrt/host/elementwise"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Fusion. A maximal run of elementwise ops over same-shaped tensors becomes
// one step that walks the elements in cache-sized tiles: each member's
// TileFn computes one tile into a tile-sized scratch buffer (or straight
// into the member's result when that value is needed after the step), the
// next member reads it from there, and tiles are spread over the cores. A
// broadcast_in_dim of a rank-0 value joins as a splat, filled once per
// chunk. Every element is computed by the same TileFns as unfused
// execution, so results are bit-identical.

// group is a run of ops compiled into one step: a single op, or (fused)
// the members of a fusion in program order.
type group struct {
	ops   []*hlo.Op
	fused bool
	// compound, when set, is the compound step computing ops, anchored at
	// anchor.
	compound *kernel.Compound
	anchor   *hlo.Op
}

// fusible reports whether op can be a fusion member, and its result shape.
func (c *planner) fusible(op *hlo.Op) ([]int64, bool) {
	if c.prog.noFuse || len(op.Results) != 1 || len(op.Regions) > 0 {
		return nil, false
	}
	rt := op.Results[0].TensorType()
	if rt == nil || rt.Quant != nil || !rt.IsStatic() {
		return nil, false
	}
	if isSplat(op) {
		return rt.Dims, true
	}
	e := c.lookup(op.Name)
	if e == nil || e.Elementwise == nil {
		return nil, false
	}
	for _, v := range op.Operands {
		t := v.TensorType()
		if t == nil || t.Quant != nil || !t.IsStatic() {
			return nil, false
		}
		if !slices.Equal(t.Dims, rt.Dims) && !(len(t.Dims) == 0 && e.Elementwise.ScalarOperands) {
			return nil, false
		}
	}
	return rt.Dims, true
}

// isSplat matches broadcast_in_dim of a rank-0 tensor: every element of
// its result is the operand's one element.
func isSplat(op *hlo.Op) bool {
	if op.Name != "stablehlo.broadcast_in_dim" || len(op.Operands) != 1 || len(op.Results) != 1 {
		return false
	}
	t, rt := op.Operands[0].TensorType(), op.Results[0].TensorType()
	return t != nil && rt != nil && len(t.Dims) == 0 && t.Quant == nil && rt.Quant == nil && t.DType == rt.DType
}

// group splits a block's ops into steps. Open fusions, one per shape,
// collect fusible ops; other ops are emitted before them (a fusion runs
// where it closes). A fusion closes when an op that does not join it reads
// one of its values, and at the end of the block.
//
// The ops of a compound step (comps) form one group placed where the
// last of them is.
func (c *planner) group(ops []*hlo.Op, uses *useInfo, comps compoundSet) []group {
	out := make([]group, 0, len(ops))
	type openGroup struct {
		g      group
		dims   []int64
		idx    int // in all
		closed bool
	}
	var open []*openGroup
	// The fusion of each member's value (by value ID, an index in all);
	// only values of open fusions count.
	var all []*openGroup
	// The op lists of single ops are cut from one array.
	singles := make([]*hlo.Op, 0, len(ops))
	t := c.takeTables()
	defer c.putTables(t)
	owner := func(v *hlo.Value) *openGroup {
		if v.ID < 0 || v.ID >= c.nvals {
			return nil
		}
		if k, ok := t.memberOf.get(v.ID); ok && !all[k].closed {
			return all[k]
		}
		return nil
	}
	closeGroup := func(o *openGroup) {
		for i, x := range open {
			if x == o {
				open = append(open[:i], open[i+1:]...)
				break
			}
		}
		o.closed = true
		out = append(out, o.g)
	}
	var last map[*kernel.Compound]*hlo.Op
	if len(comps.of) > 0 {
		last = map[*kernel.Compound]*hlo.Op{}
		for _, op := range ops {
			if cp := comps.of[op]; cp != nil {
				last[cp] = op
			}
		}
	}
	for _, op := range ops {
		if cp := comps.of[op]; cp != nil {
			if last[cp] != op {
				continue
			}
			for _, v := range cp.Inputs {
				if o := owner(v); o != nil {
					closeGroup(o)
				}
			}
			out = append(out, group{ops: cp.Ops, compound: cp, anchor: comps.anchor[cp]})
			continue
		}
		dims, ok := c.fusible(op)
		var join *openGroup
		if ok {
			for _, o := range open {
				if slices.Equal(o.dims, dims) {
					join = o
				}
			}
		}
		for _, v := range usedValues(op) {
			if o := owner(v); o != nil && o != join {
				closeGroup(o)
			}
		}
		if !ok {
			singles = append(singles, op)
			out = append(out, group{ops: singles[len(singles)-1 : len(singles) : len(singles)]})
			continue
		}
		if join == nil {
			join = &openGroup{g: group{fused: true}, dims: dims, idx: len(all)}
			open = append(open, join)
			all = append(all, join)
		}
		join.g.ops = append(join.g.ops, op)
		uses.setFused(op)
		t.memberOf.set(op.Results[0].ID, join.idx)
	}
	for len(open) > 0 {
		closeGroup(open[0])
	}
	return out
}

// Source kinds of a member's operand.
const (
	srcIn     = iota // an external input, tiled
	srcScalar        // an external rank-0 input, passed whole
	srcMember        // an earlier member's result
)

type fsrc struct {
	kind, idx int
}

type fmember struct {
	name      string // op name, for PlanString
	fn        kernel.TileFn
	dt        hlo.DType
	size      int
	srcs      []fsrc
	out       int  // index in outVals, or -1 for a value living only in tiles
	invariant bool // every element equal: computed once per chunk
	// buf is the scratch buffer holding a tile of a value living only in
	// tiles (shared with members whose values are dead by then), or -1.
	buf int
	// fixed is a tile of a splatted constant, filled at compile time and
	// shared by every execution (fn is nil).
	fixed []byte
}

// fusion is a compiled fused step.
type fusion struct {
	n     int
	dims  []int64
	tile  int // elements per tile
	grain int // elements worth a parallel chunk

	members  []fmember
	inVals   []*hlo.Value   // external inputs
	consts   []*hlo.Literal // per input: its literal when a constant op makes it, else nil (read from the frame)
	inScalar []bool
	inDType  []hlo.DType // per input: its element type and bytes (fusion.input's check)
	inBytes  []int
	lastRead []int // per input: the last member reading it
	outVals  []*hlo.Value
	outType  []*hlo.TensorType
	outOf    []int // per output: its member
	inPlace  []int // per output: the input whose storage it takes, or -1
	// argInPlace (per output, or nil): the entry argument inputs whose
	// storage the output may take when the execution donated them.
	argInPlace [][]int
	single     bool // one member: run its TileFn on whole literals
	// direct is the member run on whole literals when an execution pool
	// gives scratch for its operand list (runSingle): the only member when
	// single, or the only computing one when the others are splatted
	// constants whose compile-time tile holds all n elements (x+1 on a
	// small tensor). -1: run tile by tile.
	direct int
	// fixedLit (per member, when direct) is a fixed member's tile as a
	// literal of the step's shape, or nil.
	fixedLit []*hlo.Literal
	bufSize  []int // per scratch buffer: bytes per element
	states   freeList[fuseState]
}

// takeTables lends the planner's per-function fusion tables (made on
// first use); putTables clears them and takes them back.
func (c *planner) takeTables() *fuseTables {
	t := c.tabs
	if t == nil {
		t = newFuseTables(c.nvals)
	}
	c.tabs = nil
	return t
}

func (c *planner) putTables(t *fuseTables) {
	t.reset()
	c.tabs = t
}

// fuse compiles the members of g. Members whose result nobody reads are
// dropped; results read after the step (or returned) are materialized.
func (c *planner) fuse(g group, uses *useInfo, returned map[int]bool) (*fusion, error) {
	// Members have one result each: op-keyed tables use its ID.
	t := c.takeTables()
	defer c.putTables(t)
	inGroup := func(op *hlo.Op) bool {
		if len(op.Results) != 1 {
			return false
		}
		_, ok := t.inGroup.get(op.Results[0].ID)
		return ok
	}
	for _, op := range g.ops {
		t.inGroup.set(op.Results[0].ID, 0)
	}
	// Liveness inside the group, last member first.
	live := func(op *hlo.Op) bool {
		_, ok := t.live.get(op.Results[0].ID)
		return ok
	}
	for i := len(g.ops) - 1; i >= 0; i-- {
		op := g.ops[i]
		v := op.Results[0]
		if returned[v.ID] {
			t.live.set(v.ID, 0)
		}
		for _, u := range uses.usersOf(v) {
			if !inGroup(u) || live(u) {
				t.live.set(v.ID, 0)
			}
		}
	}
	f := &fusion{}
	// The members' source lists are cut from one array.
	nsrc := 0
	for _, op := range g.ops {
		nsrc += len(op.Operands)
	}
	srcs := make([]fsrc, 0, nsrc)
	// Constants and splats, in the group or read from outside it, become
	// shared members (one per distinct element), so the other live ops
	// and a few more estimate the members (append grows the list past it
	// if need be).
	nmem := 8
	for _, op := range g.ops {
		if live(op) && op.Name != "stablehlo.constant" && !isSplat(op) {
			nmem++
		}
	}
	f.members = make([]fmember, 0, nmem)
	memberOf, inputOf := &t.memberOf, &t.inputOf
	bytesPerElem := 0
	cost := 0
	var fixedOf fixedMembers // a constant splat's element -> its member
	// fixedMember returns the member of a splatted constant's element e:
	// every tile of it is the same, filled once at compile time, one
	// member per distinct value.
	fixedMember := func(e hlo.Literal) int {
		key := keyOf(e.DType, e.Data)
		j, ok := fixedOf.get(key)
		if !ok {
			j = len(f.members)
			fixedOf.set(key, j)
			f.members = append(f.members, fmember{name: "splat", dt: e.DType, size: e.DType.Size(), out: -1, buf: -1, invariant: true, fixed: e.Data})
			bytesPerElem += e.DType.Size()
		}
		return j
	}
	for _, op := range g.ops {
		if !live(op) {
			continue
		}
		rt := op.Results[0].TensorType()
		if len(f.members) == 0 {
			f.dims = rt.Dims
			f.n = int(rt.NumElements())
		}
		v := op.Results[0]
		materialize := returned[v.ID]
		for _, u := range uses.usersOf(v) {
			if !inGroup(u) {
				materialize = true
			}
		}
		if e, ok := splattedConstant(op, inGroup); ok && !materialize {
			memberOf.set(v.ID, fixedMember(e))
			continue
		}
		m := fmember{name: op.Name, dt: rt.DType, size: rt.DType.Size(), out: -1, buf: -1}
		if isSplat(op) {
			m.name = "splat"
			m.fn = splatTile(rt.DType.Size())
			cost++
		} else {
			e := c.lookup(op.Name)
			fn, err := e.Elementwise.Prepare(c.opCtx(op))
			if err != nil {
				return nil, err
			}
			m.fn = fn
			cost += max(e.Elementwise.Cost, 1)
		}
		invariant := true
		m.srcs = srcs[len(srcs) : len(srcs) : len(srcs)+len(op.Operands)]
		srcs = srcs[:len(srcs)+len(op.Operands)]
		for _, v := range op.Operands {
			if _, ok := memberOf.get(v.ID); !ok && v.Def != nil && !inGroup(v.Def) && v.Def.Name == "stablehlo.constant" {
				// A splat constant is a fixed tile, whatever its size.
				if e, ok := kernel.SplatElement(v); ok && slices.Equal(v.TensorType().Dims, f.dims) {
					memberOf.set(v.ID, fixedMember(e))
				}
			}
			if j, ok := memberOf.get(v.ID); ok {
				m.srcs = append(m.srcs, fsrc{srcMember, j})
				invariant = invariant && f.members[j].invariant
				continue
			}
			k, ok := inputOf.get(v.ID)
			if !ok {
				k = len(f.inVals)
				inputOf.set(v.ID, k)
				f.inVals = append(f.inVals, v)
				var lit *hlo.Literal
				if v.Def != nil && v.Def.Name == "stablehlo.constant" {
					l, err := elementwise.ConstantValue(v.Def)
					if err != nil {
						return nil, err
					}
					lit = l
				}
				f.consts = append(f.consts, lit)
				scalar := len(v.TensorType().Dims) == 0 && f.n != 1
				f.inScalar = append(f.inScalar, scalar)
				f.lastRead = append(f.lastRead, 0)
				if !scalar {
					bytesPerElem += v.TensorType().DType.Size()
				}
			}
			f.lastRead[k] = len(f.members)
			if f.inScalar[k] {
				m.srcs = append(m.srcs, fsrc{srcScalar, k})
			} else {
				m.srcs = append(m.srcs, fsrc{srcIn, k})
				invariant = false
			}
		}
		if materialize {
			m.out = len(f.outVals)
			f.outVals = append(f.outVals, v)
			f.outType = append(f.outType, rt)
			f.outOf = append(f.outOf, len(f.members))
			f.inPlace = append(f.inPlace, -1)
			invariant = false
			bytesPerElem += m.size
		}
		m.invariant = invariant
		memberOf.set(v.ID, len(f.members))
		f.members = append(f.members, m)
	}
	f.single = len(f.members) == 1
	if !f.single {
		bytesPerElem += f.assignBuffers()
	}
	// A tile never exceeds the elements there are (rounded up to a cache
	// line of f32), so small fusions keep small scratch.
	f.tile = min(tileFor(bytesPerElem), max((f.n+15)&^15, 16))
	// The compile-time tiles, and the scratch each worker allocates, must
	// fit the memory limit.
	tiles := int64(0)
	for j := range f.members {
		if m := &f.members[j]; m.fixed != nil {
			tiles += int64(f.tile * m.size)
		}
	}
	for _, size := range f.bufSize {
		tiles += int64(f.tile*size) * int64(runtime.GOMAXPROCS(0))
	}
	if mem := c.prog.mem; !mem.Fits(tiles) {
		return nil, mem.OutOfMemory(g.ops[0], "", fmt.Sprintf("%d fused tiles of %d elements", len(f.members), f.tile), tiles)
	}
	for j := range f.members {
		if m := &f.members[j]; m.fixed != nil {
			tile := hlo.AlignedBytes(f.tile * m.size)
			kernel.Fill(tile, m.fixed)
			m.fixed = tile
		}
	}
	f.grain = kernel.ElementGrain(cost)
	f.direct = f.directMember()
	for k, v := range f.inVals {
		dt := v.TensorType().DType
		n := f.n
		if f.inScalar[k] {
			n = 1
		}
		f.inDType = append(f.inDType, dt)
		f.inBytes = append(f.inBytes, n*dt.Size())
	}
	return f, nil
}

// directMember returns the member runSingle runs (see fusion.direct), or
// -1, and makes the fixed members' literals it reads.
func (f *fusion) directMember() int {
	if f.single {
		return 0
	}
	if len(f.outVals) != 1 || f.n > f.tile {
		return -1
	}
	d := -1
	for j := range f.members {
		if f.members[j].fixed != nil {
			continue
		}
		if d >= 0 {
			return -1 // two computing members: tile by tile
		}
		d = j
	}
	if d < 0 || f.members[d].out != 0 {
		return -1
	}
	f.fixedLit = make([]*hlo.Literal, len(f.members))
	for j := range f.members {
		if m := &f.members[j]; m.fixed != nil {
			f.fixedLit[j] = &hlo.Literal{DType: m.dt, Dims: f.dims, Data: m.fixed[:f.n*m.size]}
		}
	}
	return d
}

// fixedKey identifies a splatted constant's element (up to 16 bytes,
// complex128; longer elements share a key only when equal as strings).
type fixedKey struct {
	dt   hlo.DType
	n    int
	b    [16]byte
	long string
}

// fixedMembers maps splatted constants' elements to their members: a
// list while there are few (a fusion has a handful of distinct
// constants, and hashing the key costs more than comparing a few), a map
// past that.
type fixedMembers struct {
	keys []fixedKey
	idx  []int
	m    map[fixedKey]int
}

const maxFixedList = 8

func (s *fixedMembers) get(k fixedKey) (int, bool) {
	if s.m != nil {
		j, ok := s.m[k]
		return j, ok
	}
	for i := range s.keys {
		if s.keys[i] == k {
			return s.idx[i], true
		}
	}
	return 0, false
}

func (s *fixedMembers) set(k fixedKey, j int) {
	if s.m == nil && len(s.keys) < maxFixedList {
		s.keys, s.idx = append(s.keys, k), append(s.idx, j)
		return
	}
	if s.m == nil {
		s.m = make(map[fixedKey]int, 2*maxFixedList)
		for i, k := range s.keys {
			s.m[k] = s.idx[i]
		}
	}
	s.m[k] = j
}

func keyOf(dt hlo.DType, data []byte) fixedKey {
	k := fixedKey{dt: dt, n: len(data)}
	if len(data) > len(k.b) {
		k.long = string(data)
	} else {
		copy(k.b[:], data)
	}
	return k
}

// splattedConstant returns the element of a splat (broadcast_in_dim of a
// rank-0 value) whose operand is a constant made outside the group.
func splattedConstant(op *hlo.Op, inGroup func(*hlo.Op) bool) (hlo.Literal, bool) {
	if !isSplat(op) {
		return hlo.Literal{}, false
	}
	if d := op.Operands[0].Def; d == nil || inGroup(d) {
		return hlo.Literal{}, false
	}
	return kernel.SplatElement(op.Results[0])
}

// assignBuffers gives each member whose value lives only in tiles a scratch
// buffer, reusing the buffer of a value no later member reads (a chain of n
// ops needs two, not n); invariant members, computed once per chunk, keep
// theirs. It returns the scratch bytes per element.
func (f *fusion) assignBuffers() int {
	lastRead := make([]int, len(f.members))
	for j := range f.members {
		for _, s := range f.members[j].srcs {
			if s.kind == srcMember {
				lastRead[s.idx] = j
			}
		}
	}
	free := map[int][]int{} // element size -> free buffers
	bytes := 0
	for j := range f.members {
		m := &f.members[j]
		if m.out < 0 && m.fixed == nil {
			// Invariant values stay in their buffer for the whole chunk.
			if l := free[m.size]; len(l) > 0 && !m.invariant {
				m.buf, free[m.size] = l[len(l)-1], l[:len(l)-1]
			} else {
				m.buf = len(f.bufSize)
				f.bufSize = append(f.bufSize, m.size)
				bytes += m.size
			}
		}
		// Release the buffers of values this member reads last (after
		// taking its own: a TileFn's destination is not one of its sources
		// unless the kinds match, which a shared buffer would not check).
		for k, s := range m.srcs {
			if s.kind != srcMember || lastRead[s.idx] != j || slices.Contains(m.srcs[:k], s) {
				continue
			}
			if src := &f.members[s.idx]; src.buf >= 0 && !src.invariant {
				free[src.size] = append(free[src.size], src.buf)
			}
		}
	}
	return bytes
}

// tileFor picks the elements per tile so that one tile of every member and
// input fits comfortably in a core's L1/L2 cache.
func tileFor(bytesPerElem int) int {
	t := (64 << 10) / max(bytesPerElem, 1)
	t = min(max(t, 256), 4096)
	return t &^ 63
}

// planInPlace lets outputs take the storage of inputs that die at this
// step: same element type and size, owned by the plan (recycled), and read
// by no member after the one writing the output.
func (f *fusion) planInPlace(s *step, reads []*hlo.Value, c *planner, views *viewInfo) {
	// An input whose storage another input views cannot be overwritten.
	shared := map[*hlo.Value]bool{}
	for _, iv := range f.inVals {
		if r := views.root[iv]; r != nil {
			shared[r] = true
		}
	}
	for j := range f.outVals {
		for k, iv := range f.inVals {
			if f.inScalar[k] || !sameType(iv.TensorType(), f.outType[j]) || f.lastRead[k] > f.outOf[j] || shared[iv] {
				continue
			}
			pos := -1
			for r := 0; r < s.nrecycle; r++ {
				if int(s.free[r]) == iv.ID {
					pos = r
				}
			}
			if pos < 0 {
				continue
			}
			// The input's slot is still cleared, but its storage is no longer
			// recycled: move it past the recycled prefix.
			s.free[pos], s.free[s.nrecycle-1] = s.free[s.nrecycle-1], s.free[pos]
			s.nrecycle--
			f.inPlace[j] = k
			break
		}
	}
}

// sameType reports equal element types and dims (an output taking an
// input's storage takes its literal, dims included).
func sameType(a, b *hlo.TensorType) bool { return a.DType == b.DType && slices.Equal(a.Dims, b.Dims) }

// planArgInPlace lists, per output, the entry arguments dying at this step
// (s.argFree) whose storage it may take when an execution donates them:
// same element type and size, read by no member after the one writing the
// output.
func (f *fusion) planArgInPlace(s *step) {
	for j := range f.outVals {
		if f.inPlace[j] >= 0 {
			continue
		}
		for k, iv := range f.inVals {
			if f.consts[k] != nil || f.inScalar[k] || !sameType(iv.TensorType(), f.outType[j]) || f.lastRead[k] > f.outOf[j] || !slices.Contains(s.argFree, int32(iv.ID)) || slices.Contains(f.inPlace, k) {
				continue
			}
			if f.argInPlace == nil {
				f.argInPlace = make([][]int, len(f.outVals))
			}
			f.argInPlace[j] = append(f.argInPlace[j], k)
		}
	}
}

// donatedOutput returns the storage output j takes in place from a donated
// argument among ins (one not taken by an earlier output of outs), or nil.
func (f *fusion) donatedOutput(x *kernel.Ctx, j int, ins, outs []*hlo.Literal) *hlo.Literal {
	if f.argInPlace == nil || len(x.Donated) == 0 {
		return nil
	}
	for _, k := range f.argInPlace[j] {
		if l := ins[k]; x.IsDonated(l) && !slices.Contains(outs[:j], l) {
			return l
		}
	}
	return nil
}

// donatedBytes is the bytes of the outputs of s that will take donated
// storage when it runs (the choice fusion.run makes).
func (f *fusion) donatedBytes(x *kernel.Ctx, frame []kernel.Value, s *step) int64 {
	var n int64
	var tb [32]*hlo.Literal // no allocation for up to 32 outputs taking donated storage
	taken := tb[:0]
	for j, cands := range f.argInPlace {
		if f.inPlace[j] >= 0 {
			continue
		}
		for _, k := range cands {
			l, _ := frame[s.in[k]].(*hlo.Literal)
			if l != nil && x.IsDonated(l) && !slices.Contains(taken, l) {
				taken = append(taken, l)
				n += int64(len(l.Data))
				break
			}
		}
	}
	return n
}

// donatedSingle is donatedOutput for a one-member fusion reading the
// frame.
func (f *fusion) donatedSingle(x *kernel.Ctx, frame []kernel.Value, s *step) *hlo.Literal {
	if f.argInPlace == nil || len(x.Donated) == 0 {
		return nil
	}
	for _, k := range f.argInPlace[0] {
		if l, _ := f.input(frame, s, k); l != nil && x.IsDonated(l) {
			return l
		}
	}
	return nil
}

// fuseState is one worker's view of a fused step: tile views of the
// inputs and member results, each member's operand list, and scratch.
type fuseState struct {
	ins    []*hlo.Literal // bound inputs (whole literals)
	outs   []*hlo.Literal // output literals
	inView []hlo.Literal
	mView  []hlo.Literal
	srcs   [][]*hlo.Literal
	bufs   [][]byte
	// par runs tiles [lo, hi) of the step whose whole literals this state
	// holds, on a worker's own state: bound once, so that a parallel step
	// allocates no closure.
	par func(lo, hi int)
}

// getState returns a kept worker state or a new one.
func (f *fusion) getState() *fuseState {
	if st := f.states.get(); st != nil {
		return st
	}
	return f.newState()
}

func (f *fusion) newState() *fuseState {
	st := &fuseState{
		ins:    make([]*hlo.Literal, len(f.inVals)),
		outs:   make([]*hlo.Literal, len(f.outVals)),
		inView: make([]hlo.Literal, len(f.inVals)),
		mView:  make([]hlo.Literal, len(f.members)),
		srcs:   make([][]*hlo.Literal, len(f.members)),
		bufs:   make([][]byte, len(f.bufSize)),
	}
	st.par = func(lo, hi int) {
		w := f.getState()
		f.chunk(w, st, lo*f.tile, min(hi*f.tile, f.n))
		f.states.put(w)
	}
	for k, v := range f.inVals {
		st.inView[k].DType = v.TensorType().DType
	}
	for b, size := range f.bufSize {
		st.bufs[b] = hlo.AlignedBytes(f.tile * size)
	}
	nsrc := 0
	for j := range f.members {
		nsrc += len(f.members[j].srcs)
	}
	flat := make([]*hlo.Literal, nsrc) // one allocation for every operand list
	for j := range f.members {
		m := &f.members[j]
		st.mView[j].DType = m.dt
		st.mView[j].Data = m.fixed
		st.srcs[j], flat = flat[:len(m.srcs):len(m.srcs)], flat[len(m.srcs):]
		for k, s := range m.srcs {
			switch s.kind {
			case srcIn, srcScalar:
				st.srcs[j][k] = &st.inView[s.idx]
			case srcMember:
				st.srcs[j][k] = &st.mView[s.idx]
			}
		}
	}
	return st
}

// run executes the fused step of s on frame.
func (f *fusion) run(x *kernel.Ctx, frame []kernel.Value, s *step) error {
	if f.direct >= 0 && x.Pool != nil {
		return f.runSingle(x, frame, s)
	}
	st := f.getState()
	for k := range s.in {
		l, err := f.input(frame, s, k)
		if err != nil {
			f.states.put(st)
			return err
		}
		st.ins[k] = l
	}
	for j, t := range f.outType {
		if k := f.inPlace[j]; k >= 0 {
			st.outs[j] = st.ins[k]
		} else if l := f.donatedOutput(x, j, st.ins, st.outs); l != nil {
			st.outs[j] = l
			x.InDonated = append(x.InDonated, l)
		} else {
			st.outs[j] = x.NewLiteralUninit(t.DType, f.dims)
		}
	}
	switch {
	case f.single:
		m := &f.members[0]
		for k, src := range m.srcs {
			st.srcs[0][k] = st.ins[src.idx]
		}
		f.runTile(m, st.outs[0], st.srcs[0])
		refs.Drop(st.srcs[0])
	case f.n <= f.grain || f.n <= f.tile:
		f.chunk(st, st, 0, f.n)
	default:
		tiles := (f.n + f.tile - 1) / f.tile
		kernel.ParallelFor(tiles, max(f.grain/f.tile, 1), st.par)
	}
	for j, id := range s.out {
		frame[id] = st.outs[j]
	}
	refs.Drop(st.ins)
	refs.Drop(st.outs)
	f.states.put(st)
	return nil
}

// input returns input k of step s: its bound constant or its frame value,
// checked against the plan's element type and count.
func (f *fusion) input(frame []kernel.Value, s *step, k int) (*hlo.Literal, error) {
	id := s.in[k]
	if id < 0 {
		return f.consts[k], nil
	}
	l, ok := frame[id].(*hlo.Literal)
	if ok && l.DType == f.inDType[k] && len(l.Data) == f.inBytes[k] {
		return l, nil
	}
	want := f.n
	if f.inScalar[k] {
		want = 1
	}
	return nil, &kernel.OpError{Op: s.op.Name, Loc: s.op.Loc, Msg: fmt.Sprintf("fused operand %s is %s, want %d elements of %s", valueName(f.inVals[k]), describe(frame[id]), want, f.inDType[k])}
}

// runSingle runs the direct member's TileFn on whole literals, its
// operand list in the execution pool's scratch (no per-step state).
func (f *fusion) runSingle(x *kernel.Ctx, frame []kernel.Value, s *step) error {
	m := &f.members[f.direct]
	srcs := x.Pool.Scratch(len(m.srcs))
	for k, src := range m.srcs {
		if src.kind == srcMember {
			srcs[k] = f.fixedLit[src.idx]
			continue
		}
		l, err := f.input(frame, s, src.idx)
		if err != nil {
			refs.Drop(srcs)
			return err
		}
		srcs[k] = l
	}
	var dst *hlo.Literal
	if k := f.inPlace[0]; k >= 0 {
		dst, _ = f.input(frame, s, k)
	} else if dst = f.donatedSingle(x, frame, s); dst != nil {
		x.InDonated = append(x.InDonated, dst)
	} else {
		dst = x.NewLiteralUninit(m.dt, f.dims)
	}
	f.runTile(m, dst, srcs)
	refs.Drop(srcs)
	frame[s.out[0]] = dst
	return nil
}

// runTile runs m's TileFn over all elements, in parallel chunks when large.
func (f *fusion) runTile(m *fmember, dst *hlo.Literal, srcs []*hlo.Literal) {
	if f.n <= f.grain {
		m.fn(dst, srcs, 0, f.n)
		return
	}
	j := tileJobs.Get().(*tileJob)
	j.m, j.dst, j.srcs = m, dst, srcs
	kernel.ParallelFor(f.n, f.grain, j.fn)
	j.m, j.dst, j.srcs = nil, nil, nil
	tileJobs.Put(j)
}

// tileJob is runTile's parallel loop, pooled with its loop function bound
// once (a closure per call escapes through the worker queue).
type tileJob struct {
	m    *fmember
	dst  *hlo.Literal
	srcs []*hlo.Literal
	fn   func(lo, hi int)
}

var tileJobs = sync.Pool{New: func() any {
	j := new(tileJob)
	j.fn = j.run
	return j
}}

func (j *tileJob) run(lo, hi int) { j.m.fn(j.dst, j.srcs, lo, hi) }

func describe(v kernel.Value) string {
	if l, ok := v.(*hlo.Literal); ok {
		return l.ShapeString()
	}
	return fmt.Sprintf("%T", v)
}

// chunk computes elements [lo, hi) tile by tile with w's views and scratch;
// b holds the bound inputs and outputs (b may be w).
func (f *fusion) chunk(w, b *fuseState, lo, hi int) {
	for k, l := range b.ins {
		if f.inScalar[k] {
			w.inView[k].Data = l.Data
		}
	}
	if span := min(f.tile, hi-lo); span > 0 {
		for j := range f.members {
			if m := &f.members[j]; m.invariant && m.fixed == nil {
				w.mView[j].Data = w.bufs[m.buf][:span*m.size]
				m.fn(&w.mView[j], w.srcs[j], 0, span)
			}
		}
	}
	for t := lo; t < hi; t += f.tile {
		n := min(f.tile, hi-t)
		for k, l := range b.ins {
			if !f.inScalar[k] {
				s := l.DType.Size()
				w.inView[k].Data = l.Data[t*s : (t+n)*s]
			}
		}
		for j := range f.members {
			m := &f.members[j]
			if m.invariant {
				continue
			}
			if m.out >= 0 {
				w.mView[j].Data = b.outs[m.out].Data[t*m.size : (t+n)*m.size]
			} else {
				w.mView[j].Data = w.bufs[m.buf][:n*m.size]
			}
			m.fn(&w.mView[j], w.srcs[j], 0, n)
		}
	}
	// Drop references to this execution's storage.
	for k := range w.inView {
		w.inView[k].Data = nil
	}
	for j := range w.mView {
		if f.members[j].out >= 0 {
			w.mView[j].Data = nil
		}
	}
}

// splatTile fills dst[lo:hi] with element 0 of srcs[0].
func splatTile(size int) kernel.TileFn {
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		if hi > lo {
			kernel.Fill(dst.Data[lo*size:hi*size], srcs[0].Data[:size])
		}
	}
}

// idTable maps the values of one function, by their dense ID, to small
// ints; reset clears only the entries set, so one table serves every
// fusion of the function.
type idTable struct {
	v       []int32 // entry + 1; 0 when unset
	touched []int32
}

func (t *idTable) get(id int) (int, bool) {
	x := t.v[id]
	return int(x) - 1, x != 0
}

func (t *idTable) set(id, k int) {
	if t.v[id] == 0 {
		t.touched = slab.Append(t.touched, int32(id))
	}
	t.v[id] = int32(k + 1)
}

func (t *idTable) reset() {
	for _, id := range t.touched {
		t.v[id] = 0
	}
	t.touched = t.touched[:0]
}

// fuseTables are fuse's per-group tables: the group's members (by result),
// the live ones, each value's member and each external input's index.
type fuseTables struct {
	inGroup, live, memberOf, inputOf idTable
}

func (t *fuseTables) reset() {
	t.inGroup.reset()
	t.live.reset()
	t.memberOf.reset()
	t.inputOf.reset()
}

func newFuseTables(n int) *fuseTables {
	v := make([]int32, 4*n)
	return &fuseTables{
		inGroup:  idTable{v: v[:n:n]},
		live:     idTable{v: v[n : 2*n : 2*n]},
		memberOf: idTable{v: v[2*n : 3*n : 3*n]},
		inputOf:  idTable{v: v[3*n:]},
	}
}
