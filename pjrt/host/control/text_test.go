package control_test

import (
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Programs in MLIR text, through the parser and every op family: the
// spec's while and case examples, and a while loop whose body runs a
// collective on every device of a run_parallel grid.
var textCases = []struct{ name, src string }{
	{"while", `
func.func @main() {
  %init_i = stablehlo.constant dense<1> : tensor<i64>
  %init_sum = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %ten = stablehlo.constant dense<10> : tensor<i64>
  %results0, %results1 = "stablehlo.while"(%init_i, %init_sum) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %cond = "stablehlo.compare"(%arg0, %ten) {
        comparison_direction = #stablehlo<comparison_direction LT>
      } : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %cond : tensor<i1>
    }, {
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %new_sum = stablehlo.add %arg1, %one : tensor<i64>
      %new_i = stablehlo.add %arg0, %one : tensor<i64>
      stablehlo.return %new_i, %new_sum : tensor<i64>, tensor<i64>
  }) : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
  check.expect_eq_const %results0, dense<10> : tensor<i64>
  check.expect_eq_const %results1, dense<9> : tensor<i64>
  func.return
}`},
	{"pretty while", `
func.func @main() {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c5 = stablehlo.constant dense<5> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %0:2 = stablehlo.while(%iterArg = %c0, %iterArg_0 = %c1) : tensor<i64>, tensor<i64>
   cond {
    %1 = stablehlo.compare  LT, %iterArg, %c5,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %1 = stablehlo.add %iterArg, %c1 : tensor<i64>
    %2 = stablehlo.add %iterArg_0, %iterArg_0 : tensor<i64>
    stablehlo.return %1, %2 : tensor<i64>, tensor<i64>
  }
  check.expect_eq_const %0#1, dense<32> : tensor<i64>
  func.return
}`},
	{"case", `
func.func @main() {
  %index = stablehlo.constant dense<-1> : tensor<i32>
  %result_branch0 = stablehlo.constant dense<0> : tensor<2xi64>
  %result_branch1 = stablehlo.constant dense<1> : tensor<2xi64>
  %result0, %result1 = "stablehlo.case"(%index) ({
    "stablehlo.return"(%result_branch0, %result_branch0) : (tensor<2xi64>, tensor<2xi64>) -> ()
  }, {
    "stablehlo.return"(%result_branch1, %result_branch1) : (tensor<2xi64>, tensor<2xi64>) -> ()
  }) : (tensor<i32>) -> (tensor<2xi64>, tensor<2xi64>)
  check.expect_eq_const %result0, dense<[1, 1]> : tensor<2xi64>
  check.expect_eq_const %result1, dense<[1, 1]> : tensor<2xi64>
  func.return
}`},
	{"looped all_reduce", `
module @looped {
  func.func @step(%x : tensor<2xi64>) -> tensor<2xi64> {
    %c0 = stablehlo.constant dense<0> : tensor<i64>
    %c1 = stablehlo.constant dense<1> : tensor<i64>
    %c3 = stablehlo.constant dense<3> : tensor<i64>
    %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i64>, tensor<2xi64>
     cond {
      %p = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %s = "stablehlo.all_reduce"(%v) ({
        ^bb0(%a: tensor<i64>, %b: tensor<i64>):
          %m = stablehlo.maximum %a, %b : tensor<i64>
          stablehlo.return %m : tensor<i64>
      }) {
        replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>
      } : (tensor<2xi64>) -> tensor<2xi64>
      %j = stablehlo.add %i, %c1 : tensor<i64>
      %w = stablehlo.add %s, %v : tensor<2xi64>
      stablehlo.return %j, %w : tensor<i64>, tensor<2xi64>
    }
    return %r#1 : tensor<2xi64>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1, 5]> : tensor<2xi64>
    %b = stablehlo.constant dense<[4, 2]> : tensor<2xi64>
    %res:2 = "interpreter.run_parallel"(%a, %b) {
      programs = [[@step], [@step]]
    } : (tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>)
    check.expect_eq_const %res#0, dense<[29, 40]> : tensor<2xi64>
    check.expect_eq_const %res#1, dense<[32, 37]> : tensor<2xi64>
    func.return
  }
}`},
}

func TestTextPrograms(t *testing.T) {
	for _, c := range textCases {
		m, err := hlo.ParseModule(c.name+".mlir", []byte(c.src))
		if err != nil {
			t.Fatalf("%s: parse: %v", c.name, err)
		}
		p, err := host.Compile(m)
		if err != nil {
			t.Fatalf("%s: compile: %v", c.name, err)
		}
		log := &kernel.CheckLog{}
		if _, err := p.Run(&kernel.Ctx{Checks: log}, nil); err != nil {
			t.Fatalf("%s: run: %v", c.name, err)
		}
		if len(log.Failed) > 0 || log.Passed == 0 {
			t.Errorf("%s: %d passed, failed: %q", c.name, log.Passed, log.Failed)
		}
	}
}
