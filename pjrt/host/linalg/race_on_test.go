//go:build race

package linalg

const raceBuild = true
