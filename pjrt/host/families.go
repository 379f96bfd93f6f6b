package host

// The op families of the embedded device register their table entries in
// their init functions; importing them here assembles the full table.
import (
	_ "github.com/xlajit/xlajit/pjrt/host/check"
	_ "github.com/xlajit/xlajit/pjrt/host/chlo"
	_ "github.com/xlajit/xlajit/pjrt/host/collective"
	_ "github.com/xlajit/xlajit/pjrt/host/control"
	_ "github.com/xlajit/xlajit/pjrt/host/elementwise"
	_ "github.com/xlajit/xlajit/pjrt/host/linalg"
	_ "github.com/xlajit/xlajit/pjrt/host/movement"
)
