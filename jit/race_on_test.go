//go:build race

package jit_test

const raceBuild = true
