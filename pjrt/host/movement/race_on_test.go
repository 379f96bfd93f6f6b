//go:build race

package movement

// raceBuild: the race detector is on (accuracy tests over millions of
// elements skip: they check arithmetic, which the detector does not see).
const raceBuild = true
