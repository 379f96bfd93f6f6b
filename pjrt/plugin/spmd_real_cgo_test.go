//go:build cgo

package plugin

import (
	"fmt"
	"math"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host"
)

// spmdMLP is a tensor-parallel MLP over n devices in the form the lazy
// runtime lowers SPMD graphs to: argument and result shardings, an
// @Sharding annotation, the partition counts.
func spmdMLP(n int) (string, []*pjrt.Sharding, *pjrt.Sharding) {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	cols, _ := pjrt.Tiled([]int64{1, int64(n)}, ids)
	rows, _ := pjrt.Tiled([]int64{int64(n), 1}, ids)
	vec, _ := pjrt.Tiled([]int64{int64(n)}, ids)
	rep := pjrt.Replicated()
	h := 16 * n
	text := fmt.Sprintf(`module @spmd_mlp attributes {mhlo.num_partitions = %[1]d : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%%x: tensor<8x32xf32> {mhlo.sharding = "%[3]s"},
      %%w1: tensor<32x%[2]dxf32> {mhlo.sharding = "%[4]s"},
      %%b1: tensor<%[2]dxf32> {mhlo.sharding = "%[5]s"},
      %%w2: tensor<%[2]dx32xf32> {mhlo.sharding = "%[6]s"}) -> (tensor<8x32xf32> {mhlo.sharding = "%[3]s"}) {
    %%0 = stablehlo.dot_general %%x, %%w1, contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x%[2]dxf32>) -> tensor<8x%[2]dxf32>
    %%1 = stablehlo.broadcast_in_dim %%b1, dims = [1] : (tensor<%[2]dxf32>) -> tensor<8x%[2]dxf32>
    %%2 = stablehlo.add %%0, %%1 : tensor<8x%[2]dxf32>
    %%c = stablehlo.constant dense<0.0> : tensor<f32>
    %%3 = stablehlo.broadcast_in_dim %%c, dims = [] : (tensor<f32>) -> tensor<8x%[2]dxf32>
    %%4 = stablehlo.maximum %%2, %%3 : tensor<8x%[2]dxf32>
    %%5 = stablehlo.custom_call @Sharding(%%4) {mhlo.sharding = "%[4]s"} : (tensor<8x%[2]dxf32>) -> tensor<8x%[2]dxf32>
    %%6 = stablehlo.dot_general %%5, %%w2, contracting_dims = [1] x [0] : (tensor<8x%[2]dxf32>, tensor<%[2]dx32xf32>) -> tensor<8x32xf32>
    return %%6 : tensor<8x32xf32>
  }
}`, n, h, rep, cols, vec, rows)
	return text, []*pjrt.Sharding{rep, cols, vec, rows}, rep
}

// runSPMD compiles text for n partitions on c, uploads each input's
// shards, runs it and assembles the result.
func runSPMD(t *testing.T, c pjrt.Client, text string, n int, ins []*hlo.Literal, shard []*pjrt.Sharding, out *pjrt.Sharding) *hlo.Literal {
	t.Helper()
	m, err := hlo.ParseModule("spmd_mlp.mlir", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	assign := make([]int, n)
	for i := range assign {
		assign[i] = i
	}
	exe, err := c.Compile(m, pjrt.CompileOptions{NumReplicas: 1, NumPartitions: n, DeviceAssignment: assign, UseSPMDPartitioning: true, PropagateShardingToOutput: true})
	if err != nil {
		t.Fatalf("%s: compile: %v", c.Platform(), err)
	}
	args := make([][]pjrt.Buffer, n)
	for i, l := range ins {
		sb, err := pjrt.ShardToDevices(c, l, shard[i], n)
		if err != nil {
			t.Fatal(err)
		}
		for d := range args {
			args[d] = append(args[d], sb.Shards()[d])
		}
	}
	res, err := exe.ExecuteReplicated(args, pjrt.ExecuteOptions{})
	if err != nil {
		t.Fatalf("%s: execute: %v", c.Platform(), err)
	}
	if se, ok := exe.(pjrt.ShardedExecutable); ok {
		out = se.OutputShardings()[0]
	}
	shards := make([]pjrt.Buffer, n)
	for d := range shards {
		shards[d] = res[d][0]
	}
	sb, err := pjrt.NewShardedBuffer(hlo.F32, []int64{8, 32}, out, shards)
	if err != nil {
		t.Fatal(err)
	}
	l, err := sb.ToHost()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestRealSPMD compiles the SPMD form of a tensor-parallel MLP with XLA's
// partitioner over every device of the plugin and compares the result with
// the embedded device's partitioner over as many virtual devices.
func TestRealSPMD(t *testing.T) {
	c := realClient(t)
	n := len(c.Devices())
	text, shard, out := spmdMLP(n)
	var ins []*hlo.Literal
	for i, dims := range [][]int64{{8, 32}, {32, int64(16 * n)}, {int64(16 * n)}, {int64(16 * n), 32}} {
		l := hlo.NewLiteral(hlo.F32, dims...)
		for k := range l.F32() {
			l.F32()[k] = float32((k*7+i*3)%17-8) / 8 // exact in TF32 too
		}
		ins = append(ins, l)
	}
	got := runSPMD(t, c, text, n, ins, shard, out)
	want := runSPMD(t, host.NewClient(n), text, n, ins, shard, out)
	for k := range want.F32() {
		if g, w := float64(got.F32()[k]), float64(want.F32()[k]); math.Abs(g-w) > 1e-4*(1+math.Abs(w)) {
			t.Fatalf("element %d: plugin %v, embedded %v", k, g, w)
		}
	}
	t.Logf("spmd: %d partitions on %s match the embedded partitioner", n, c.Platform())
}
