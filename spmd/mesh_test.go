package spmd

import (
	"slices"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/pjrt"
)

func ids(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestShardingTexts checks sharding texts against PyTorch/XLA's test
// expectations (test/spmd/test_xla_sharding.py at 4 devices, and the
// worked examples of a 2x2 data/model mesh).
func TestShardingTexts(t *testing.T) {
	dm := MustMesh(ids(4), []int{2, 2}, "data", "model")
	rbm := MustMesh(ids(4), []int{1, 2, 2}, "r", "b", "m")
	abcd := MustMesh(ids(4), []int{1, 2, 2, 1}, "a", "b", "c", "d")
	cases := []struct {
		name string
		mesh *Mesh
		rank int
		spec []any
		want string
		typ  string
	}{
		{"1d tiled", MustMesh(ids(4), []int{4}), 1, []any{0}, "{devices=[4]0,1,2,3}", "TILED"},
		{"2d mark (1,128)", MustMesh(ids(4), []int{1, 4}), 2, []any{0, 1}, "{devices=[1,4]0,1,2,3}", "TILED"},
		{"4d mark", MustMesh(ids(4), []int{1, 1, 2, 2}), 4, []any{0, 1, 2, 3}, "{devices=[1,1,2,2]0,1,2,3}", "TILED"},
		{"custom tile assignment", MustMesh([]int{3, 2, 1, 0}, []int{1, 4}), 2, []any{0, 1}, "{devices=[1,4]3,2,1,0}", "TILED"},
		{"type tiled", MustMesh(ids(4), []int{2, 2}), 2, []any{0, 1}, "{devices=[2,2]0,1,2,3}", "TILED"},
		{"type replicated", MustMesh(ids(4), []int{2, 2}), 2, []any{nil, nil}, "{replicated}", "REPLICATED"},
		{"type partial", MustMesh(ids(4), []int{2, 2}), 2, []any{nil, 1}, "{devices=[1,2,2]0,2,1,3 last_tile_dim_replicate}", "PARTIAL"},
		{"partial rows", MustMesh(ids(4), []int{2, 2}), 2, []any{0, nil}, "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}", "PARTIAL"},
		{"partial unordered", MustMesh(ids(4), []int{2, 1, 2}), 3, []any{1, nil, 0}, "{devices=[1,1,2,2]0,1,2,3 last_tile_dim_replicate}", "PARTIAL"},
		{"tupled spec", MustMesh(ids(4), []int{2, 2}), 1, []any{[]int{0, 1}}, "{devices=[4]0,1,2,3}", "TILED"},
		{"named tuple r,b", rbm, 2, []any{[]string{"r", "b"}, nil}, "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}", "PARTIAL"},
		{"named tuple b,m", rbm, 2, []any{nil, []string{"b", "m"}}, "{devices=[1,4]0,1,2,3}", "TILED"},
		{"named tuple r,m", rbm, 2, []any{nil, []string{"r", "m"}}, "{devices=[1,2,2]0,2,1,3 last_tile_dim_replicate}", "PARTIAL"},
		{"named tuple m,b", rbm, 2, []any{nil, []string{"m", "b"}}, "{devices=[1,4]0,2,1,3}", "TILED"},
		{"multiple tuples", abcd, 2, []any{[]string{"a", "b"}, []string{"c", "d"}}, "{devices=[2,2]0,1,2,3}", "TILED"},
		{"3d tensor 2d mesh", MustMesh(ids(4), []int{2, 2}), 3, []any{nil, 0, 1}, "{devices=[1,2,2]0,1,2,3}", "TILED"},
		{"2d tensor 3d mesh", MustMesh(ids(4), []int{2, 2, 1}), 2, []any{2, 1}, "{devices=[1,2,2]0,2,1,3 last_tile_dim_replicate}", "PARTIAL"},
		{"2d tensor 3d mesh n=2", MustMesh(ids(2), []int{2, 1, 1}), 2, []any{2, 1}, "{replicated}", "REPLICATED"},
		{"named partition spec", MustMesh(ids(4), []int{1, 4}, "data", "model"), 2, []any{"model", "data"}, "{devices=[4,1]0,1,2,3}", "TILED"},
		{"scalar", MustMesh(ids(4), []int{4}), 0, nil, "{replicated}", "REPLICATED"},
		{"one device", MustMesh(ids(1), []int{1}), 1, []any{0}, "{replicated}", "REPLICATED"},
		// The worked examples: x f32[8,6] on [[0,1],[2,3]].
		{"data,model", dm, 2, []any{"data", "model"}, "{devices=[2,2]0,1,2,3}", "TILED"},
		{"model,data", dm, 2, []any{"model", "data"}, "{devices=[2,2]0,2,1,3}", "TILED"},
		{"data,None", dm, 2, []any{"data", nil}, "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}", "PARTIAL"},
		{"None,model", dm, 2, []any{nil, "model"}, "{devices=[1,2,2]0,2,1,3 last_tile_dim_replicate}", "PARTIAL"},
		{"(data,model),None", dm, 2, []any{[]string{"data", "model"}, nil}, "{devices=[4,1]0,1,2,3}", "TILED"},
	}
	for _, c := range cases {
		s, err := c.mesh.Sharding(c.rank, c.spec...)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if s.String() != c.want || Type(s) != c.typ {
			t.Errorf("%s: got %s (%s), want %s (%s)", c.name, s, Type(s), c.want, c.typ)
		}
		back, err := pjrt.ParseSharding(s.String())
		if err != nil || back.String() != s.String() {
			t.Errorf("%s: %s does not parse back: %v %v", c.name, s, back, err)
		}
	}
}

// TestShardPlacement checks which device holds which index ranges
// (worked examples, and ShardTensor/GetShardIndicesForDevices of
// test/cpp/test_xla_sharding.cpp).
func TestShardPlacement(t *testing.T) {
	dm := MustMesh(ids(4), []int{2, 2}, "data", "model")
	type want struct {
		shard  []int64
		ranges map[int64][][2]int64
	}
	cases := []struct {
		name string
		s    *pjrt.Sharding
		dims []int64
		want want
	}{
		{"data,model", must(dm.Sharding(2, "data", "model")), []int64{8, 6}, want{[]int64{4, 3}, map[int64][][2]int64{
			0: {{0, 4}, {0, 3}}, 1: {{0, 4}, {3, 6}}, 2: {{4, 8}, {0, 3}}, 3: {{4, 8}, {3, 6}}}}},
		{"model,data", must(dm.Sharding(2, "model", "data")), []int64{8, 6}, want{[]int64{4, 3}, map[int64][][2]int64{
			0: {{0, 4}, {0, 3}}, 2: {{0, 4}, {3, 6}}, 1: {{4, 8}, {0, 3}}, 3: {{4, 8}, {3, 6}}}}},
		{"data,None", must(dm.Sharding(2, "data", nil)), []int64{8, 6}, want{[]int64{4, 6}, map[int64][][2]int64{
			0: {{0, 4}, {0, 6}}, 1: {{0, 4}, {0, 6}}, 2: {{4, 8}, {0, 6}}, 3: {{4, 8}, {0, 6}}}}},
		{"None,model", must(dm.Sharding(2, nil, "model")), []int64{8, 6}, want{[]int64{8, 3}, map[int64][][2]int64{
			0: {{0, 8}, {0, 3}}, 2: {{0, 8}, {0, 3}}, 1: {{0, 8}, {3, 6}}, 3: {{0, 8}, {3, 6}}}}},
		{"(data,model),None", must(dm.Sharding(2, []string{"data", "model"}, nil)), []int64{8, 6}, want{[]int64{2, 6}, map[int64][][2]int64{
			0: {{0, 2}, {0, 6}}, 3: {{6, 8}, {0, 6}}}}},
		{"uneven 5x6", must(dm.Sharding(2, "data", "model")), []int64{5, 6}, want{[]int64{3, 3}, map[int64][][2]int64{
			0: {{0, 3}, {0, 3}}, 2: {{3, 5}, {0, 3}}, 3: {{3, 5}, {3, 6}}}}},
		{"f32[5] over 4", must(MustMesh(ids(4), []int{4}).Sharding(1, 0)), []int64{5}, want{[]int64{2}, map[int64][][2]int64{
			0: {{0, 2}}, 1: {{2, 4}}, 2: {{4, 5}}, 3: {{5, 5}}}}},
		{"ShardTensor iota [1,1,2,2,2]", must(pjrt.Tiled([]int64{1, 1, 2, 2, 2}, []int64{0, 1, 2, 3, 4, 5, 6, 7})), []int64{10, 1, 8, 7, 4}, want{[]int64{10, 1, 4, 4, 2}, map[int64][][2]int64{
			0: {{0, 10}, {0, 1}, {0, 4}, {0, 4}, {0, 2}}, 7: {{0, 10}, {0, 1}, {4, 8}, {4, 7}, {2, 4}}}}},
		{"GetShardIndicesForDevices (8,7)", must(pjrt.Tiled([]int64{2, 2}, []int64{0, 1, 2, 3})), []int64{8, 7}, want{[]int64{4, 4}, map[int64][][2]int64{
			0: {{0, 4}, {0, 4}}, 1: {{0, 4}, {4, 7}}, 2: {{4, 8}, {0, 4}}, 3: {{4, 8}, {4, 7}}}}},
	}
	for _, c := range cases {
		if got := c.s.ShardShape(c.dims); !slices.Equal(got, c.want.shard) {
			t.Errorf("%s: shard shape %v, want %v", c.name, got, c.want.shard)
		}
		for dev, r := range c.want.ranges {
			if got := c.s.ShardRanges(c.dims, dev); !slices.Equal(got, r) {
				t.Errorf("%s: device %d holds %v, want %v", c.name, dev, got, r)
			}
		}
	}
}

func must(s *pjrt.Sharding, err error) *pjrt.Sharding {
	if err != nil {
		panic(err)
	}
	return s
}

// TestMeshRejectsBadShapes: Mesh1D of no or a negative number of devices
// and a mesh shape whose product overflows int64 (3 * 6148914691236517206
// wraps to 2, the ids given) are errors, not a makeslice panic or a mesh
// whose shape disagrees with its size.
func TestMeshRejectsBadShapes(t *testing.T) {
	// A count past MaxMeshDevices is refused before the id list is made
	// (1<<40 ids would be 8 TiB).
	for _, n := range []int{0, -1, MaxMeshDevices + 1, 1 << 40} {
		if m, err := Mesh1D(n); err == nil || !strings.Contains(err.Error(), "Mesh1D") {
			t.Errorf("Mesh1D(%d) = %v, %v", n, m, err)
		}
	}
	for _, shape := range [][]int{{3, 6148914691236517206}, {2, 2}, {1 << 62, 1 << 62}} {
		if m, err := NewMesh([]int{0, 1}, shape); err == nil || !strings.Contains(err.Error(), "more devices than the 2 device ids") {
			t.Errorf("NewMesh(ids 0 1, shape %v) = %v, %v", shape, m, err)
		}
	}
	if m, err := Mesh1D(2); err != nil || m.Size() != 2 {
		t.Errorf("Mesh1D(2) = %v, %v", m, err)
	}
}

func TestShardingErrors(t *testing.T) {
	if _, err := NewMesh([]int{0, 1, 1, 3}, []int{2, 2}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate id: %v", err)
	}
	if _, err := NewMesh(ids(4), []int{2, 3}); err == nil {
		t.Error("shape not matching the ids")
	}
	if _, err := NewMesh(ids(4), []int{2, 2}, "x", "x"); err == nil {
		t.Error("duplicate axis names")
	}
	m := MustMesh(ids(4), []int{2, 2}, "data", "model")
	for _, spec := range [][]any{{"data"}, {"data", "data"}, {"nope", nil}, {5, nil}, {1.5, nil}} {
		if _, err := m.Sharding(2, spec...); err == nil {
			t.Errorf("spec %v accepted", spec)
		}
	}
}

func TestParseShardingForms(t *testing.T) {
	cases := map[string]string{
		"{replicated}":                 "{replicated}",
		"{maximal device=3}":           "{maximal device=3}",
		"{manual}":                     "{manual}",
		"{devices=[1,4]<=[4]}":         "{devices=[1,4]0,1,2,3}",
		"{devices=[2,2]<=[2,2]T(1,0)}": "{devices=[2,2]0,2,1,3}",
		"{devices=[2,1,2]<=[4] last_tile_dim_replicate}":       "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}",
		"{devices=[1,2,2]2,0,3,1 last_tile_dims={replicated}}": "{devices=[1,2,2]0,2,1,3 last_tile_dim_replicate}",
		"{{replicated}, {devices=[2]1,0}}":                     "{{replicated}, {devices=[2]1,0}}",
	}
	for in, want := range cases {
		s, err := pjrt.ParseSharding(in)
		if err != nil || s.String() != want {
			t.Errorf("%q: got %v, %v; want %s", in, s, err, want)
		}
	}
	for _, bad := range []string{"", "{", "{devices=[2]0}", "{devices=[2]0,0}", "{devices=[2]0,1 last_tile_dims={manual}}", "{replicated} x", "{devices=[2,2]<=[4]T(0,0)}"} {
		if _, err := pjrt.ParseSharding(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestMeshAccessorsRoundTrip: the accessors return what NewMesh took, in
// the same (int) types.
func TestMeshAccessorsRoundTrip(t *testing.T) {
	devs, shape := []int{3, 1, 2, 0, 5, 4}, []int{2, 3}
	m := MustMesh(devs, shape, "data", "model")
	if !slices.Equal(m.DeviceIDs(), devs) || !slices.Equal(m.Shape(), shape) || m.Size() != 6 {
		t.Errorf("mesh %s: DeviceIDs %v, Shape %v, Size %d", m, m.DeviceIDs(), m.Shape(), m.Size())
	}
}
