//go:build !amd64 || purego

package movement

func select2x2Vec(dir string, v0, v1, d0, d1, src []float32, init float32) int { return 0 }

func reduce2x2Vec(k binKind, v0, v1, dst []float32, init float32) int { return 0 }

func reduce2x2RowsVec(k binKind, in, out []float32, rows, w, ow int, init float32) int { return 0 }

func select2x2RowsVec(dir string, operand, out, src []float32, rows, w, ow int, init float32) int {
	return 0
}

func maskGT0Vec(out, a []float32, c float32) int { return 0 }

func maskLE0Vec(out, a []float32, c float32) int { return 0 }
