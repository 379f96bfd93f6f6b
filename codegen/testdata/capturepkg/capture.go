package capturepkg

import "github.com/xlajit/xlajit/lazy"

var weight = lazy.FromSlice([]float32{1, 2, 3, 4}, 2, 2)

//xlajit:trace x=f32[2,2]
func UsesGlobal(x *lazy.Tensor) *lazy.Tensor {
	return x.MatMul(weight)
}
