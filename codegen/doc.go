// Package codegen generates ahead-of-time traces for `go generate`: a Go
// function over lazy tensors marked with a directive is traced once when
// the code is generated, and the generated file embeds its graph, so the
// first call in a program replays it without tracing.
//
// # The directive
//
// Write it in the doc comment of a top-level function, naming every
// parameter's example shape (an MLIR element type and static dimensions,
// as the fx and lazy printers write them; f32[] is a scalar, i1 is bool):
//
//	//go:generate go run github.com/xlajit/xlajit/cmd/xlajit gen
//
//	// Predict is the model's forward pass.
//	//
//	//xlajit:trace x=f32[64,784] w=f32[784,10] b=f32[10]
//	func Predict(x, w, b *lazy.Tensor) *lazy.Tensor {
//		return x.MatMul(w).Add(b).ReLU()
//	}
//
// The function returns *lazy.Tensor values, optionally followed by an
// error. It may read no tensor other than its parameters and the device RNG
// state (random ops are fine; a weight held in a Go variable must become a
// parameter). Each item names one parameter: NAME=SHAPE for a *lazy.Tensor,
// or NAME=CALL() for a parameter of any type a jit argument may have (a
// model struct, a slice of weights): a call of the package that returns an
// example value, such as the model's constructor:
//
//	//xlajit:trace m=newClassifier() x=f32[32,784]
//	func Classify(m *classifier, x *lazy.Tensor) *lazy.Tensor
//
// The example's tensors become the graph's inputs, and its structure, plain
// values and tensor shapes the guard a call must match to replay
// (jit.TraceAOTValues, (*jit.AOT).Call). Items are separated by spaces
// (spaces inside brackets and parentheses are allowed). Mistakes are
// reported as file:line: message.
//
// # What is generated
//
// `xlajit gen` writes zz_xlajit_<file>.go beside each source file with
// directives (build tag !xlajit_gen), holding per function a *jit.AOT
// loaded at init by jit.MustLoadAOT from the embedded fx graph, its
// StableHLO (informational) and graph hash, and a typed wrapper
// <Func>AOT with the function's signature that calls (*jit.AOT).Run
// without reflection and is registered for jit.StatsOf and jit.Explain.
// Calls with the traced shapes replay (compiled on the first call, through
// the compile cache and XLAJIT_PERSISTENT_CACHE_PATH); other shapes fall
// back to jit.Compile of the function. If the function's signature changes
// and the file is not regenerated, the program panics at init naming the
// function and the fix (go generate); `xlajit gen -check` reports such
// files without writing.
//
// # How the tracing runs
//
// The marked functions live in the user's package (often package main), so
// the generator builds a tracing program inside it: a temporary internal
// test file (build tag xlajit_gen, under which the generated files are
// left out and the test file provides stub wrappers for user code that
// already calls them) that passes the functions to package gentrace, run
// with `go test -tags xlajit_gen,xlajit_gen_ID -run ^TestXlajitGen$`. The
// file, xlajit_gen_tmp_ID_test.go, is removed afterwards, also on failure
// or interrupt. ID is random per run, and the file builds only under its
// own tag, so runs in one package may overlap (two go generate at once):
// each compiles its own tracing file and no other. A run removes the
// tracing files that killed runs left behind (a process of this host that
// is gone, or an earlier version's xlajit_gen_tmp_test.go); files without
// the tracing header are never touched.
//
// Place in the flow: cmd/xlajit gen|dump → codegen (golang.org/x/tools/go/packages,
// github.com/dave/jennifer) → go test → gentrace → jit.TraceAOT → bridge.Trace.
// Imports jit, fx, lazy and hlo of this module; only codegen and cmd import
// x/tools and jennifer.
//
// A generated wrapper:
//
//	func PredictAOT(x, w, b *lazy.Tensor) *lazy.Tensor {
//		outs, err := xlajitAOT_Predict.Run(x, w, b)
//		if err != nil {
//			panic(err)
//		}
//		return outs[0]
//	}
package codegen
