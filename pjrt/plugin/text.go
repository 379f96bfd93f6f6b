package plugin

import (
	"errors"
	"fmt"

	"github.com/xlajit/xlajit/hlo"
)

// moduleText prints m as the StableHLO text handed to the plugin's
// compiler, with the entry function renamed to @main when needed.
func moduleText(m *hlo.Module) (string, *hlo.Func, error) {
	mm, entry, err := entryModule(m)
	if err != nil {
		return "", nil, err
	}
	// The printer is being added to package hlo concurrently; until then
	// compilation reports that it is missing.
	s, ok := any(mm).(fmt.Stringer)
	if !ok {
		return "", nil, errors.New("hlo.Module has no String method: the StableHLO printer is not available")
	}
	return s.String(), entry, nil
}
