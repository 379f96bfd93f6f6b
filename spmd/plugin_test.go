package spmd

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt/plugin"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestPluginProgramGolden pins what a PJRT plugin receives for an SPMD
// program: the StableHLO text (argument and result shardings, @Sharding
// annotations, partition counts) and the build options XLA is asked for.
func TestPluginProgramGolden(t *testing.T) {
	dev := spmdDevice(4)
	mesh := MustMesh(ids(4), []int{2, 2}, "data", "model")
	x, err := FromLiteral(dev, hlo.NewLiteral(hlo.F32, 8, 6), mesh, "data", nil)
	if err != nil {
		t.Fatal(err)
	}
	w1 := lazy.FromLiteralOn(dev, hlo.NewLiteral(hlo.F32, 6, 16))
	w2 := lazy.FromLiteralOn(dev, hlo.NewLiteral(hlo.F32, 16, 6))
	MustMark(w1, mesh, nil, "model")
	MustMark(w2, mesh, "model", nil)
	h := x.MatMul(w1).ReLU()
	MustMark(h, mesh, "data", "model")
	y := h.MatMul(w2)
	MustMark(y, mesh, "data", nil)
	g := lazy.CollectGraph([]lazy.Value{y.Value()})
	m, err := g.Lower("spmd_mlp")
	if err != nil {
		t.Fatal(err)
	}
	opts := dev.CompileOptions()
	bo, err := plugin.BuildOptionsFor(m, opts, 4)
	if err != nil {
		t.Fatal(err)
	}
	got := m.String() + "\n// pjrt.CompileOptions from the SPMD device: " + fmt.Sprintf("%+v", opts) + "\n// XLA compile options:\n" + bo.String()
	path := filepath.Join("testdata", "plugin_spmd_mlp.txt")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(path, []byte(got), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("differs from %s:\n%s", path, got)
	}
	// The embedded device runs the same module.
	if _, err := y.Literal(); err != nil {
		t.Fatal(err)
	}
}
