// Package optable is the declarative table of the ops the hlo package
// knows: for each op its name, elementwise class, pretty syntax, inherent
// attributes, type rule, builder method, the hand-written code that handles
// what a row cannot say, and why the embedded device has no kernel for it
// when it has none.
//
// The table is data only; cmd/hlogen (run by `go generate ./hlo`) turns it
// into hlo's parser form list, printer attribute list, inference map,
// boilerplate builder methods and FORMS.md (the *_gen.go files), so an op's
// facts are written once. Imports the standard library only.
package optable
