package kernel

// CPUFeatures lists the vector instruction sets the families' assembly
// kernels use, each true only when the CPU has it and the OS saves its
// register state (XCR0), as the CPU manuals require before using them.
// All are false on other architectures and in purego builds.
type CPUFeatures struct {
	AVX2    bool // AVX2 with YMM state saved
	FMA     bool // FMA3
	AVX512F bool // AVX-512F with opmask and ZMM state saved (implies AVX2)
}

// CPU is this machine's features, detected once.
var CPU = detectCPU()
