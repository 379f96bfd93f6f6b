// Command hlogen writes the hlo package's op tables from the declarative
// table in hlo/optable: the parser's form list, the printer's inherent
// attributes, the type inference map, the boilerplate builder methods
// (ops_*_gen.go) and FORMS.md. hlo runs it through go generate:
//
//	//go:generate go run github.com/xlajit/xlajit/cmd/hlogen
//
// With -check nothing is written: stale or missing files are listed and
// the exit status is 1.
package main
