package difftest

import (
	"testing"

	"github.com/xlajit/xlajit/lazy"
)

func TestReproConcat(t *testing.T) {
	x := lazy.FromSlice([]float32{1, 2})
	y := lazy.FromSlice([]float32{3, 4})
	t.Logf("%v (want [4 12])", x.Add(y).Mul(x).Float32s())
	t.Logf("%v (want [12 24])", x.Add(y).Mul(y).Float32s())
}
