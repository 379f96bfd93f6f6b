package plugin

import (
	"slices"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

func TestResolveTopology(t *testing.T) {
	m := &hlo.Module{Name: "m"}
	withAttrs := &hlo.Module{Attrs: []hlo.NamedAttr{{Name: "mhlo.num_replicas", Value: hlo.IntAttr{Value: 2}}}}
	cases := []struct {
		name     string
		m        *hlo.Module
		opts     pjrt.CompileOptions
		ndev     int
		r, p     int
		assign   []int
		errMatch string
	}{
		{"portable", m, pjrt.CompileOptions{}, 4, 1, 1, nil, ""},
		{"pinned single", m, pjrt.CompileOptions{DeviceAssignment: []int{3}}, 4, 1, 1, []int{3}, ""},
		{"replicated identity", m, pjrt.CompileOptions{NumReplicas: 4}, 4, 4, 1, []int{0, 1, 2, 3}, ""},
		{"partitioned", m, pjrt.CompileOptions{NumPartitions: 2, DeviceAssignment: []int{1, 0}}, 2, 1, 2, []int{1, 0}, ""},
		{"from module attrs", withAttrs, pjrt.CompileOptions{}, 2, 2, 1, []int{0, 1}, ""},
		{"options win", withAttrs, pjrt.CompileOptions{NumReplicas: 1}, 2, 1, 1, nil, ""},
		{"too many devices", m, pjrt.CompileOptions{NumReplicas: 8}, 4, 0, 0, nil, "needs 8 devices"},
		{"both", m, pjrt.CompileOptions{NumReplicas: 2, NumPartitions: 2}, 4, 0, 0, nil, "replicas and partitions together"},
		{"bad length", m, pjrt.CompileOptions{NumReplicas: 2, DeviceAssignment: []int{0}}, 4, 0, 0, nil, "has 1 entries"},
		{"out of range", m, pjrt.CompileOptions{NumReplicas: 2, DeviceAssignment: []int{0, 7}}, 4, 0, 0, nil, "out of range"},
		{"duplicate", m, pjrt.CompileOptions{NumReplicas: 2, DeviceAssignment: []int{1, 1}}, 4, 0, 0, nil, "twice"},
	}
	for _, c := range cases {
		top, err := resolveTopology(c.m, c.opts, c.ndev)
		if c.errMatch != "" {
			if err == nil || !strings.Contains(err.Error(), c.errMatch) {
				t.Errorf("%s: err = %v, want %q", c.name, err, c.errMatch)
			}
			continue
		}
		if err != nil || top.replicas != c.r || top.partitions != c.p || !slices.Equal(top.assign, c.assign) {
			t.Errorf("%s: got %+v, %v; want r=%d p=%d assign=%v", c.name, top, err, c.r, c.p, c.assign)
		}
	}
}

func TestEntryModule(t *testing.T) {
	body := &hlo.Region{Blocks: []*hlo.Block{{}}}
	f := &hlo.Func{Name: "only", Visibility: "private", Body: body}
	m := &hlo.Module{Name: "m", Funcs: []*hlo.Func{f}}
	mm, e, err := entryModule(m)
	if err != nil || e.Name != "main" || e.Visibility != "" || mm == m || mm.Funcs[0] != e {
		t.Fatalf("entryModule renamed wrongly: %v %+v", err, e)
	}
	if f.Name != "only" || m.Funcs[0] != f {
		t.Errorf("entryModule modified its input")
	}
	main := &hlo.Func{Name: "main", Body: body}
	m2 := &hlo.Module{Funcs: []*hlo.Func{f, main}}
	if mm, e, err := entryModule(m2); err != nil || mm != m2 || e != main {
		t.Errorf("entryModule with @main: %v", err)
	}
	if _, _, err := entryModule(&hlo.Module{Name: "two", Funcs: []*hlo.Func{f, {Name: "g", Body: body}}}); err == nil || !strings.Contains(err.Error(), "no entry") {
		t.Errorf("entryModule without an entry: %v", err)
	}
}

func TestBuildOptions(t *testing.T) {
	m := &hlo.Module{Name: "m"}
	cases := []struct {
		opts pjrt.CompileOptions
		want string
	}{
		{pjrt.CompileOptions{}, "num_replicas: 1\n  num_partitions: 1\n  use_spmd_partitioning: false\n  use_shardy_partitioner: false\n}\ncompile_portable_executable: true\n"},
		{pjrt.CompileOptions{NumReplicas: 2}, "num_replicas: 2\n  num_partitions: 1\n  use_spmd_partitioning: true\n  use_shardy_partitioner: false\n  device_assignment {\n    replica_count: 2\n    computation_count: 1\n    computation_devices { replica_device_ids: 0 replica_device_ids: 1 }\n  }\n}\n"},
		{pjrt.CompileOptions{NumPartitions: 2, DeviceAssignment: []int{1, 0}, UseSPMDPartitioning: true}, "num_replicas: 1\n  num_partitions: 2\n  use_spmd_partitioning: true\n  use_shardy_partitioner: true\n  device_assignment {\n    replica_count: 1\n    computation_count: 2\n    computation_devices { replica_device_ids: 1 }\n    computation_devices { replica_device_ids: 0 }\n  }\n}\n"},
	}
	for _, c := range cases {
		b, err := BuildOptionsFor(m, c.opts, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimPrefix(b.String(), "executable_build_options {\n  "); got != c.want {
			t.Errorf("%+v:\n%s\nwant\n%s", c.opts, got, c.want)
		}
	}
	if _, err := BuildOptionsFor(m, pjrt.CompileOptions{NumPartitions: 8}, 2); err == nil {
		t.Error("8 partitions on 2 devices must fail")
	}
}
