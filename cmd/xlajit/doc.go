// Command xlajit is the command-line tool of xlajit: run a StableHLO file,
// run the conformance corpus, list devices, dump traced functions, and
// generate ahead-of-time traces.
//
//	xlajit conform PATH...      run the StableHLO conformance corpus
//	xlajit run FILE.mlir        run a StableHLO program and print its results
//	xlajit devices              embedded devices and PJRT plugins found
//	xlajit dump PKG FUNC        fx graph, lazy IR, StableHLO or DOT of a traced function
//	xlajit gen [-check]         ahead-of-time traces (go generate)
//
// Place in the flow: the command line over every package; it may import
// anything.
package main
