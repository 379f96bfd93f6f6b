package kernel

import "testing"

// TestCPUFeaturesConsistent checks the detection's implications: AVX-512F
// is only reported with AVX2 (its kernels assume both), and detecting
// again gives the same answer.
func TestCPUFeaturesConsistent(t *testing.T) {
	if CPU.AVX512F && !CPU.AVX2 {
		t.Fatalf("AVX-512F without AVX2: %+v", CPU)
	}
	if again := detectCPU(); again != CPU {
		t.Fatalf("detected %+v, then %+v", CPU, again)
	}
	t.Logf("%+v", CPU)
}
