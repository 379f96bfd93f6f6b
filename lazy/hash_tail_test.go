package lazy

import "testing"

// tailWord packs the last bytes of a string or slice as the byte loop the
// hashes were defined with did (graph hashes key persistent caches and
// ahead-of-time traces, so they must not change).
func TestTailWordIsTheByteLoop(t *testing.T) {
	for n := range 8 {
		b := make([]byte, n)
		for trial := range 300 {
			for i := range b {
				b[i] = byte(trial*31 + i*17 + n)
			}
			var want uint64
			for i := range n {
				want |= uint64(b[i]) << (8 * i)
			}
			if got := tailWord(b); got != want {
				t.Fatalf("%d bytes %x: %#x, want %#x", n, b, got, want)
			}
			if got := tailWord(string(b)); got != want {
				t.Fatalf("%d bytes %x as a string: %#x, want %#x", n, b, got, want)
			}
		}
	}
}
