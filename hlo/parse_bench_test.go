package hlo

import (
	"os"
	"testing"
)

// BenchmarkParseCorpus parses every chunk of the conformance corpus once
// per iteration (about 22 MB, mostly hex constants).
func BenchmarkParseCorpus(b *testing.B) {
	files := parserCorpusFiles(b)
	var srcs [][]byte
	var lines []int
	total := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		total += len(src)
		for _, c := range SplitInputFile(src) {
			srcs = append(srcs, []byte(c.Text))
			lines = append(lines, c.Line)
		}
	}
	b.SetBytes(int64(total))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k, s := range srcs {
			if _, err := ParseModuleAt("corpus.mlir", s, lines[k]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkPrintCorpus prints every parsed chunk of the corpus.
func BenchmarkPrintCorpus(b *testing.B) {
	files := parserCorpusFiles(b)
	var ms []*Module
	total := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range SplitInputFile(src) {
			m, err := ParseModuleAt(f, []byte(c.Text), c.Line)
			if err != nil {
				b.Fatal(err)
			}
			ms = append(ms, m)
			total += len(c.Text)
		}
	}
	b.SetBytes(int64(total))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, m := range ms {
			_ = m.String()
		}
	}
}

// TestHexDecodeAllocations checks that a large hex constant decodes with a
// constant number of allocations, not one per element.
func TestHexDecodeAllocations(t *testing.T) {
	mk := func(n int) []byte {
		hex := make([]byte, 0, 8*n)
		for i := 0; i < n; i++ {
			hex = append(hex, "0000803F"...)
		}
		return []byte("func.func @f() {\n  %0 = stablehlo.constant dense<\"0x" + string(hex[:len(hex)-8]) + "00000040\"> : tensor<" + itoa(n) + "xf32>\n  func.return\n}\n")
	}
	small, large := mk(200), mk(20000)
	allocs := func(src []byte) float64 {
		return testing.AllocsPerRun(5, func() {
			if _, err := ParseModule("h.mlir", src); err != nil {
				t.Fatal(err)
			}
		})
	}
	a, b := allocs(small), allocs(large)
	if b > a+5 {
		t.Errorf("parsing 20000 hex elements takes %.0f allocations, 200 take %.0f: allocation per element", b, a)
	}
}
