package host

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Bad input gets an error value: modules that do not verify, arguments
// that do not match the entry, allocations beyond the memory limit.

func parseText(t testing.TB, src string) *hlo.Module {
	t.Helper()
	m, err := hlo.ParseModule("t.mlir", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return m
}

// compileAndRun compiles m on c and runs it on zero arguments of the
// entry's types, within a time bound; a panic or a hang is reported as
// such (both were what some of these modules did).
func compileAndRun(t *testing.T, c *Client, m *hlo.Module) (compileErr, runErr error) {
	t.Helper()
	type result struct{ c, r error }
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{r: fmt.Errorf("panic: %v", r)}
			}
		}()
		exe, err := c.Compile(m, pjrt.CompileOptions{})
		if err != nil {
			done <- result{c: err}
			return
		}
		var args []pjrt.Buffer
		for _, a := range m.Entry().Args {
			tt := a.TensorType()
			b, err := c.BufferFromHost(hlo.NewLiteral(tt.DType, tt.Dims...), 0)
			if err != nil {
				done <- result{r: err}
				return
			}
			args = append(args, b)
		}
		_, err = exe.Execute(args, pjrt.ExecuteOptions{})
		done <- result{r: err}
	}()
	select {
	case r := <-done:
		return r.c, r.r
	case <-time.After(10 * time.Second):
		t.Fatalf("compile and run did not finish in 10 s (hang)")
	}
	return nil, nil
}

// TestUnverifiedModulesRejected: each of these ran before Compile verified
// modules (wrong results with success, a hang, a panic in the executor);
// now each fails to compile with the verifier's error at the op.
func TestUnverifiedModulesRejected(t *testing.T) {
	c := NewClientWithLimit(1, 64<<20)
	for _, tc := range []struct{ name, src, want string }{
		{"no return", `
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
}`, "t.mlir:3:3: function @main ends with stablehlo.add, want func.return"},
		{"wrong result type", `
func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}`, "t.mlir:4:3: func.return types (tensor<2xf32>) differ from the result types (tensor<3xf32>) of @main"},
		{"wrong result count", `
func.func @main(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  return %a : tensor<2xf32>
}`, "t.mlir:3:3: func.return types (tensor<2xf32>) differ from the result types (tensor<2xf32>, tensor<2xf32>) of @main"},
		{"while condition not i1", `
func.func @main() -> tensor<i64> {
  %c = stablehlo.constant dense<0> : tensor<i64>
  %r = stablehlo.while(%i = %c) : tensor<i64>
  cond {
    %f = stablehlo.constant dense<1.0> : tensor<f32>
    stablehlo.return %f : tensor<f32>
  } do {
    stablehlo.return %i : tensor<i64>
  }
  return %r : tensor<i64>
}`, "t.mlir:4:3: stablehlo.while: cond region returns (tensor<f32>), want (tensor<i1>)"},
		{"call type conflict", `
func.func private @f(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
func.func @main(%a: tensor<64x64xf32>) -> tensor<2x2xf32> {
  %0 = func.call @f(%a) : (tensor<64x64xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}`, "t.mlir:7:3: func.call: operand types (tensor<64x64xf32>) do not match the arguments (tensor<2x2xf32>) of callee @f"},
	} {
		cerr, rerr := compileAndRun(t, c, parseText(t, tc.src))
		if cerr == nil || !strings.Contains(cerr.Error(), tc.want) {
			t.Errorf("%s: compile error %v (run error %v), want one containing %q", tc.name, cerr, rerr, tc.want)
		}
	}
}

// TestExecuteChecksArguments: buffers of another count, element type or
// shape than the entry's parameters are refused, naming the parameter.
func TestExecuteChecksArguments(t *testing.T) {
	c := NewClientWithLimit(1, 64<<20)
	m := parseText(t, `
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x?xf32>) -> (tensor<3x2xf32>, tensor<3x?xf32>) {
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = stablehlo.abs %b : tensor<3x?xf32>
  return %0, %1 : tensor<3x2xf32>, tensor<3x?xf32>
}`)
	exe, err := c.Compile(m, pjrt.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	buf := func(l *hlo.Literal) pjrt.Buffer {
		b, err := c.BufferFromHost(l, 0)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	good := buf(hlo.NewLiteral(hlo.F32, 2, 3))
	dyn := buf(hlo.NewLiteral(hlo.F32, 3, 5))
	short := &hlo.Literal{DType: hlo.F32, Dims: []int64{3, 5}, Data: make([]byte, 8)}
	for _, tc := range []struct {
		args []pjrt.Buffer
		want string
	}{
		{[]pjrt.Buffer{good}, "host: @main takes 2 arguments, got 1"},
		{[]pjrt.Buffer{good, dyn, dyn}, "host: @main takes 2 arguments, got 3"},
		{[]pjrt.Buffer{buf(hlo.NewLiteral(hlo.F64, 2, 3)), dyn}, "argument 0 of @main: got f64[2,3], want tensor<2x3xf32>"},
		{[]pjrt.Buffer{buf(hlo.NewLiteral(hlo.F32, 3, 2)), dyn}, "argument 0 of @main: got f32[3,2], want tensor<2x3xf32>"},
		{[]pjrt.Buffer{buf(hlo.NewLiteral(hlo.F32, 6)), dyn}, "argument 0 of @main: got f32[6], want tensor<2x3xf32>"},
		{[]pjrt.Buffer{good, buf(hlo.NewLiteral(hlo.F32, 4, 5))}, "argument 1 of @main: got f32[4,5], want tensor<3x?xf32>"},
		{[]pjrt.Buffer{good, c.WrapLiteral(short, 0)}, "argument 1 of @main: got f32[3,5] holding 8 bytes, want tensor<3x?xf32>"},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("want %q: panic %v", tc.want, r)
				}
			}()
			_, err := exe.Execute(tc.args, pjrt.ExecuteOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		}()
	}
	out, err := exe.Execute([]pjrt.Buffer{good, dyn}, pjrt.ExecuteOptions{})
	if err != nil || out[1].Dims()[0] != 3 || out[1].Dims()[1] != 5 {
		t.Fatalf("matching arguments: %v", err)
	}
}

// TestOutOfMemory: allocations beyond the limit fail as out-of-memory
// errors naming the op, the shape and the bytes, before anything is
// allocated (each of these killed the process), and leave the device's
// bytes in use as they were.
func TestOutOfMemory(t *testing.T) {
	const limit = 1 << 20
	c := NewClientWithLimit(1, limit)
	for _, tc := range []struct {
		name, src string
		args      []*hlo.Literal
		op, shape string
		bytes     int64
	}{
		{"splat constant", `
func.func @main() -> tensor<1099511627776xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<1099511627776xf32>
  return %0 : tensor<1099511627776xf32>
}`, nil, "t.mlir:3:3: stablehlo.constant", "f32[1099511627776]", 4 << 40},
		{"broadcast", `
func.func @main(%x: tensor<f32>) -> tensor<1099511627776xf32> {
  %0 = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<1099511627776xf32>
  return %0 : tensor<1099511627776xf32>
}`, []*hlo.Literal{hlo.ScalarLiteral(hlo.F32, 2)}, "t.mlir:3:3: stablehlo.broadcast_in_dim", "f32[1099511627776]", 4 << 40},
		{"intermediates together", `
func.func @main(%x: tensor<128x1024xf32>) -> (tensor<128x1024xf32>, tensor<1024x128xf32>) {
  %a = stablehlo.exponential %x : tensor<128x1024xf32>
  %b = stablehlo.transpose %a, dims = [1, 0] : (tensor<128x1024xf32>) -> tensor<1024x128xf32>
  return %a, %b : tensor<128x1024xf32>, tensor<1024x128xf32>
}`, []*hlo.Literal{hlo.NewLiteral(hlo.F32, 128, 1024)}, "t.mlir:4:3: stablehlo.transpose", "f32[1024,128]", 512 << 10},
		{"iota", `
func.func @main() -> tensor<1099511627776xi32> {
  %0 = stablehlo.iota dim = 0 : tensor<1099511627776xi32>
  return %0 : tensor<1099511627776xi32>
}`, nil, "t.mlir:3:3: stablehlo.iota", "i32[1099511627776]", 4 << 40},
		{"window tables", `
func.func @main(%x: tensor<2xf32>) -> tensor<1xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 1099511627776>, padding = dense<[[0, 1099511627774]]> : tensor<1x2xi64>} : (tensor<2xf32>, tensor<f32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}`, []*hlo.Literal{hlo.NewLiteral(hlo.F32, 2)}, "t.mlir:4:3: stablehlo.reduce_window", "i64[1099511627776]", 8 << 40},
		{"dynamic iota", `
func.func @main(%s: tensor<1xi64>) -> tensor<?xf32> {
  %0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}`, []*hlo.Literal{hlo.LiteralFromSlice([]int64{1 << 40})}, "t.mlir:3:3: stablehlo.dynamic_iota", "f32[1099511627776]", 4 << 40},
		{"dot", `
func.func @main(%a: tensor<512x1xf32>, %b: tensor<1x520xf32>) -> tensor<512x520xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<512x1xf32>, tensor<1x520xf32>) -> tensor<512x520xf32>
  return %0 : tensor<512x520xf32>
}`, []*hlo.Literal{hlo.NewLiteral(hlo.F32, 512, 1), hlo.NewLiteral(hlo.F32, 1, 520)}, "t.mlir:3:3: stablehlo.dot_general", "f32[512,520]", 512 * 520 * 4},
	} {
		before, _ := c.MemoryInfo(0)
		var bufs []pjrt.Buffer
		for _, a := range tc.args {
			b, err := c.BufferFromHost(a, 0)
			if err != nil {
				t.Fatal(err)
			}
			bufs = append(bufs, b)
		}
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			exe, err := c.Compile(parseText(t, tc.src), pjrt.CompileOptions{})
			if err != nil {
				return err
			}
			_, err = exe.Execute(bufs, pjrt.ExecuteOptions{})
			return err
		}()
		var oom *pjrt.OutOfMemoryError
		if !errors.Is(err, pjrt.ErrOutOfMemory) || !errors.As(err, &oom) {
			t.Errorf("%s: got %v, want an out-of-memory error", tc.name, err)
			continue
		}
		if got := oom.Loc + ": " + oom.Op; got != tc.op || oom.Shape != tc.shape || oom.Bytes != tc.bytes || oom.Limit != limit {
			t.Errorf("%s: %v: want op %s, shape %s, %d bytes, limit %d", tc.name, err, tc.op, tc.shape, tc.bytes, limit)
		}
		for _, b := range bufs {
			b.Delete()
		}
		if after, _ := c.MemoryInfo(0); after.BytesInUse != before.BytesInUse {
			t.Errorf("%s: %d bytes in use after the error, %d before", tc.name, after.BytesInUse, before.BytesInUse)
		}
	}
	_, err := c.BufferFromHost(hlo.NewLiteral(hlo.F32, 1<<19), 0)
	var oom *pjrt.OutOfMemoryError
	if !errors.As(err, &oom) || oom.Op != "BufferFromHost" || oom.Shape != "f32[524288]" || oom.Bytes != 2<<20 {
		t.Errorf("BufferFromHost beyond the limit: %v", err)
	}
	if mi, _ := c.MemoryInfo(0); mi.BytesInUse != 0 || mi.BytesLimit != limit {
		t.Errorf("after the errors: %+v", mi)
	}
}

// TestExecuteContextStopsLoops: a loop that never ends stops when the
// execution's context is done, with an error matching the context's, and
// leaves only the argument counted.
func TestExecuteContextStopsLoops(t *testing.T) {
	c := NewClientWithLimit(1, 64<<20)
	exe := mustExe(t, c, `
func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {
  %r = stablehlo.while(%v = %x) : tensor<64xf32>
  cond {
    %t = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    %w = stablehlo.sine %v : tensor<64xf32>
    stablehlo.return %w : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}`)
	x := upload(t, c, hlo.NewLiteral(hlo.F32, 64), 0)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := exe.Execute([]pjrt.Buffer{x}, pjrt.ExecuteOptions{Context: ctx})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, kernel.ErrCanceled) || !strings.Contains(err.Error(), "stablehlo.while") {
		t.Fatalf("got %v, want the loop stopped by the deadline", err)
	}
	if mi, _ := c.MemoryInfo(0); mi.BytesInUse != x.(*Buffer).accounted() {
		t.Errorf("%d bytes in use after the stopped run, want the argument's %d", mi.BytesInUse, x.(*Buffer).accounted())
	}
}

// TestCompileRejectsNilAndOverflowingShardings: Compile of a nil module is
// an error (it dereferenced it), and an mhlo.sharding whose tile dims
// multiply past int64 (3 * 6148914691236517206 wraps to 2, the devices
// listed) is an error naming the sharding, not a slice-bounds panic in the
// partitioner.
func TestCompileRejectsNilAndOverflowingShardings(t *testing.T) {
	if _, err := NewClientWithLimit(1, 64<<20).Compile(nil, pjrt.CompileOptions{}); err == nil || !strings.Contains(err.Error(), "nil module") {
		t.Errorf("Compile(nil): %v", err)
	}
	m := parseText(t, `
func.func @main(%a: tensor<2x4xf32> {mhlo.sharding = "{devices=[3,6148914691236517206]0,1 last_tile_dim_replicate}"}) -> tensor<2x4xf32> {
  %0 = stablehlo.add %a, %a : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}`)
	_, err := NewClientWithLimit(2, 64<<20).Compile(m, pjrt.CompileOptions{NumPartitions: 2, UseSPMDPartitioning: true})
	if err == nil || !strings.Contains(err.Error(), "argument 0") || !strings.Contains(err.Error(), "[3 6148914691236517206]") {
		t.Errorf("overflowing tile: %v", err)
	}
}

// TestHostDevicesBounded: XLAJIT_HOST_DEVICES above maxEnvDevices is an
// error from pjrt.Open naming the variable and the value, as 0 is, rather
// than a device record allocated per requested device until the process
// runs out of memory.
func TestHostDevicesBounded(t *testing.T) {
	t.Setenv("XLAJIT_QUIET", "1")
	for _, v := range []string{"0", "1000000000000000", fmt.Sprint(maxEnvDevices + 1)} {
		t.Setenv("XLAJIT_HOST_DEVICES", v)
		if c, err := pjrt.Open("CPU"); err == nil || !strings.Contains(err.Error(), "XLAJIT_HOST_DEVICES=\""+v+"\"") {
			t.Errorf("XLAJIT_HOST_DEVICES=%s: client %v, err %v", v, c, err)
		}
	}
	t.Setenv("XLAJIT_HOST_DEVICES", "3")
	c, err := pjrt.Open("CPU")
	if err != nil || len(c.Devices()) != 3 {
		t.Fatalf("XLAJIT_HOST_DEVICES=3: %v", err)
	}
	c.Close()
}
