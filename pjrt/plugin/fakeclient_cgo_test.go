//go:build cgo

package plugin

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// fakeClientPlugin builds testdata/fake_client.c against go-xla's header.
func fakeClientPlugin(t *testing.T, packed bool) string {
	t.Helper()
	cc := gcc(t)
	header := goxlaHeader(t)
	name := "fake_client.so"
	args := []string{"-shared", "-fPIC", "-O1", "-I", filepath.Dir(header)}
	if packed {
		name = "fake_client_packed.so"
		args = append(args, "-DFAKE_PACKED")
	}
	out := filepath.Join(fakes(t).dir, name)
	args = append(args, "-o", out, filepath.Join("testdata", "fake_client.c"))
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %v: %v\n%s", args, err, b)
	}
	return out
}

func TestFakeClient(t *testing.T) {
	path := fakeClientPlugin(t, false)
	c, err := OpenClient(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Platform() != "fake" || c.PlatformVersion() != "fake 1.0" || c.Path() != path {
		t.Errorf("platform %q %q %q", c.Platform(), c.PlatformVersion(), c.Path())
	}
	devs := c.Devices()
	if len(devs) != 2 || devs[0].Kind != "Fake Device" || devs[1].ID != 1 || devs[1].Platform != "fake" {
		t.Errorf("devices %+v", devs)
	}
	if !slices.Equal(c.ids, []int{10, 11}) {
		t.Errorf("PJRT device ids %v, want [10 11]", c.ids)
	}
	mi, err := c.MemoryInfo(1)
	if err != nil || mi.BytesInUse != 0 || mi.PeakBytes != 1<<20 || mi.BytesLimit != 1<<30 {
		t.Errorf("MemoryInfo = %+v, %v", mi, err)
	}
	lit := hlo.LiteralFromSlice([]float64{1, 2, 3}, 3)
	b, err := c.BufferFromHost(lit, 1)
	if err != nil {
		t.Fatal(err)
	}
	if mi, _ := c.MemoryInfo(1); mi.BytesInUse != 24 {
		t.Errorf("after a 24-byte transfer the plugin reports %d bytes in use", mi.BytesInUse)
	}
	if mi, _ := c.MemoryInfo(0); mi.BytesInUse != 0 {
		t.Errorf("device 0 reports %d bytes in use", mi.BytesInUse)
	}
	b.Delete()
	b.Delete()
	if mi, _ := c.MemoryInfo(1); mi.BytesInUse != 0 {
		t.Errorf("after Delete the plugin reports %d bytes in use", mi.BytesInUse)
	}
	if _, err := b.ToHost(); !errors.Is(err, errDeleted) {
		t.Errorf("ToHost after Delete: %v", err)
	}
	if _, err := c.BufferFromHost(lit, 2); err == nil {
		t.Errorf("device 2 accepted")
	}
	if _, err := c.BufferFromHost(hlo.NewLiteral(hlo.TF32, 2), 0); err == nil {
		t.Errorf("tf32 accepted")
	}
	// The fake compiles nothing: PJRT_Client_Compile is NULL, which must be
	// an error, not a call through a NULL pointer.
	m := binaryModule("stablehlo.add", hlo.NewTensorType(hlo.F32, 2))
	if _, err := c.Compile(m, pjrt.CompileOptions{}); err == nil || !strings.Contains(err.Error(), "does not implement PJRT_Client_Compile") {
		t.Errorf("Compile on a plugin without PJRT_Client_Compile: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.BufferFromHost(lit, 0); !errors.Is(err, errClosed) {
		t.Errorf("BufferFromHost after Close: %v", err)
	}
	if _, err := c.MemoryInfo(0); !errors.Is(err, errClosed) {
		t.Errorf("MemoryInfo after Close: %v", err)
	}
}

// Every element type survives the trip through BufferFromHost and ToHost,
// sub-byte types also when the plugin hands them back packed.
func TestFakeClientTransfers(t *testing.T) {
	for _, packed := range []bool{false, true} {
		c, err := OpenClient(fakeClientPlugin(t, packed))
		if err != nil {
			t.Fatal(err)
		}
		for _, dt := range hlo.AllDTypes() {
			if !c.SupportsDType(dt) {
				continue
			}
			for _, dims := range [][]int64{{3, 5}, {}, {0, 4}, {7}} {
				f := &hlo.Func{Args: []*hlo.Value{{Type: hlo.NewTensorType(dt, dims...)}}}
				args, _ := RandomArgs(f, uint64(dt)+uint64(len(dims)))
				lit := args[0]
				b, err := c.BufferFromHost(lit, 0)
				if err != nil {
					t.Errorf("packed=%v: BufferFromHost(%s): %v", packed, lit.ShapeString(), err)
					continue
				}
				back, err := b.ToHost()
				b.Delete()
				if err != nil || !back.Equal(lit) || b.DType() != dt || fmt.Sprint(b.Dims()) != fmt.Sprint(lit.Dims) {
					t.Errorf("packed=%v: %s round trip: got %v, %v, want %v", packed, lit.ShapeString(), back, err, lit)
				}
			}
		}
		c.Close()
	}
}
