// Package check holds the embedded device's test dialects: StableHLO's
// check ops (check.expect_eq, expect_almost_eq, expect_close, their _const
// forms, and the custom_call targets check.expect_* and check.eq that
// JAX-exported programs call), IREE's check ops (iree_check.*), and the
// reference interpreter's interpreter.probe with check.expect_serialized_eq
// and interpreter.print.
//
// A check records its result in the run's kernel.CheckLog; without one, a
// failed check is an error. Comparisons (compare.go) name the first
// mismatching element and its index.
//
// Place in the flow: registered into kernel's op table and custom_call
// target table; run by package host. Imports hlo and pjrt/host/kernel only.
//
// Example row: kernel.Entry{Name: "check.expect_eq", Compile:
// compileExpectEq}.
package check
