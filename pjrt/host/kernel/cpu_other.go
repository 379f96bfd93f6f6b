//go:build !amd64 || purego

package kernel

func detectCPU() CPUFeatures { return CPUFeatures{} }
