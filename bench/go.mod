module github.com/xlajit/xlajit/bench

go 1.26.0

require github.com/xlajit/xlajit v0.0.0

require gonum.org/v1/gonum v0.17.0

require github.com/google/renameio/v2 v2.0.2 // indirect

require (
	github.com/dustin/go-humanize v1.0.1 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/gomlx/gomlx v0.26.0
	github.com/pkg/errors v0.9.1 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	golang.org/x/exp v0.0.0-20260410095643-746e56fc9e2f // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
)

replace github.com/xlajit/xlajit => ../
