//go:build race

package host

const raceBuild = true
