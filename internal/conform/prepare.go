package conform

import (
	"errors"
	"fmt"

	"github.com/xlajit/xlajit/hlo"
)

// prepError is why a case could not be made ready to compile.
type prepError struct {
	kind Kind
	op   string
	err  error
}

func (e *prepError) Error() string { return e.err.Error() }

// prepared is a case ready to compile.
type prepared struct {
	m     *hlo.Module
	entry *hlo.Func // nil when the module has no entry
	// The entry's argument and result types as written, before scalars
	// became rank-0 tensors (IREE's tools read and print scalars apart).
	args, results []hlo.Type
}

// prepare parses a case's text and returns the module to compile and its
// entry. With fn set, the function fn is the entry: the module keeps fn
// (renamed @main, which every device takes as its entry) and the functions
// it refers to. IREE's test helpers are lowered to StableHLO (lower.go).
func prepare(j job, fn string) (*prepared, error) {
	m, err := parseFunc(j.name, j.text, j.line, fn)
	if err != nil {
		return nil, &prepError{kind: KindParse, err: err}
	}
	p := &prepared{m: m}
	if len(m.Funcs) == 0 {
		return p, nil
	}
	if fn != "" {
		p.entry = m.Func(fn)
		if p.entry == nil {
			return nil, &prepError{kind: KindEntry, err: fmt.Errorf("no function @%s", fn)}
		}
		makeEntry(m, p.entry)
	} else {
		p.entry = m.Entry()
	}
	if p.entry != nil {
		p.args = p.entry.ArgTypes()
		p.results = append([]hlo.Type(nil), p.entry.ResultTypes...)
	}
	if err := lowerTestHelpers(m); err != nil {
		var le *lowerError
		if errors.As(err, &le) {
			return nil, &prepError{kind: KindCompile, op: le.op.Name, err: err}
		}
		return nil, &prepError{kind: KindCompile, err: err}
	}
	return p, nil
}

// parseFunc parses text; when it does not parse and fn is set, the
// functions that do not parse on their own are blanked out, so that fn
// still runs when its own text and what it calls parse. The error is then
// fn's own parse error, if it has one.
func parseFunc(name, text string, line int, fn string) (*hlo.Module, error) {
	m, err := parseChunk(name, text, line)
	if err == nil || fn == "" {
		return m, err
	}
	items := funcItems(text)
	good := text
	for k, it := range items {
		alone := text
		for i, other := range items {
			if i != k {
				alone = blank(alone, other.start, other.end)
			}
		}
		if _, ferr := parseChunk(name, alone, line); ferr != nil {
			if it.name == fn {
				return nil, ferr
			}
			good = blank(good, it.start, it.end)
		}
	}
	if m, gerr := parseChunk(name, good, line); gerr == nil {
		return m, nil
	}
	return nil, err
}

// makeEntry makes f the module's entry: it is renamed @main (calls to it
// follow) and only the functions reachable from it are kept.
func makeEntry(m *hlo.Module, f *hlo.Func) {
	old := f.Name
	for _, g := range m.Funcs {
		if g.Body == nil {
			continue
		}
		g.Body.Walk(func(op *hlo.Op) bool {
			for i, a := range op.Attrs {
				if s, ok := a.Value.(hlo.SymbolRefAttr); ok && s.Name == old && len(s.Nested) == 0 {
					op.Attrs[i].Value = hlo.SymbolRefAttr{Name: "main"}
				}
			}
			return true
		})
	}
	f.Name = "main"
	reach := map[string]bool{"main": true}
	todo := []*hlo.Func{f}
	for len(todo) > 0 {
		g := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if g.Body == nil {
			continue
		}
		g.Body.Walk(func(op *hlo.Op) bool {
			for _, a := range op.Attrs {
				for _, s := range symbolRefs(a.Value) {
					if !reach[s] {
						reach[s] = true
						if h := m.Func(s); h != nil {
							todo = append(todo, h)
						}
					}
				}
			}
			return true
		})
	}
	keep := m.Funcs[:0]
	for _, g := range m.Funcs {
		if reach[g.Name] {
			keep = append(keep, g)
		}
	}
	m.Funcs = keep
}

// symbolRefs lists the symbols an attribute refers to (through arrays and
// dictionaries).
func symbolRefs(a hlo.Attr) []string {
	switch v := a.(type) {
	case hlo.SymbolRefAttr:
		return []string{v.Name}
	case *hlo.SymbolRefAttr:
		return []string{v.Name}
	case hlo.ArrayAttr:
		var out []string
		for _, e := range v {
			out = append(out, symbolRefs(e)...)
		}
		return out
	case hlo.DictAttr:
		var out []string
		for _, e := range v {
			out = append(out, symbolRefs(e.Value)...)
		}
		return out
	}
	return nil
}
