package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestShortRun trains 40 steps on a small repetitive Go file: the loss
// falls well below its start (about ln(vocabulary)), the train step traces
// once, and sampling produces the requested characters with one trace of
// the sampler.
func TestShortRun(t *testing.T) {
	dir := t.TempDir()
	src := strings.Repeat("func add(a, b int) int {\n\treturn a + b\n}\n\nfunc sub(a, b int) int {\n\treturn a - b\n}\n\n", 40)
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := run(config{Root: dir, Pattern: "*.go", Seq: 16, Batch: 8, Embed: 8, Hidden: 32, Steps: 40,
		LR: 1e-2, Sample: 20, Temp: 0.5, Seed: 1, Every: 10, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	if len(res.Losses) != 40 {
		t.Fatalf("%d losses for 40 steps", len(res.Losses))
	}
	first, last := res.Losses[0], (res.Losses[36]+res.Losses[37]+res.Losses[38]+res.Losses[39])/4
	if math.IsNaN(last) || !(last < 0.6*first) {
		t.Errorf("loss went from %.3f to %.3f", first, last)
	}
	if s := res.Stats; s.Traces != 1 || s.Replays != 40 || s.Recompiles != 0 {
		t.Errorf("train step %s: want one trace and 40 replays", s)
	}
	if n := utf8.RuneCountInString(res.Sample); n != 20 {
		t.Errorf("sampled %d characters, want 20", n)
	}
	if s := res.Sampler; s.Traces != 1 || s.Recompiles != 0 {
		t.Errorf("sampler %s: want one trace", s)
	}
}

// TestEveryZero: -every 0 prints the loss only at the end (it divided by
// zero), and -seq 1 cuts windows every token (its stride of seq/2 was 0,
// an error about a stride nobody gave).
func TestEveryZero(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(strings.Repeat("func f() {}\n", 20)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ every, seq int }{{0, 8}, {-1, 8}, {1, 1}} {
		var out bytes.Buffer
		res, err := run(config{Root: dir, Pattern: "*.go", Seq: c.seq, Batch: 2, Embed: 4, Hidden: 8, Steps: 3,
			LR: 1e-2, Seed: 1, Every: c.every, Out: &out})
		if err != nil || len(res.Losses) != 3 {
			t.Errorf("-every %d -seq %d: %v, %v", c.every, c.seq, res, err)
		}
	}
}
