module github.com/xlajit/xlajit/bench

go 1.26

require github.com/xlajit/xlajit v0.0.0

require gonum.org/v1/gonum v0.17.0

replace github.com/xlajit/xlajit => ../
