package difftest

import (
	"testing"
	"time"
)

// TestShardedPrograms runs generated programs with the CI features and
// Sharding: each also runs on the SPMD device of four embedded devices
// with random layouts and annotations, and must agree with lazy mode
// (values within a changed summation order's tolerance).
func TestShardedPrograms(t *testing.T) {
	var f Features
	if err := f.Apply("ci,Sharding"); err != nil {
		t.Fatal(err)
	}
	n := 600
	if testing.Short() || raceEnabled {
		n = 100
	}
	start := time.Now()
	fams := map[string][]uint64{}
	ran := 0
	for seed := uint64(1); seed <= uint64(n) && time.Since(start) < 40*time.Second; seed++ {
		p := Generate(seed, f)
		ran++
		if fail, _ := checkGuarded(p); fail != nil {
			if knownFamily(fail.Family) {
				continue
			}
			if len(fams[fail.Family]) == 0 {
				t.Errorf("seed %d: %s\n%s", seed, fail, p.Text())
			}
			fams[fail.Family] = append(fams[fail.Family], seed)
		}
	}
	t.Logf("%d sharded programs in %v; failure families %v", ran, time.Since(start).Round(time.Millisecond), fams)
}
