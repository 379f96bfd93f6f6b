package gspmd_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host"
)

// randomLiteral fills a literal of type t with small values.
func randomLiteral(rng *rand.Rand, t *hlo.TensorType) *hlo.Literal {
	l := hlo.NewLiteral(t.DType, t.Dims...)
	for i := 0; i < l.NumElements(); i++ {
		switch {
		case t.DType.IsFloat():
			l.SetFloat(i, float64(rng.IntN(17)-8)/4)
		case t.DType.IsBool():
			l.SetInt(i, int64(rng.IntN(2)))
		default:
			l.SetInt(i, int64(rng.IntN(5)))
		}
	}
	return l
}

// runBoth runs the module on whole tensors on one device and partitioned
// over n devices, and returns both results and the SPMD executable.
func runBoth(t *testing.T, text string, n int, seed uint64) (whole, parted []*hlo.Literal, x *host.SPMDExecutable) {
	t.Helper()
	m, err := hlo.ParseModule("test.mlir", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	c := host.NewClient(n)
	rng := rand.New(rand.NewPCG(seed, 1))
	var ins []*hlo.Literal
	for _, a := range m.Entry().Args {
		ins = append(ins, randomLiteral(rng, a.TensorType()))
	}
	one, err := c.Compile(m, pjrt.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var bufs []pjrt.Buffer
	for _, l := range ins {
		b, err := c.BufferFromHost(l, 0)
		if err != nil {
			t.Fatal(err)
		}
		bufs = append(bufs, b)
	}
	outs, err := one.Execute(bufs, pjrt.ExecuteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range outs {
		l, _ := b.ToHost()
		whole = append(whole, l)
	}
	exe, err := c.Compile(m, pjrt.CompileOptions{NumPartitions: n, UseSPMDPartitioning: true, PropagateShardingToOutput: true})
	if err != nil {
		t.Fatal(err)
	}
	x = exe.(*host.SPMDExecutable)
	args := make([][]pjrt.Buffer, n)
	for i, l := range ins {
		sb, err := pjrt.ShardToDevices(c, l, x.ParameterShardings()[i], n)
		if err != nil {
			t.Fatal(err)
		}
		for d := range args {
			args[d] = append(args[d], sb.Shards()[d])
		}
	}
	res, err := x.ExecuteReplicated(args, pjrt.ExecuteOptions{})
	if err != nil {
		t.Fatalf("%v\npartitioned program:\n%s", err, x.PartitionedModule())
	}
	for j := range res[0] {
		shards := make([]pjrt.Buffer, n)
		for d := range shards {
			shards[d] = res[d][j]
		}
		wt := m.Entry().ResultTypes[j].(*hlo.TensorType)
		sb, err := pjrt.NewShardedBuffer(wt.DType, wt.Dims, x.OutputShardings()[j], shards)
		if err != nil {
			t.Fatal(err)
		}
		l, err := sb.ToHost()
		if err != nil {
			t.Fatal(err)
		}
		parted = append(parted, l)
	}
	return whole, parted, x
}

func checkSame(t *testing.T, whole, parted []*hlo.Literal, x *host.SPMDExecutable) {
	t.Helper()
	for i := range whole {
		if !hlo.AllClose(parted[i], whole[i], 1e-5, 1e-5) {
			t.Errorf("result %d differs:\n got  %v\n want %v\npartitioned program:\n%s", i, parted[i], whole[i], x.PartitionedModule())
		}
	}
}

const mlp = `module @mlp {
  func.func @main(%x: tensor<8x16xf32>,
      %w1: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4]0,1,2,3}"},
      %b1: tensor<32xf32> {mhlo.sharding = "{devices=[4]0,1,2,3}"},
      %w2: tensor<32x8xf32> {mhlo.sharding = "{devices=[4,1]0,1,2,3}"},
      %b2: tensor<8xf32>) -> tensor<8x8xf32> {
    %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<32xf32>) -> tensor<8x32xf32>
    %2 = stablehlo.add %0, %1 : tensor<8x32xf32>
    %c = stablehlo.constant dense<0.0> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %4 = stablehlo.maximum %2, %3 : tensor<8x32xf32>
    %5 = stablehlo.dot_general %4, %w2, contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x8xf32>) -> tensor<8x8xf32>
    %6 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<8xf32>) -> tensor<8x8xf32>
    %7 = stablehlo.add %5, %6 : tensor<8x8xf32>
    return %7 : tensor<8x8xf32>
  }
}`

func TestTensorParallelMLPOneAllReduce(t *testing.T) {
	whole, parted, x := runBoth(t, mlp, 4, 1)
	checkSame(t, whole, parted, x)
	if got := x.Collectives(); len(got) != 1 || got["all_reduce"] != 1 {
		t.Errorf("collectives %v, want one all_reduce\n%s", got, x.PartitionedModule())
	}
	if r := x.Reshards(); len(r) != 0 {
		t.Errorf("reshards %v, want none", r)
	}
	if s := x.OutputShardings()[0]; !s.IsReplicated() {
		t.Errorf("output sharding %s, want replicated", s)
	}
}

func TestUnevenBatchSum(t *testing.T) {
	const prog = `module @m {
  func.func @main(%x: tensor<10x6xf32> {mhlo.sharding = "{devices=[4,1]0,1,2,3}"}, %w: tensor<6x3xf32>) -> (tensor<f32>, tensor<10x3xf32>, tensor<6x3xf32>) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<10x6xf32>, tensor<6x3xf32>) -> tensor<10x3xf32>
    %e = stablehlo.exponential %0 : tensor<10x3xf32>
    %c = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.reduce(%e init: %c) applies stablehlo.add across dimensions = [0, 1] : (tensor<10x3xf32>, tensor<f32>) -> tensor<f32>
    %2 = stablehlo.dot_general %x, %e, contracting_dims = [0] x [0] : (tensor<10x6xf32>, tensor<10x3xf32>) -> tensor<6x3xf32>
    return %1, %0, %2 : tensor<f32>, tensor<10x3xf32>, tensor<6x3xf32>
  }
}`
	whole, parted, x := runBoth(t, prog, 4, 2)
	checkSame(t, whole, parted, x)
	if got := x.OutputShardings()[1].String(); got != "{devices=[4,1]0,1,2,3}" {
		t.Errorf("batch output sharding %s", got)
	}
	if r := x.Reshards(); len(r) != 0 {
		t.Errorf("reshards %v, want none", r)
	}
	if !strings.Contains(x.PartitionedModule().String(), "stablehlo.select") {
		t.Errorf("uneven shards must be masked before the sum:\n%s", x.PartitionedModule())
	}
}

// A cut moving from rows to columns is one all-to-all, uneven sizes
// included.
func TestReshardAllToAll(t *testing.T) {
	for _, dims := range []string{"8x12", "10x6", "7x9"} {
		prog := `module @m {
  func.func @main(%x: tensor<DIMSxf32> {mhlo.sharding = "{devices=[4,1]0,1,2,3}"}) -> (tensor<DIMSxf32> {mhlo.sharding = "{devices=[1,4]0,1,2,3}"}) {
    %0 = stablehlo.negate %x : tensor<DIMSxf32>
    return %0 : tensor<DIMSxf32>
  }
}`
		whole, parted, x := runBoth(t, strings.ReplaceAll(prog, "DIMS", dims), 4, 3)
		checkSame(t, whole, parted, x)
		if got := x.Collectives(); len(got) != 1 || got["all_to_all"] != 1 {
			t.Errorf("%s: collectives %v, want one all_to_all", dims, got)
		}
	}
}

// test_xla_sharded_hlo_dump_post_optimizations: (1,128) @ (128,1) with the
// left operand cut along the contraction has an all-reduce.
func TestContractionCutHasAllReduce(t *testing.T) {
	const prog = `module @m {
  func.func @main(%a: tensor<1x128xf32> {mhlo.sharding = "{devices=[1,4]0,1,2,3}"}, %b: tensor<128x1xf32>) -> tensor<1x1xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1x128xf32>, tensor<128x1xf32>) -> tensor<1x1xf32>
    return %0 : tensor<1x1xf32>
  }
}`
	whole, parted, x := runBoth(t, prog, 4, 4)
	checkSame(t, whole, parted, x)
	if x.Collectives()["all_reduce"] != 1 || len(x.Reshards()) != 0 {
		t.Errorf("collectives %v reshards %v", x.Collectives(), x.Reshards())
	}
}

// Partial sums of a cut contraction wanted cut along a free dimension
// (across the summing devices) are one reduce-scatter, uneven included;
// wanted replicated, one all-reduce.
func TestPartialSumsReduceScatter(t *testing.T) {
	for _, rows := range []string{"8", "10"} {
		prog := strings.ReplaceAll(`module @m {
  func.func @main(%x: tensor<Rx16xf32> {mhlo.sharding = "{devices=[1,4]0,1,2,3}"}, %w: tensor<16x6xf32> {mhlo.sharding = "{devices=[4,1]0,1,2,3}"}) -> (tensor<Rx6xf32> {mhlo.sharding = "{devices=[4,1]0,1,2,3}"}, tensor<Rx6xf32>) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<Rx16xf32>, tensor<16x6xf32>) -> tensor<Rx6xf32>
    %1 = stablehlo.negate %0 : tensor<Rx6xf32>
    return %0, %1 : tensor<Rx6xf32>, tensor<Rx6xf32>
  }
}`, "R", rows)
		whole, parted, x := runBoth(t, prog, 4, 5)
		checkSame(t, whole, parted, x)
		if got := x.Collectives(); got["reduce_scatter"] != 1 || got["all_reduce"] != 1 || len(got) != 2 {
			t.Errorf("rows %s: collectives %v, want one reduce_scatter (result 0) and one all_reduce (negate)\n%s", rows, got, x.PartitionedModule())
		}
	}
}

// A compact splat constant (the parser's form of dense<x> over several
// elements, and the lowering's of a Go number applied to a tensor) is
// generated in each shard's layout like an expanded one.
func TestCompactSplatConstant(t *testing.T) {
	const text = `module @splat {
  func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]0,1,2,3}"}) -> tensor<8x4xf32> {
    %c = stablehlo.constant dense<1.5> : tensor<8x4xf32>
    %0 = stablehlo.multiply %x, %c : tensor<8x4xf32>
    %d = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]]> : tensor<8x4xf32>
    %1 = stablehlo.add %0, %d : tensor<8x4xf32>
    return %1 : tensor<8x4xf32>
  }
}`
	whole, parted, x := runBoth(t, text, 4, 7)
	checkSame(t, whole, parted, x)
}

// An empty constant partitions like any other constant (it is not a
// splat to regenerate: it has no element).
func TestEmptyConstant(t *testing.T) {
	const text = `module @empty {
  func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]0,1,2,3}"}) -> (tensor<8x4xf32>, tensor<0x4xf32>) {
    %e = stablehlo.constant dense<> : tensor<0x4xf32>
    %0 = stablehlo.negate %x : tensor<8x4xf32>
    return %0, %e : tensor<8x4xf32>, tensor<0x4xf32>
  }
}`
	whole, parted, x := runBoth(t, text, 4, 9)
	checkSame(t, whole, parted, x)
}
