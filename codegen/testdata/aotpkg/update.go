package main

import "github.com/xlajit/xlajit/lazy"

// Update changes its argument in place and returns nothing.
//
//xlajit:trace p=f32[3] g=f32[3]
func Update(p, g *lazy.Tensor) {
	p.Assign(p.Sub(g.MulScalar(0.25)))
}
