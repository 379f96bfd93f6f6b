//go:build cgo

package plugin

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host"
)

// Tests against a real plugin: XLAJIT_TEST_PLUGIN (a PJRT_DEVICE spec),
// else the CUDA or TPU plugin Find locates; skipped when there is none.

func realClient(t *testing.T) *Client {
	t.Helper()
	spec := os.Getenv("XLAJIT_TEST_PLUGIN")
	if spec == "" {
		for _, s := range []string{"CUDA", "TPU"} {
			if _, err := Find(s); err == nil {
				spec = s
				break
			}
		}
	}
	if spec == "" {
		t.Skip("no PJRT plugin found (set XLAJIT_TEST_PLUGIN to a plugin path, CUDA or TPU)")
	}
	c, err := OpenClient(spec)
	if err != nil {
		t.Fatalf("OpenClient(%q): %v", spec, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// binaryModule is main(%a, %b) -> op(%a, %b) over t.
func binaryModule(op string, t *hlo.TensorType) *hlo.Module {
	a := &hlo.Value{Name: "a", Type: t}
	b := &hlo.Value{Name: "b", Type: t, Index: 1}
	o := hlo.NewOp(op, []*hlo.Value{a, b}, []hlo.Type{t})
	ret := hlo.NewOp("func.return", o.Results, nil)
	blk := &hlo.Block{Args: []*hlo.Value{a, b}, Ops: []*hlo.Op{o, ret}}
	f := &hlo.Func{Name: "main", Args: blk.Args, ResultTypes: []hlo.Type{t}, Body: &hlo.Region{Blocks: []*hlo.Block{blk}}}
	return &hlo.Module{Name: "binary", Funcs: []*hlo.Func{f}}
}

func TestRealDevices(t *testing.T) {
	c := realClient(t)
	t.Logf("%s %s, PJRT C API %d.%d, %s", c.Platform(), c.PlatformVersion(), c.API().Major, c.API().Minor, c.Path())
	if c.Platform() == "" || len(c.Devices()) == 0 {
		t.Fatalf("platform %q, %d devices", c.Platform(), len(c.Devices()))
	}
	for _, d := range c.Devices() {
		t.Logf("device %d: %s", d.ID, d.Kind)
		if d.Kind == "" || d.Platform != c.Platform() {
			t.Errorf("device %+v", d)
		}
		mi, err := c.MemoryInfo(d.ID)
		if err != nil || mi.BytesInUse < 0 {
			t.Errorf("MemoryInfo(%d) = %+v, %v", d.ID, mi, err)
		}
		t.Logf("memory: %+v", mi)
	}
	if _, err := c.MemoryInfo(len(c.Devices())); err == nil {
		t.Errorf("MemoryInfo out of range accepted")
	}
}

// Every element type crosses to the device and back bit for bit.
func TestRealTransfers(t *testing.T) {
	c := realClient(t)
	core := map[hlo.DType]bool{hlo.Bool: true, hlo.I8: true, hlo.I16: true, hlo.I32: true, hlo.I64: true,
		hlo.U8: true, hlo.U16: true, hlo.U32: true, hlo.U64: true, hlo.F16: true, hlo.BF16: true,
		hlo.F32: true, hlo.F64: true, hlo.C64: true, hlo.C128: true}
	for _, dt := range hlo.AllDTypes() {
		if !c.SupportsDType(dt) {
			continue
		}
		for _, dims := range [][]int64{{3, 5}, {}, {0, 4}} {
			f := &hlo.Func{Args: []*hlo.Value{{Type: hlo.NewTensorType(dt, dims...)}}}
			args, err := RandomArgs(f, uint64(dt))
			if err != nil {
				t.Fatal(err)
			}
			lit := args[0]
			b, err := c.BufferFromHost(lit, 0)
			if err != nil {
				if core[dt] {
					t.Errorf("BufferFromHost(%s): %v", lit.ShapeString(), err)
				} else {
					t.Logf("%s not supported by the plugin: %v", lit.ShapeString(), err)
				}
				continue
			}
			if b.DType() != dt || fmt.Sprint(b.Dims()) != fmt.Sprint(lit.Dims) {
				t.Errorf("buffer is %s, want %s", hlo.ShapeString(b.DType(), b.Dims()), lit.ShapeString())
			}
			back, err := b.ToHost()
			b.Delete()
			if err != nil {
				t.Errorf("ToHost(%s): %v", lit.ShapeString(), err)
				continue
			}
			if !back.Equal(lit) {
				t.Errorf("%s round trip: got %v, want %v", lit.ShapeString(), back, lit)
			}
			if _, err := b.ToHost(); !errors.Is(err, errDeleted) {
				t.Errorf("ToHost after Delete: %v", err)
			}
		}
	}
}

func TestRealExecuteAndDonate(t *testing.T) {
	c := realClient(t)
	ty := hlo.NewTensorType(hlo.F32, 2, 3)
	exe, err := c.Compile(binaryModule("stablehlo.add", ty), pjrt.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	x := hlo.LiteralFromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	y := hlo.LiteralFromSlice([]float32{10, 20, 30, 40, 50, 60}, 2, 3)
	for dev := range c.Devices() {
		bx, _ := c.BufferFromHost(x, dev)
		by, _ := c.BufferFromHost(y, dev)
		out, err := exe.Execute([]pjrt.Buffer{bx, by}, pjrt.ExecuteOptions{Device: dev, Donate: []int{0}})
		if err != nil {
			t.Fatalf("device %d: %v", dev, err)
		}
		got, err := out[0].ToHost()
		if err != nil || fmt.Sprint(got.F32()) != "[11 22 33 44 55 66]" || out[0].Device() != dev {
			t.Errorf("device %d: %v %v on %d", dev, got, err, out[0].Device())
		}
		if _, err := bx.ToHost(); err == nil {
			t.Errorf("donated argument still readable")
		}
		if _, err := by.ToHost(); err != nil {
			t.Errorf("kept argument: %v", err)
		}
		// Wrong shapes and devices are refused before reaching the plugin.
		bad, _ := c.BufferFromHost(hlo.LiteralFromSlice([]float32{1, 2}, 2), dev)
		if _, err := exe.Execute([]pjrt.Buffer{bad, by}, pjrt.ExecuteOptions{Device: dev}); err == nil || !strings.Contains(err.Error(), "wants tensor<2x3xf32>") {
			t.Errorf("wrong shape: %v", err)
		}
		out[0].Delete()
		by.Delete()
		bad.Delete()
	}
}

func TestRealReplicated(t *testing.T) {
	c := realClient(t)
	n := len(c.Devices())
	if n < 2 {
		t.Skipf("%d device: replicated execution needs 2", n)
	}
	ty := hlo.NewTensorType(hlo.I32, 4)
	for _, opts := range []pjrt.CompileOptions{
		{NumReplicas: 2},
		{NumReplicas: 2, DeviceAssignment: []int{1, 0}},
		{NumPartitions: 2},
	} {
		exe, err := c.Compile(binaryModule("stablehlo.multiply", ty), opts)
		if err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		assign := opts.DeviceAssignment
		if assign == nil {
			assign = []int{0, 1}
		}
		var args [][]pjrt.Buffer
		for i, d := range assign {
			a, _ := c.BufferFromHost(hlo.LiteralFromSlice([]int32{1, 2, 3, int32(i)}, 4), d)
			b, _ := c.BufferFromHost(hlo.LiteralFromSlice([]int32{2, 2, 2, 2}, 4), d)
			args = append(args, []pjrt.Buffer{a, b})
		}
		res, err := exe.ExecuteReplicated(args, pjrt.ExecuteOptions{})
		if err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		for i, r := range res {
			got, err := r[0].ToHost()
			want := fmt.Sprint([]int32{2, 4, 6, int32(2 * i)})
			if err != nil || fmt.Sprint(got.I32()) != want || r[0].Device() != assign[i] {
				t.Errorf("%+v: replica %d: %v %v on device %d, want %s on %d", opts, i, got, err, r[0].Device(), want, assign[i])
			}
		}
		if _, err := exe.Execute(args[0], pjrt.ExecuteOptions{}); err == nil {
			t.Errorf("Execute of a 2-device program accepted")
		}
		exe.Close()
	}
}

// The differential harness agrees with itself on a trivial program.
func TestRealDifferential(t *testing.T) {
	c := realClient(t)
	m := binaryModule("stablehlo.subtract", hlo.NewTensorType(hlo.F64, 3, 4))
	args, err := RandomArgs(m.Entry(), 1)
	if err != nil {
		t.Fatal(err)
	}
	res := Differential(host.NewClient(1), c, m, args, nil)
	if !res.OK() {
		t.Errorf("differential: %+v", res)
	}
}
