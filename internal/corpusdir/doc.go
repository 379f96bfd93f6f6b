// Package corpusdir finds the shared conformance corpora (the StableHLO
// interpreter's tests, IREE's end-to-end op tests) that tests and
// `xlajit conform` read from a directory above the checkout. It imports
// the standard library only, so every package's tests may use it.
package corpusdir
