package gspmd

import (
	"strconv"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// partitionID returns the partition id as an i64 scalar (made once, at the
// first use, in the function body).
func (p *pass) partitionID() *hlo.Value {
	if p.pid == nil {
		p.pid = p.f.Convert(p.f.PartitionID(), hlo.I64)
	}
	return p.pid
}

// perDevice returns the i64 scalar vals[partition id]: a constant when
// every device has the same value, else a lookup in a constant table.
func (p *pass) perDevice(vals []int64) *hlo.Value {
	same := true
	for _, v := range vals {
		same = same && v == vals[0]
	}
	var kb strings.Builder
	for _, v := range vals {
		kb.WriteString(strconv.FormatInt(v, 10))
		kb.WriteByte(',')
	}
	k := kb.String()
	if same {
		k = "c" + strconv.FormatInt(vals[0], 10)
	}
	if v := p.tables[k]; v != nil {
		return v
	}
	var v *hlo.Value
	if same {
		v = p.f.Constant(hlo.ScalarLiteral(hlo.I64, float64(vals[0])))
	} else {
		table := p.f.Constant(hlo.LiteralFromSlice(vals))
		v = p.f.Reshape(p.f.DynamicSlice(table, []*hlo.Value{p.partitionID()}, []int64{1}))
	}
	p.tables[k] = v
	return v
}

// offsets returns, per device, the first index along dimension d that l
// gives it for a tensor of dims.
func offsets(l *layout, dims []int64, d int) []int64 {
	s := ceilDiv(dims[d], l.tiles[d])
	out := make([]int64, len(l.coord))
	for q, c := range l.coord {
		out[q] = c[d] * s
	}
	return out
}

func (p *pass) nextChannel() int64 {
	p.channel++
	return p.channel
}

func (p *pass) collective(groups [][]int64) hlo.CollectiveOptions {
	return hlo.CollectiveOptions{ReplicaGroups: groups, ChannelID: p.nextChannel(), ChannelType: 1, UseGlobalDeviceIDs: true}
}

// get returns the original value v in layout target on this device,
// resharding if needed. count records a reshard with communication as one
// the current op needed.
func (p *pass) get(v *hlo.Value, target *layout, count bool) *hlo.Value {
	pv := p.val(v)
	if pv.local != nil && pv.lay.equal(target) {
		return pv.local
	}
	k := target.key()
	if x := pv.cache[k]; x != nil {
		return x
	}
	var x *hlo.Value
	if pv.gen != nil {
		x = pv.gen(target, count)
	} else {
		x = p.reshard(pv, target, count)
	}
	if pv.cache == nil {
		pv.cache = map[string]*hlo.Value{}
	}
	pv.cache[k] = x
	return x
}

// materialize makes a value held only by its generator exist in its
// natural layout.
func (p *pass) materialize(v *hlo.Value) *pval {
	pv := p.val(v)
	if pv.local == nil {
		pv.local = p.get(v, pv.lay, false)
	}
	return pv
}

// reshard moves pv from its layout to target: the dimensions whose cut
// differs are gathered whole (all-gather over the devices that differ only
// there), then every dimension target cuts differently is sliced locally.
func (p *pass) reshard(pv *pval, target *layout, count bool) *hlo.Value {
	cur, x := pv.lay, pv.local
	dims := pv.typ.Dims
	from := cur.String()
	how := ""
	// A cut moving from one dimension to another over the same devices:
	// one all-to-all.
	for i := range dims {
		for j := range dims {
			if i == j || cur.tiles[i] == 1 || cur.dimEqual(i, target, i) || cur.tiles[j] != 1 || target.tiles[i] != 1 || !cur.dimEqual(i, target, j) {
				continue
			}
			x, cur = p.allToAll(x, cur, dims, i, j)
			how = "all-to-all"
		}
	}
	var gather []int
	for d := range dims {
		if cur.tiles[d] > 1 && !cur.dimEqual(d, target, d) {
			gather = append(gather, d)
		}
	}
	for _, d := range gather {
		x, cur = p.allGather(x, cur, dims, d)
		how = "all-gather"
	}
	if how != "" && count {
		p.reshards = append(p.reshards, pjrt.Reshard{Op: p.cur.Name, Loc: locString(p.cur.Loc), From: from, To: target.String(), How: how})
	}
	var slice []int
	for d := range dims {
		if !cur.dimEqual(d, target, d) {
			slice = append(slice, d)
		}
	}
	if len(slice) > 0 {
		x = p.sliceLocal(x, cur, target, dims, slice)
	}
	return x
}

func locString(l hlo.Loc) string {
	if l.Line == 0 && l.File == "" {
		return ""
	}
	return l.String()
}

// allGather gathers dimension d of x (held in layout cur) whole: the result
// and its layout, in which d is not cut.
func (p *pass) allGather(x *hlo.Value, cur *layout, dims []int64, d int) (*hlo.Value, *layout) {
	groups, err := cur.groups([]int{d})
	if err != nil {
		p.fail("%v", err)
	}
	g := p.f.AllGather([]*hlo.Value{x}, int64(d), p.collective(groups))[0]
	next := cur.untile(d)
	if got := tensorOf(g).Dims[d]; got != dims[d] {
		start := make([]int64, len(dims))
		limit := slicesClone(tensorOf(g).Dims)
		limit[d] = dims[d]
		g = p.f.Slice(g, start, limit, nil)
	}
	return g, next
}

// allToAll moves the cut of dimension i of x (layout cur) to dimension j,
// whole in cur: each device splits j into the group's tiles, and gathers
// the pieces of i. Dimension j is padded with zeros to a multiple of the
// tiles first; the padding of i is cut after.
func (p *pass) allToAll(x *hlo.Value, cur *layout, dims []int64, i, j int) (*hlo.Value, *layout) {
	groups, err := cur.groups([]int{i})
	if err != nil {
		p.fail("%v", err)
	}
	t := cur.tiles[i]
	xt := tensorOf(x)
	if extra := ceilDiv(dims[j], t)*t - dims[j]; extra > 0 {
		lo := make([]int64, xt.Rank())
		hi := make([]int64, xt.Rank())
		hi[j] = extra
		x = p.f.Pad(x, p.zero(xt.DType), lo, hi, nil)
	}
	o := p.collective(groups)
	y := p.f.AllToAll([]*hlo.Value{x}, int64(j), int64(i), t, o)[0]
	if got := tensorOf(y).Dims[i]; got != dims[i] {
		limit := slicesClone(tensorOf(y).Dims)
		limit[i] = dims[i]
		y = p.f.Slice(y, make([]int64, len(limit)), limit, nil)
	}
	return y, cur.untile(i).setDim(j, cur, i)
}

func slicesClone(xs []int64) []int64 { return append([]int64(nil), xs...) }

func tensorOf(v *hlo.Value) *hlo.TensorType { return v.Type.(*hlo.TensorType) }

// sliceLocal cuts dimensions dims of x, whole on every device in cur, as
// target cuts them (a dynamic slice at per-device offsets, after padding
// with zeros to a multiple of the tile count).
func (p *pass) sliceLocal(x *hlo.Value, cur, target *layout, dims []int64, which []int) *hlo.Value {
	t := tensorOf(x)
	lo := make([]int64, t.Rank())
	hi := make([]int64, t.Rank())
	needPad := false
	for _, d := range which {
		if cur.tiles[d] != 1 {
			p.fail("internal: slicing dimension %d that is cut", d)
		}
		s := ceilDiv(dims[d], target.tiles[d])
		if extra := s*target.tiles[d] - dims[d]; extra > 0 {
			hi[d] = extra
			needPad = true
		}
	}
	if needPad {
		x = p.f.Pad(x, p.zero(t.DType), lo, hi, nil)
	}
	starts := make([]*hlo.Value, t.Rank())
	sizes := slicesClone(t.Dims)
	zero := p.perDevice([]int64{0})
	for d := range starts {
		starts[d] = zero
	}
	for _, d := range which {
		starts[d] = p.perDevice(offsets(target, dims, d))
		sizes[d] = ceilDiv(dims[d], target.tiles[d])
	}
	return p.f.DynamicSlice(x, starts, sizes)
}

func (p *pass) zero(dt hlo.DType) *hlo.Value {
	return p.f.Constant(hlo.NewLiteral(dt))
}

// validMask returns a bool tensor of x's local shape, true where the
// element is part of the tensor (not padding) along dims.
func (p *pass) validMask(x *hlo.Value, l *layout, dims []int64, which []int) *hlo.Value {
	t := tensorOf(x)
	var mask *hlo.Value
	for _, d := range which {
		it := p.f.Iota(hlo.NewTensorType(hlo.I64, t.Dims...), int64(d))
		off := p.f.BroadcastInDim(p.perDevice(offsets(l, dims, d)), t.Dims, nil)
		lim := p.f.BroadcastInDim(p.f.Constant(hlo.ScalarLiteral(hlo.I64, float64(dims[d]))), t.Dims, nil)
		m := p.f.Compare(hlo.CmpLT, p.f.Add(it, off), lim)
		if mask == nil {
			mask = m
		} else {
			mask = p.f.And(mask, m)
		}
	}
	return mask
}

// maskPadding replaces the padding of x (layout l of a tensor of dims)
// along the dimensions of which that hold some with fill (a 0-d value).
func (p *pass) maskPadding(x *hlo.Value, l *layout, dims []int64, which []int, fill func() *hlo.Value) *hlo.Value {
	var pad []int
	for _, d := range which {
		if l.padded(dims, d) {
			pad = append(pad, d)
		}
	}
	if len(pad) == 0 {
		return x
	}
	t := tensorOf(x)
	return p.f.Select(p.validMask(x, l, dims, pad), x, p.f.BroadcastInDim(fill(), t.Dims, nil))
}

// allReduceAdd sums x over each group.
func (p *pass) allReduce(x *hlo.Value, groups [][]int64, body func(s *hlo.Scope, a, b *hlo.Value) *hlo.Value) *hlo.Value {
	return p.f.AllReduce([]*hlo.Value{x}, p.collective(groups), func(s *hlo.Scope, args []*hlo.Value) *hlo.Value {
		return body(s, args[0], args[1])
	})[0]
}

func addBody(s *hlo.Scope, a, b *hlo.Value) *hlo.Value { return s.Add(a, b) }

// reduceScatter sums x over each group, device k of a group keeping the
// k-th block of dimension d (padded with zeros to a multiple of the group
// size first).
func (p *pass) reduceScatter(x *hlo.Value, dims []int64, d int, groups [][]int64) *hlo.Value {
	g := int64(len(groups[0]))
	xt := tensorOf(x)
	if extra := ceilDiv(dims[d], g)*g - xt.Dims[d]; extra > 0 {
		lo := make([]int64, xt.Rank())
		hi := make([]int64, xt.Rank())
		hi[d] = extra
		x = p.f.Pad(x, p.zero(xt.DType), lo, hi, nil)
	}
	return p.f.ReduceScatter(x, int64(d), p.collective(groups), func(s *hlo.Scope, args []*hlo.Value) *hlo.Value {
		return s.Add(args[0], args[1])
	})
}
