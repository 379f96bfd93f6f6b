//go:build race

package optim

const raceBuild = true
