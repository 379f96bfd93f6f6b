// Package bench compares the embedded device's kernels with other Go
// libraries on the same workloads, in one `go test -bench` run whose output
// benchstat reads (sub-benchmark keys impl=... and n=...):
//
//	cd bench && go test -run X -bench . -count 7 | tee new.txt && benchstat -col /impl new.txt
//
// It is a separate module so that the main module stays free of the
// peers' dependencies (gonum; GoMLX later).
package bench
