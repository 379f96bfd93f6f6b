//go:build !amd64

package fmapeak

// kernels: no assembly loop for this architecture (the peak is reported
// as absent).
func kernels() []kernel { return nil }
