package hlo

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/internal/corpusdir"
)

// findCorpusRoot returns shared/conformance/stablehlo found by walking up
// from the working directory, or "".
func findCorpusRoot() string {
	c, _ := corpusdir.Find(".", corpusdir.StableHLO)
	return c
}

// mlirFilesUnder lists the .mlir files below root, sorted.
func mlirFilesUnder(root string) []string {
	var files []string
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".mlir") {
			files = append(files, path)
		}
		return nil
	})
	sort.Strings(files)
	return files
}

// goldenInputs returns the texts of the printer golden inputs.
func goldenInputs() []string {
	files, _ := filepath.Glob(filepath.Join("testdata", "print", "*.mlir"))
	var out []string
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			out = append(out, string(b))
		}
	}
	return out
}

// parserCorpusFiles lists every .mlir file of the corpus, or skips.
func parserCorpusFiles(t testing.TB) []string {
	t.Helper()
	root := findCorpusRoot()
	if root == "" {
		t.Skip("conformance corpus not found: no shared/conformance/stablehlo above the working directory")
	}
	files := mlirFilesUnder(root)
	if len(files) == 0 {
		t.Skip("conformance corpus has no .mlir files")
	}
	return files
}

type parserCorpusChunk struct {
	file string
	Chunk
}

func parserCorpusChunks(t testing.TB) []parserCorpusChunk {
	var out []parserCorpusChunk
	for _, f := range parserCorpusFiles(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range SplitInputFile(src) {
			out = append(out, parserCorpusChunk{f, c})
		}
	}
	return out
}

// TestCorpusParses parses every chunk of every corpus file.
func TestCorpusParses(t *testing.T) {
	chunks := parserCorpusChunks(t)
	fails := 0
	for _, c := range chunks {
		m, err := ParseModuleAt(c.file, []byte(c.Text), c.Line)
		if err != nil {
			fails++
			if fails <= 20 {
				t.Errorf("%v", err)
			}
			continue
		}
		checkTyped(t, c.file, m)
	}
	t.Logf("%d chunks, %d failed", len(chunks), fails)
}

// checkTyped verifies every value has a type and every op a location.
func checkTyped(t *testing.T, file string, m *Module) {
	t.Helper()
	check := func(r *Region) {
		r.Walk(func(op *Op) bool {
			if op.Loc.Line == 0 {
				t.Errorf("%s: %s has no location", file, op.Name)
				return false
			}
			for _, v := range op.Results {
				if v.Type == nil {
					t.Errorf("%s: %s: result without type", op.Loc, op.Name)
					return false
				}
			}
			for _, v := range op.Operands {
				if v == nil || v.Type == nil {
					t.Errorf("%s: %s: operand without type", op.Loc, op.Name)
					return false
				}
			}
			for _, sub := range op.Regions {
				for _, b := range sub.Blocks {
					for _, a := range b.Args {
						if a.Type == nil {
							t.Errorf("%s: %s: block argument without type", op.Loc, op.Name)
							return false
						}
					}
				}
			}
			return true
		})
	}
	for _, f := range m.Funcs {
		for _, a := range f.Args {
			if a.Type == nil {
				t.Errorf("%s: @%s: argument without type", f.Loc, f.Name)
			}
		}
		if f.Body != nil {
			check(f.Body)
		}
	}
}

// TestCorpusRoundTrip checks that print -> parse -> print is a fixed point
// for every chunk.
func TestCorpusRoundTrip(t *testing.T) {
	chunks := parserCorpusChunks(t)
	fails := 0
	for _, c := range chunks {
		m, err := ParseModuleAt(c.file, []byte(c.Text), c.Line)
		if err != nil {
			continue // reported by TestCorpusParses
		}
		first := m.String()
		m2, err := ParseModule(c.file+" (printed)", []byte(first))
		if err != nil {
			fails++
			if fails <= 10 {
				t.Errorf("%s:%d: reparse of printed module failed: %v\n%s", c.file, c.Line, err, excerpt(first, err))
			}
			continue
		}
		second := m2.String()
		if first != second {
			fails++
			if fails <= 10 {
				t.Errorf("%s:%d: print is not a fixed point:\n%s", c.file, c.Line, firstDiff(first, second))
			}
		}
	}
	t.Logf("%d chunks, %d not round-tripping", len(chunks), fails)
}

// excerpt shows the lines around a parse error in printed text.
func excerpt(text string, err error) string {
	pe, ok := err.(*ParseError)
	if !ok {
		return ""
	}
	lines := strings.Split(text, "\n")
	lo, hi := pe.Loc.Line-3, pe.Loc.Line+1
	if lo < 0 {
		lo = 0
	}
	if hi > len(lines) {
		hi = len(lines)
	}
	return strings.Join(lines[lo:hi], "\n")
}

// firstDiff shows the first differing line of two texts.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return "line " + itoa(i+1) + ":\n  first:  " + clip(la[i]) + "\n  second: " + clip(lb[i])
		}
	}
	return "lengths differ: " + itoa(len(la)) + " vs " + itoa(len(lb)) + " lines"
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

func itoa(i int) string { return strconv.Itoa(i) }
