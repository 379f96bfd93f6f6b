// Package control holds the embedded device's structural ops: while, if,
// case, call, composite, optimization_barrier, after_all, tuple and
// get_tuple_element, and custom_call, which compiles each op through the
// custom_call target registered for its call_target_name
// (kernel.RegisterTarget); this package registers the targets that are not
// tests (ProductOfElementaryHouseholderReflectors, shape_assertion), the
// check family its check.* targets.
//
// Place in the flow: registered into kernel's op table; run by package
// host, which compiles the regions and callees of these ops
// (kernel.RegionCompiler). Imports hlo and pjrt/host/kernel only; it does
// not import the other op families.
//
// Example row: kernel.Entry{Name: "stablehlo.while", Compile: compileWhile,
// NoAlloc: true}.
package control
