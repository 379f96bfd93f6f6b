//go:build !race

package movement

const raceBuild = false
