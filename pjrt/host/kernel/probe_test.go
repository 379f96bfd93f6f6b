package kernel

import (
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// Recordings are copies, kept per id in order: storage the run reuses
// after the probe does not change what was recorded.
func TestProbeRecordings(t *testing.T) {
	var log CheckLog
	l := hlo.LiteralFromSlice([]int64{1, 2})
	typ := hlo.NewTensorType(hlo.I64, 2)
	log.RecordProbe("a", typ, l)
	l.SetInt(0, 7)
	log.RecordProbe("a", typ, l)
	log.RecordProbe("b", typ, l)
	p, n, ok := log.Probe("a", 0)
	if !ok || n != 2 || p.Value.Int(0) != 1 || !hlo.TypesEqual(p.Type, typ) {
		t.Fatalf("Probe(a, 0) = %v %v, %d, %v", p.Type, p.Value, n, ok)
	}
	if p, _, _ := log.Probe("a", 1); p.Value.Int(0) != 7 {
		t.Fatalf("Probe(a, 1) = %v", p.Value)
	}
	if _, n, ok := log.Probe("a", 2); ok || n != 2 {
		t.Fatalf("Probe(a, 2) found a value (%d recorded)", n)
	}
	if _, n, ok := log.Probe("c", 0); ok || n != 0 {
		t.Fatalf("Probe(c, 0) found a value (%d recorded)", n)
	}
}
