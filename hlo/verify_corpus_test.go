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

// verifyCorpusDir finds shared/conformance/stablehlo above the package
// directory, or skips.
func verifyCorpusDir(t *testing.T) string { return corpusdir.Require(t, corpusdir.StableHLO) }

// verifyCorpusFiles lists every .mlir file under the corpus, sorted.
func verifyCorpusFiles(t *testing.T, root string) []string {
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".mlir") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// verifyKnownInvalid lists corpus chunks (file relative to the corpus root, and
// 1-based chunk index) that upstream's own verifier would reject too, with
// the reason, or that rely on something this verifier deliberately does
// not accept. Each must still be rejected, with an error containing the
// given text, so that the list cannot go stale.
var verifyKnownInvalid = map[string]struct{ reason, want string }{
	"testdata/dynamic/conv_general_dilated_1d_stride_2_even_dynamic.mlir#1": {
		reason: "JAX wrote window_strides = [2, 2] for a 1-d convolution; spec dynamic_conv C2 wants N-2 = 1 entries " +
			"(upstream's verifier checks window attributes only when the padding operand is a constant, here it is computed)",
		want: "stablehlo.dynamic_conv: window_strides [2, 2] has 2 entries, want 1",
	},
	"testdata/dynamic/conv_general_dilated_1d_stride_2_odd_dynamic.mlir#1": {
		reason: "as conv_general_dilated_1d_stride_2_even_dynamic.mlir#1",
		want:   "stablehlo.dynamic_conv: window_strides [2, 2] has 2 entries, want 1",
	},
}

// dialects returns the dialects of every op in m.
func opDialects(m *Module) map[string]bool {
	out := map[string]bool{}
	for _, f := range m.Funcs {
		f.Body.Walk(func(op *Op) bool {
			out[op.Dialect()] = true
			return true
		})
	}
	return out
}

func TestVerifyCorpus(t *testing.T) {
	root := verifyCorpusDir(t)
	files := verifyCorpusFiles(t, root)
	var chunks, parsed, verified, foreign int
	seen := map[string]bool{}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		for i, ch := range SplitInputFile(src) {
			chunks++
			key := rel + "#" + strconv.Itoa(i+1)
			m, err := ParseModuleAt(rel, []byte(ch.Text), ch.Line)
			if err != nil {
				continue // the parser's tests own parse failures
			}
			parsed++
			ds := opDialects(m)
			for d := range ds {
				if d != "stablehlo" && d != "func" && d != "check" {
					foreign++
					break
				}
			}
			err = Verify(m)
			if k, ok := verifyKnownInvalid[key]; ok {
				seen[key] = true
				if err == nil || !strings.Contains(err.Error(), k.want) {
					t.Errorf("%s: known invalid (%s) but Verify gave %v, want an error containing %q", key, k.reason, err, k.want)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", key, err)
				continue
			}
			verified++
		}
	}
	for k := range verifyKnownInvalid {
		if !seen[k] {
			t.Errorf("known invalid chunk %s not found in the corpus", k)
		}
	}
	t.Logf("%d chunks, %d parsed, %d verified (%d using dialects beyond stablehlo/func/check, checked for SSA there), %d known invalid",
		chunks, parsed, verified, foreign, len(verifyKnownInvalid))
}

// TestVerifyCorpusMutations corrupts corpus modules and checks that Verify
// notices: for ops whose result types are fully inferable, an extra
// dimension on the first result; and a use moved before its definition.
func TestVerifyCorpusMutations(t *testing.T) {
	root := verifyCorpusDir(t)
	var typeMut, ssaMut int
	for _, file := range verifyCorpusFiles(t, root) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		for i, ch := range SplitInputFile(src) {
			key := rel + "#" + strconv.Itoa(i+1)
			if _, bad := verifyKnownInvalid[key]; bad {
				continue
			}
			m, err := ParseModuleAt(rel, []byte(ch.Text), ch.Line)
			if err != nil {
				continue
			}
			for _, f := range m.Funcs {
				if f.Body == nil {
					continue
				}
				n := 0
				f.Body.Walk(func(op *Op) bool {
					if op.Dialect() != "stablehlo" || len(op.Results) == 0 {
						return true
					}
					got, err := InferResultTypes(op.Name, valueTypes(op.Operands), op.Attrs, op.Regions)
					res, ok := op.Results[0].Type.(*TensorType)
					if err != nil || !ok || len(got) == 0 {
						return true
					}
					orig := op.Results[0].Type
					op.Results[0].Type = withDims(res, append(append([]int64{}, res.Dims...), 1))
					err = Verify(m)
					op.Results[0].Type = orig
					if err == nil || !strings.Contains(err.Error(), op.Name) {
						t.Errorf("%s: extra dimension on the result of %s at %s not reported: %v", key, op.Name, op.Loc, err)
					}
					typeMut++
					n++
					return n < 3
				})
				// Move the entry block's last non-terminator op that uses an
				// op result to the front.
				b := f.Body.Blocks[0]
				for j := len(b.Ops) - 2; j > 0; j-- {
					op := b.Ops[j]
					defined := false
					for _, x := range op.Operands {
						defined = defined || x.Def != nil
					}
					if !defined {
						continue
					}
					ops := append([]*Op{op}, append(append([]*Op{}, b.Ops[:j]...), b.Ops[j+1:]...)...)
					saved := b.Ops
					b.Ops = ops
					err := Verify(m)
					b.Ops = saved
					if err == nil || !strings.Contains(err.Error(), "before its definition") {
						t.Errorf("%s: %s moved first in @%s not reported: %v", key, op.Name, f.Name, err)
					}
					ssaMut++
					break
				}
			}
		}
	}
	t.Logf("%d result-type mutations and %d use-before-definition mutations caught", typeMut, ssaMut)
}
