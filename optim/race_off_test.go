//go:build !race

package optim

// raceBuild reports a build with the race detector (sync.Pool drops
// entries at random under it).
const raceBuild = false
