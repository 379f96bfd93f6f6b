//go:build !cgo

package plugin

import "github.com/xlajit/xlajit/pjrt"

// Without cgo nothing can be dlopen'ed: every loader returns ErrNoCgo, after
// the file checks that need no cgo so that a bad path is still named.

func init() {
	pjrt.Register("PLUGIN", Open)
}

// Open reports ErrNoCgo (after checking the plugin file when spec names one).
func Open(spec string) (pjrt.Client, error) {
	if _, err := Load(spec); err != nil {
		return nil, err
	}
	return nil, ErrNoCgo
}

// Load finds (see Find) and checks the plugin file, then reports ErrNoCgo.
func Load(spec string) (*Info, error) {
	p, err := Find(spec)
	if err != nil {
		return nil, err
	}
	if err := checkELF(p); err != nil {
		return nil, err
	}
	return nil, &LoadError{Path: p, Cause: ErrNoCgo}
}

// Inspect reports ErrNoCgo.
func Inspect(spec string) (*Info, error) { return Load(spec) }

// Installed lists the discovered plugin files, each with ErrNoCgo.
func Installed() []Installation {
	var out []Installation
	for _, c := range Discover() {
		_, err := Load(c.Path)
		out = append(out, Installation{Candidate: c, Err: err})
	}
	return out
}
