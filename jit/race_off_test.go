//go:build !race

package jit_test

// raceBuild reports a build with the race detector (tests run fewer steps).
const raceBuild = false
