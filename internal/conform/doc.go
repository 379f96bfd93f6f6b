// Package conform runs StableHLO conformance files: the reference
// interpreter's tests (interpret/) and JAX-generated programs with expected
// outputs (testdata/) under shared/conformance/stablehlo, IREE's end-to-end
// op tests under shared/conformance/iree, or any .mlir file written the same
// way.
//
// Place in the flow: it sits beside the stack, not in it. It parses with
// hlo, runs on the embedded device (pjrt/host, directly, so that every
// check op's verdict is logged) or on any pjrt.Client through the seam (the
// checks are lifted out of the program and judged on the host by the same
// check kernels). It imports only hlo and pjrt (pjrt/host included); cmd
// (xlajit run, xlajit conform) and its own tests import it.
//
// A file is split at "// -----" (hlo.SplitInputFile); each part is a case
// named path#index (from 0) with its entry, the only function or else @main.
// A part with several functions and no @main is IREE's layout: each public
// function is a case of its own (funcs.go), numbered on through the file,
// its function the entry; a function that does not parse fails alone.
// IREE's test helpers are lowered to StableHLO before compiling (lower.go);
// its check dialect (parsed as iree_check.*) runs as kernels of the embedded
// device; files checked by iree-run-mlir and FileCheck run every exported
// function with the RUN line's inputs (ireerun.go, ireeio.go).
// A case passes when it ran and every check op reported and held (a case
// without checks passes when it runs), and, in a file whose RUN lines pipe
// the interpreter (or iree-run-mlir) into FileCheck, when the results
// printed as the upstream tool prints them match the case's directives
// (filecheck.go, filecheck_match.go); it
// fails with a Kind and a reason; it is skipped only for one of
// SkipReasons, decided from its content. One
// result, as `xlajit conform --json` prints it:
//
//	{"file":"interpret/add.mlir","case":0,"line":3,"function":"add_op_test_si4",
//	 "status":"pass","checks":1,"duration":0.0004}
//
// TestCorpus runs the whole visible StableHLO corpus against
// testdata/expected_failures.txt (`path#case reason` lines; -update rewrites
// it keeping reasons) and reports pass rates per tree, failures by op and
// where the time goes; TestIREECorpus does the same for IREE's tests against
// testdata/iree_expected_failures.txt.
package conform
