// Command aotpkg is the codegen test's package: it calls the generated
// wrappers and checks them against jit.Compile.
package main

import (
	"fmt"
	"os"
	"slices"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

func main() {
	x := lazy.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	w := lazy.FromSlice([]float32{1, 0, 0, 1, 1, 1, -1, 0, 0, 1, 0, -2}, 3, 4)
	got := AffineAOT(x, w).Float32s()
	fmt.Println("affine:", jit.StatsOf(AffineAOT))
	if want := jit.Compile(Affine)(x, w).Float32s(); !slices.Equal(got, want) {
		fmt.Println("affine differs:", got, want)
		os.Exit(1)
	}
	a, b, err := NoisyAOT(lazy.FromSlice([]float32{1, 1, 1, 1}, 4))
	if err != nil || a.Shape().String() != "f32[4]" || b.Shape().String() != "f32[4]" {
		fmt.Println("noisy:", err)
		os.Exit(1)
	}
	fmt.Println("noisy:", jit.StatsOf(NoisyAOT))
	p := lazy.FromSlice([]float32{1, 2, 3}, 3)
	UpdateAOT(p, lazy.FromSlice([]float32{4, 4, 4}, 3))
	fmt.Println("update:", jit.StatsOf(UpdateAOT), p.Float32s())
	m1, m2 := newNet(), newNet()
	x4 := lazy.FromSlice([]float32{1, 2, 3, 4, 5, 6, -1, 0, 2, 3, 3, 3}, 4, 3)
	got = ClassifyAOT(m1, x4).Float32s()
	if want := Classify(m2, x4).Float32s(); !slices.Equal(got, want) || !slices.Equal(m1.BN.RunningMean.Float32s(), m2.BN.RunningMean.Float32s()) {
		fmt.Println("classify differs:", got, want)
		os.Exit(1)
	}
	fmt.Println("classify:", jit.StatsOf(ClassifyAOT))
	_ = unmarked
}
