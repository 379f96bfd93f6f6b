package badpkg

import "github.com/xlajit/xlajit/lazy"

//xlajit:trace x=f32[2] y=f32[2]
func UnknownParam(x *lazy.Tensor) *lazy.Tensor { return x }

//xlajit:trace x=f33[2]
func BadDType(x *lazy.Tensor) *lazy.Tensor { return x }

//xlajit:trace x=f32[2]
func MissingShape(x, w *lazy.Tensor) *lazy.Tensor { return x }

//xlajit:trace x=f32[2] x=f32[3]
func Twice(x *lazy.Tensor) *lazy.Tensor { return x }

//xlajit:trace x=f32[2] n=i32[]
func NotATensor(x *lazy.Tensor, n int) *lazy.Tensor { return x }

//xlajit:trace x=f32[2]
func BadResult(x *lazy.Tensor) float32 { return 0 }

//xlajit:trace x:f32[2]
func BadItem(x *lazy.Tensor) *lazy.Tensor { return x }

//xlajit:trace x=f32[?]
func Dynamic(x *lazy.Tensor) *lazy.Tensor { return x }

type model struct{ w *lazy.Tensor }

//xlajit:trace x=f32[2]
func (m *model) Method(x *lazy.Tensor) *lazy.Tensor { return x }

//xlajit:traced x=f32[2]
func Typo(x *lazy.Tensor) *lazy.Tensor { return x }

//xlajit:trace x=f32[2]
var notAFunc = 1

//xlajit:trace xs=f32[2]
func Variadic(xs ...*lazy.Tensor) *lazy.Tensor { return xs[0] }

//xlajit:trace x=f32[2]
func Good(x *lazy.Tensor) *lazy.Tensor { return x }

func GoodAOT() {}
