package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunBadInput: `xlajit run` on modules that are invalid or too large
// prints an error naming the place and exits 1; before, the first printed
// `dense<>` (an element count that wrapped to 0) and exited 0, the second
// ran without a return, and the splat was allocated in full when parsed.
func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, src string
		args      []string
		want      []string
	}{
		{"overflow", `func.func @main() -> tensor<4294967296x4294967296x16xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<4294967296x4294967296x16xf32>
  return %0 : tensor<4294967296x4294967296x16xf32>
}
`, nil, []string{"overflow.mlir:1:22: tensor<4294967296x4294967296x16xf32>: element count overflows int64"}},
		{"no return", `func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
}
`, []string{"--args", "[dense<1.0> : tensor<2xf32>]"}, []string{"no return.mlir:2:3: function @main ends with stablehlo.add, want func.return"}},
		{"huge splat", `func.func @main() -> tensor<1099511627776xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<1099511627776xf32>
  return %0 : tensor<1099511627776xf32>
}
`, nil, []string{"huge splat.mlir:2:3: stablehlo.constant: out of memory", "f32[1099511627776] needs 4398046511104 bytes (4 TiB)", "XLAJIT_HOST_MEMORY_LIMIT"}},
		{"huge splat through the seam", `func.func @main() -> tensor<1099511627776xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<1099511627776xf32>
  return %0 : tensor<1099511627776xf32>
}
`, []string{"--device", "CPU"}, []string{"stablehlo.constant: out of memory", "f32[1099511627776]"}},
		{"huge splat argument", `func.func @main(%a: tensor<1099511627776xf32>) -> tensor<1099511627776xf32> {
  return %a : tensor<1099511627776xf32>
}
`, []string{"--args", "[dense<1.0> : tensor<1099511627776xf32>]"}, []string{"--args element 0: splat argument: out of memory", "f32[1099511627776]"}},
	} {
		f := filepath.Join(dir, tc.name+".mlir")
		if err := os.WriteFile(f, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := capture(t, runRun, append([]string{f}, tc.args...)...)
		if code != 1 || out != "" {
			t.Errorf("%s: exit %d, output %q, stderr %q; want exit 1 and no output", tc.name, code, out, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr %q does not contain %q", tc.name, errOut, w)
			}
		}
	}
}
