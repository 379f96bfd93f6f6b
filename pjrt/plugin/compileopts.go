package plugin

import (
	"fmt"
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// topology is how an executable is laid out over devices.
type topology struct {
	replicas, partitions int
	// assign maps replica*partitions+partition to a device index of the
	// client; nil for a portable single-device executable (device chosen
	// at Execute).
	assign []int
}

func (t topology) n() int { return t.replicas * t.partitions }

// resolveTopology applies torch_xla's rules (see DESIGN): replicas and
// partitions come from the options, else from the module's
// mhlo.num_replicas / mhlo.num_partitions, else 1; the device assignment
// from the options, else the identity over the client's devices. A
// one-device program without an explicit assignment is portable.
func resolveTopology(m *hlo.Module, opts pjrt.CompileOptions, ndev int) (topology, error) {
	t := topology{replicas: opts.NumReplicas, partitions: opts.NumPartitions}
	if t.replicas <= 0 {
		t.replicas = moduleInt(m, "mhlo.num_replicas", 1)
	}
	if t.partitions <= 0 {
		t.partitions = moduleInt(m, "mhlo.num_partitions", 1)
	}
	if t.replicas > 1 && t.partitions > 1 {
		return t, fmt.Errorf("num_replicas=%d with num_partitions=%d: go-xla v0.3.0 offers no compile option for replicas and partitions together (use one of them)", t.replicas, t.partitions)
	}
	n := t.n()
	if n > ndev {
		return t, fmt.Errorf("program needs %d devices (replicas %d x partitions %d), the plugin has %d", n, t.replicas, t.partitions, ndev)
	}
	if n == 1 && opts.DeviceAssignment == nil {
		return t, nil
	}
	if opts.DeviceAssignment != nil {
		if len(opts.DeviceAssignment) != n {
			return t, fmt.Errorf("device assignment %v has %d entries, want replicas %d x partitions %d = %d", opts.DeviceAssignment, len(opts.DeviceAssignment), t.replicas, t.partitions, n)
		}
		seen := map[int]bool{}
		for _, d := range opts.DeviceAssignment {
			if d < 0 || d >= ndev {
				return t, fmt.Errorf("device assignment %v: device %d out of range (have %d)", opts.DeviceAssignment, d, ndev)
			}
			if seen[d] {
				return t, fmt.Errorf("device assignment %v uses device %d twice", opts.DeviceAssignment, d)
			}
			seen[d] = true
		}
		t.assign = slices.Clone(opts.DeviceAssignment)
		return t, nil
	}
	t.assign = make([]int, n)
	for i := range t.assign {
		t.assign[i] = i
	}
	return t, nil
}

func moduleInt(m *hlo.Module, name string, def int) int {
	if m == nil {
		return def
	}
	if a := hlo.LookupAttr(m.Attrs, name); a != nil {
		if v, ok := hlo.AttrInt(a); ok && v > 0 {
			return int(v)
		}
	}
	return def
}

// entryModule returns m with its entry function named "main" and public,
// as XLA requires, without modifying m (a shallow copy when renaming).
func entryModule(m *hlo.Module) (*hlo.Module, *hlo.Func, error) {
	if m == nil {
		return nil, nil, fmt.Errorf("nil module")
	}
	entry := m.Entry()
	if entry == nil {
		return nil, nil, fmt.Errorf("module @%s has %d functions and none is @main: no entry function", m.Name, len(m.Funcs))
	}
	if entry.Body == nil {
		return nil, nil, fmt.Errorf("entry function @%s is a declaration without a body", entry.Name)
	}
	if entry.Name == "main" && entry.Visibility != "private" {
		return m, entry, nil
	}
	cp := *m
	cp.Funcs = slices.Clone(m.Funcs)
	e := *entry
	e.Name, e.Visibility = "main", ""
	for i, f := range cp.Funcs {
		if f == entry {
			cp.Funcs[i] = &e
		}
	}
	return &cp, &e, nil
}
