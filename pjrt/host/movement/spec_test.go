package movement_test

import (
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The StableHLO spec's own examples for this family's ops (and a few in
// the pretty syntax), parsed from text and run through the planner with
// their expectations as check ops.
var specExamples = []string{`
func.func @scatter_spec() {
  %input = stablehlo.constant dense<[[[[1, 2], [3, 4], [5, 6], [7, 8]], [[9, 10], [11, 12], [13, 14], [15, 16]], [[17, 18], [19, 20], [21, 22], [23, 24]]],
                                     [[[25, 26], [27, 28], [29, 30], [31, 32]], [[33, 34], [35, 36], [37, 38], [39, 40]], [[41, 42], [43, 44], [45, 46], [47, 48]]]]> : tensor<2x3x4x2xi64>
  %idx = stablehlo.constant dense<[[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]], [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]]> : tensor<2x2x3x2xi64>
  %upd = stablehlo.constant dense<1> : tensor<2x2x3x2x2xi64>
  %result = "stablehlo.scatter"(%input, %idx, %upd) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %0 : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0],
      scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>,
    indices_are_sorted = false, unique_indices = false
  } : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  check.expect_eq_const %result, dense<[[[[3, 4], [6, 7], [6, 7], [7, 8]], [[9, 10], [11, 12], [15, 16], [17, 18]], [[17, 18], [19, 20], [22, 23], [24, 25]]],
                                        [[[25, 26], [28, 29], [30, 31], [31, 32]], [[35, 36], [38, 39], [38, 39], [39, 40]], [[41, 42], [44, 45], [46, 47], [47, 48]]]]> : tensor<2x3x4x2xi64>
  func.return
}`, `
func.func @sort_spec() {
  %input0 = stablehlo.constant dense<[[1, 2, 3], [3, 2, 1]]> : tensor<2x3xi64>
  %input1 = stablehlo.constant dense<[[3, 2, 1], [1, 2, 3]]> : tensor<2x3xi64>
  %result0, %result1 = "stablehlo.sort"(%input0, %input1) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>, %arg2: tensor<i64>, %arg3: tensor<i64>):
      %predicate = stablehlo.compare GT, %arg0, %arg1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %predicate : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<2x3xi64>, tensor<2x3xi64>) -> (tensor<2x3xi64>, tensor<2x3xi64>)
  check.expect_eq_const %result0, dense<[[3, 2, 3], [1, 2, 1]]> : tensor<2x3xi64>
  check.expect_eq_const %result1, dense<[[1, 2, 1], [3, 2, 3]]> : tensor<2x3xi64>
  func.return
}`, `
func.func @pad_spec() {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %pv = stablehlo.constant dense<0> : tensor<i32>
  %result = stablehlo.pad %operand, %pv, low = [0, 1], high = [2, 1], interior = [1, 2] : (tensor<2x3xi32>, tensor<i32>) -> tensor<5x9xi32>
  check.expect_eq_const %result, dense<[[0, 1, 0, 0, 2, 0, 0, 3, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 4, 0, 0, 5, 0, 0, 6, 0],
                                        [0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<5x9xi32>
  func.return
}`, `
func.func @transpose_spec() {
  %operand = stablehlo.constant dense<[[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]]> : tensor<2x3x2xi32>
  %result = stablehlo.transpose %operand, dims = [2, 1, 0] : (tensor<2x3x2xi32>) -> tensor<2x3x2xi32>
  check.expect_eq_const %result, dense<[[[1, 7], [3, 9], [5, 11]], [[2, 8], [4, 10], [6, 12]]]> : tensor<2x3x2xi32>
  func.return
}`, `
func.func @broadcast_in_dim_spec() {
  %operand = stablehlo.constant dense<[[1, 2, 3]]> : tensor<1x3xi32>
  %result = stablehlo.broadcast_in_dim %operand, dims = [2, 1] : (tensor<1x3xi32>) -> tensor<2x3x2xi32>
  check.expect_eq_const %result, dense<[[[1, 1], [2, 2], [3, 3]], [[1, 1], [2, 2], [3, 3]]]> : tensor<2x3x2xi32>
  func.return
}`, `
func.func @reduce_window_spec() {
  %input = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %init = stablehlo.constant dense<0> : tensor<i64>
  %result = "stablehlo.reduce_window"(%input, %init) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %0 : tensor<i64>
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 4, 1>, base_dilations = array<i64: 2, 1>,
      window_dilations = array<i64: 3, 1>, padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<3x2xi64>, tensor<i64>) -> tensor<2x2xi64>
  check.expect_eq_const %result, dense<[[0, 0], [3, 4]]> : tensor<2x2xi64>
  func.return
}`, `
func.func @reduce_spec_pretty() {
  %input = stablehlo.constant dense<[[0, 1, 2, 3, 4, 5]]> : tensor<1x6xi64>
  %init = stablehlo.constant dense<0> : tensor<i64>
  %result = stablehlo.reduce(%input init: %init) applies stablehlo.add across dimensions = [1] : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
  check.expect_eq_const %result, dense<[15]> : tensor<1xi64>
  func.return
}`, `
func.func @slices_pretty() {
  %x = stablehlo.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]> : tensor<3x4xi32>
  %s = stablehlo.slice %x [1:3, 0:4:2] : (tensor<3x4xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %s, dense<[[4, 6], [8, 10]]> : tensor<2x2xi32>
  %i = stablehlo.constant dense<2> : tensor<i32>
  %j = stablehlo.constant dense<-1> : tensor<i32>
  %d = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 3] : (tensor<3x4xi32>, tensor<i32>, tensor<i32>) -> tensor<2x3xi32>
  check.expect_eq_const %d, dense<[[4, 5, 6], [8, 9, 10]]> : tensor<2x3xi32>
  %c = stablehlo.concatenate %s, %s, dim = 1 : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x4xi32>
  check.expect_eq_const %c, dense<[[4, 6, 4, 6], [8, 10, 8, 10]]> : tensor<2x4xi32>
  %r = stablehlo.reverse %c, dims = [0, 1] : tensor<2x4xi32>
  check.expect_eq_const %r, dense<[[10, 8, 10, 8], [6, 4, 6, 4]]> : tensor<2x4xi32>
  func.return
}`}

func TestSpecExamples(t *testing.T) {
	for _, src := range specExamples {
		name := strings.TrimSpace(src)
		name = name[strings.Index(name, "@")+1 : strings.Index(name, "(")]
		t.Run(name, func(t *testing.T) {
			m, err := hlo.ParseModule(name+".mlir", []byte(src))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			p, err := host.Compile(m)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			log := &kernel.CheckLog{}
			if _, err := p.Run(&kernel.Ctx{NumReplicas: 1, NumPartitions: 1, Checks: log}, nil); err != nil {
				t.Fatalf("run: %v", err)
			}
			if len(log.Failed) > 0 || log.Passed == 0 {
				t.Fatalf("checks: %d passed, failed: %v", log.Passed, log.Failed)
			}
		})
	}
}

func BenchmarkArgmaxGenericBody(b *testing.B) {
	src := `
func.func @main(%v: tensor<512x1024xf32>, %i: tensor<512x1024xi32>) -> (tensor<512xf32>, tensor<512xi32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%v init: %ninf), (%i init: %zero) across dimensions = [1] : (tensor<512x1024xf32>, tensor<512x1024xi32>, tensor<f32>, tensor<i32>) -> (tensor<512xf32>, tensor<512xi32>)
    reducer(%a: tensor<f32>, %c: tensor<f32>) (%ai: tensor<i32>, %ci: tensor<i32>) {
      %gt = stablehlo.compare GT, %c, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %v2 = stablehlo.select %gt, %c, %a : tensor<i1>, tensor<f32>
      %i2 = stablehlo.select %gt, %ci, %ai : tensor<i1>, tensor<i32>
      stablehlo.return %v2, %i2 : tensor<f32>, tensor<i32>
    }
  func.return %r#0, %r#1 : tensor<512xf32>, tensor<512xi32>
}`
	m, err := hlo.ParseModule("argmax.mlir", []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	p, err := host.Compile(m)
	if err != nil {
		b.Fatal(err)
	}
	v := hlo.NewLiteral(hlo.F32, 512, 1024)
	ix := hlo.NewLiteral(hlo.I32, 512, 1024)
	for k := range v.F32() {
		v.F32()[k] = float32(k % 977)
		ix.I32()[k] = int32(k % 1024)
	}
	b.SetBytes(int64(len(v.Data) + len(ix.Data)))
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		if _, err := p.Run(nil, []kernel.Value{v, ix}); err != nil {
			b.Fatal(err)
		}
	}
}
