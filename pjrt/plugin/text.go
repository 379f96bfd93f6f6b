package plugin

import (
	"github.com/xlajit/xlajit/hlo"
)

// moduleText prints m as the StableHLO text handed to the plugin's
// compiler (MLIR's pretty form, which XLA's parser reads), with the entry
// function renamed to @main when needed.
func moduleText(m *hlo.Module) (string, *hlo.Func, error) {
	mm, entry, err := entryModule(m)
	if err != nil {
		return "", nil, err
	}
	return mm.String(), entry, nil
}
