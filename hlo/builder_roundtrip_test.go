package hlo

import (
	"strings"
	"testing"
)

// TestBuilderRoundTrip builds a module with every builder method, prints
// it, parses the text back, verifies it and prints it again: the two
// texts must be equal.
func TestBuilderRoundTrip(t *testing.T) {
	for _, locs := range []bool{false, true} {
		b := NewBuilder("every")
		b.SetLocations(locs)
		buildEveryOp(b)
		m := mustBuild(t, b)
		text := m.String()
		m2, err := ParseModule("built.mlir", []byte(text))
		if err != nil {
			t.Fatalf("locations %v: parse of printed module: %v\n%s", locs, err, text)
		}
		if err := Verify(m2); err != nil {
			t.Fatalf("locations %v: verify of reparsed module: %v", locs, err)
		}
		if text2 := m2.String(); text2 != text {
			a, b := strings.Split(text, "\n"), strings.Split(text2, "\n")
			for i := range a {
				if i >= len(b) || a[i] != b[i] {
					other := ""
					if i < len(b) {
						other = b[i]
					}
					t.Fatalf("locations %v: line %d differs after round trip:\n  %s\n  %s", locs, i+1, a[i], other)
				}
			}
			t.Fatalf("locations %v: reprinted text has %d lines, want %d", locs, len(b), len(a))
		}
	}
}
