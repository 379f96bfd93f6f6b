package hlo

import (
	"math/rand"
	"os"
	"strings"
	"testing"
)

// TestParseMutations complements FuzzParse with token-level mutations of
// real programs (drop, repeat, swap or replace a token), which reach
// deeper into the grammar than byte-level fuzzing: the parser must never
// panic, and whatever it accepts must print to a fixed point.
func TestParseMutations(t *testing.T) {
	var srcs []string
	if root := findCorpusRoot(); root != "" {
		for _, file := range mlirFilesUnder(root) {
			src, err := os.ReadFile(file)
			if err != nil {
				continue
			}
			for _, c := range SplitInputFile(src) {
				if len(c.Text) <= 3000 {
					srcs = append(srcs, c.Text)
				}
			}
		}
	}
	srcs = append(srcs, goldenInputs()...)
	r := rand.New(rand.NewSource(7))
	const perSource = 6
	n := 0
	for _, src := range srcs {
		toks := tokenize(src)
		if len(toks) < 2 {
			continue
		}
		for k := 0; k < perSource; k++ {
			mut := mutate(r, toks)
			n++
			checkMutant(t, mut)
			if t.Failed() {
				return
			}
		}
	}
	t.Logf("%d mutants of %d programs", n, len(srcs))
}

// tokenize splits src into tokens with the text before each (whitespace,
// comments), so that mutants keep their layout.
func tokenize(src string) []string {
	b := []byte(src)
	var out []string
	pos := 0
	for {
		tk := lexAt(b, pos)
		if tk.kind == tEOF {
			return out
		}
		out = append(out, src[pos:tk.end])
		pos = tk.end
	}
}

func mutate(r *rand.Rand, toks []string) string {
	m := append([]string(nil), toks...)
	i := r.Intn(len(m))
	switch r.Intn(4) {
	case 0:
		m = append(m[:i], m[i+1:]...)
	case 1:
		m = append(m[:i+1], m[i:]...)
	case 2:
		if i+1 < len(m) {
			m[i], m[i+1] = m[i+1], m[i]
		}
	case 3:
		m[i] = " " + strings.TrimLeft(m[r.Intn(len(m))], " \t\n")
	}
	return strings.Join(m, "")
}

func checkMutant(t *testing.T, src string) {
	t.Helper()
	defer func() {
		if e := recover(); e != nil {
			t.Fatalf("parser panicked: %v on\n%s", e, src)
		}
	}()
	m, err := ParseModule("mutant.mlir", []byte(src))
	if err != nil {
		if _, ok := err.(*ParseError); !ok {
			t.Fatalf("error %T is not a *ParseError: %v", err, err)
		}
		return
	}
	first := m.String()
	m2, err := ParseModule("printed.mlir", []byte(first))
	if err != nil {
		t.Fatalf("printed mutant does not parse: %v\n--- mutant:\n%s\n--- printed:\n%s", err, src, first)
	}
	if second := m2.String(); second != first {
		t.Fatalf("mutant print is not a fixed point: %s\n--- mutant:\n%s", firstDiff(first, second), src)
	}
}
