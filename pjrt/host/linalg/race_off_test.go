//go:build !race

package linalg

const raceBuild = false
