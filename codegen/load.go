package codegen

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

const (
	lazyPath = "github.com/xlajit/xlajit/lazy"
	jitPath  = "github.com/xlajit/xlajit/jit"
	// GenTag is the build tag under which the generated files are left out
	// and the tracing program is built.
	GenTag = "xlajit_gen"
)

// target is one function to trace.
type target struct {
	name    string       // Go name
	file    string       // absolute path of its source file
	pos     string       // directive position for messages (file:line)
	params  []string     // parameter names
	types   []types.Type // parameter types
	shapes  []string     // one per parameter: a shape or an example call ("" when the directive is bad)
	exprs   []bool       // shapes[i] is a Go call giving an example value
	results int          // tensor results
	hasErr  bool         // a final error result
	marked  bool         // has a directive (dump may trace unmarked functions)
	decl    *ast.FuncDecl
}

// wrapper is the generated typed wrapper's name.
func (t *target) wrapper() string { return t.name + "AOT" }

// varName is the generated *jit.AOT variable's name.
func (t *target) varName() string { return "xlajitAOT_" + t.name }

// pkgInfo is a loaded package and its marked functions.
type pkgInfo struct {
	pkg     *packages.Package
	dir     string
	targets []*target // marked functions with a valid signature, source order
	funcs   map[string]*ast.FuncDecl
}

// problems collects positioned errors.
type problems struct{ list []string }

func (p *problems) add(pos, format string, args ...any) {
	p.list = append(p.list, pos+": "+fmt.Sprintf(format, args...))
}

// err returns the problems sorted by file and line, or nil.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	sort.SliceStable(p.list, func(i, j int) bool {
		fi, li := splitPos(p.list[i])
		fj, lj := splitPos(p.list[j])
		if fi != fj {
			return fi < fj
		}
		return li < lj
	})
	return &Error{Problems: p.list}
}

// splitPos reads the "file:line: " prefix of a problem.
func splitPos(s string) (string, int) {
	file, _, _ := strings.Cut(s, ": ")
	if k := strings.LastIndexByte(file, ':'); k > 0 {
		if n, err := strconv.Atoi(file[k+1:]); err == nil {
			return file[:k], n
		}
	}
	return file, 0
}

// Error lists the problems found, one "file:line: message" each.
type Error struct{ Problems []string }

func (e *Error) Error() string { return strings.Join(e.Problems, "\n") }

func (c *Config) tags() string {
	return strings.Join(append([]string{GenTag}, c.Tags...), ",")
}

// load loads the packages of patterns with the generated files left out.
func (c *Config) load(ctx context.Context, patterns []string) ([]*packages.Package, error) {
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	pc := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedModule,
		Context:    ctx,
		Dir:        c.Dir,
		Env:        c.env(),
		BuildFlags: []string{"-tags=" + c.tags()},
	}
	pkgs, err := packages.Load(pc, patterns...)
	if err != nil {
		return nil, fmt.Errorf("xlajit gen: loading %s: %w", strings.Join(patterns, " "), err)
	}
	var ps problems
	for _, p := range pkgs {
		typeErrs := false
		for _, e := range p.Errors {
			typeErrs = typeErrs || e.Kind == packages.TypeError
		}
		for _, e := range p.Errors {
			// Type errors are left to the go command that builds the
			// tracing program: with the generated files left out, calls of
			// the wrappers do not type-check here. The compiler's report of
			// the same errors (go list -export) goes with them.
			compile := e.Kind == packages.ListError && strings.HasPrefix(e.Msg, "# "+p.PkgPath+"\n")
			if e.Kind != packages.TypeError && !(compile && typeErrs) {
				ps.add(c.rel(e.Pos), "%s", e.Msg)
			}
		}
		if p.Module != nil && !p.Module.Main {
			ps.add(p.PkgPath, "package is not in the main module (%s); generate in its own module", p.Module.Path)
		}
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("xlajit gen: no packages match %s", strings.Join(patterns, " "))
	}
	return pkgs, ps.err()
}

// rel shortens a "file:line[:col]" position to a path relative to the
// working directory when it lies below it.
func (c *Config) rel(pos string) string {
	if pos == "" || pos == "-" {
		return "xlajit gen"
	}
	base := c.Dir
	if base == "" {
		base = "."
	}
	abs, err := filepath.Abs(base)
	if err != nil {
		return pos
	}
	file, rest := pos, ""
	for i := 0; i < 2; i++ { // strip :line and :col
		if k := strings.LastIndexByte(file, ':'); k > 0 && isDigits(file[k+1:]) {
			file, rest = file[:k], file[k:]+rest
		}
	}
	if r, err := filepath.Rel(abs, file); err == nil && !strings.HasPrefix(r, "..") {
		return r + rest
	}
	return pos
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// position is file:line of p, as rel prints it.
func (c *Config) position(fset *token.FileSet, p token.Pos) string {
	pp := fset.Position(p)
	return c.rel(fmt.Sprintf("%s:%d", pp.Filename, pp.Line))
}

// scan finds the directives of a package and checks them and the
// signatures of the functions they mark.
func (c *Config) scan(p *packages.Package) (*pkgInfo, error) {
	info := &pkgInfo{pkg: p, funcs: map[string]*ast.FuncDecl{}}
	if len(p.GoFiles) > 0 {
		info.dir = filepath.Dir(p.GoFiles[0])
	} else if len(p.IgnoredFiles) > 0 {
		info.dir = filepath.Dir(p.IgnoredFiles[0])
	}
	var ps problems
	for _, f := range p.Syntax {
		attached := map[*ast.Comment]bool{}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if fd.Recv == nil {
				info.funcs[fd.Name.Name] = fd
			}
			if fd.Doc == nil {
				continue
			}
			var found []*ast.Comment
			for _, cm := range fd.Doc.List {
				if strings.HasPrefix(cm.Text, DirectivePrefix) {
					attached[cm] = true
					found = append(found, cm)
				}
			}
			if len(found) > 0 {
				if t := c.checkFunc(p, fd, found, &ps); t != nil {
					info.targets = append(info.targets, t)
				}
			}
		}
		for _, g := range f.Comments {
			for _, cm := range g.List {
				if strings.HasPrefix(cm.Text, DirectivePrefix) && !attached[cm] {
					ps.add(c.position(p.Fset, cm.Pos()), "%s is not attached to a function declaration (write it in the function's doc comment, directly above func)", directiveWord(cm.Text))
				}
			}
		}
	}
	sort.SliceStable(info.targets, func(i, j int) bool {
		a, b := info.targets[i], info.targets[j]
		if a.file != b.file {
			return a.file < b.file
		}
		return a.decl.Pos() < b.decl.Pos()
	})
	return info, ps.err()
}

func directiveWord(text string) string {
	if i := strings.IndexFunc(text, func(r rune) bool { return r == ' ' || r == '\t' }); i >= 0 {
		return text[:i]
	}
	return text
}

// checkFunc checks the directives of one function and its signature.
func (c *Config) checkFunc(p *packages.Package, fd *ast.FuncDecl, dirs []*ast.Comment, ps *problems) *target {
	name := fd.Name.Name
	pos := c.position(p.Fset, dirs[0].Pos())
	for _, d := range dirs {
		if w := directiveWord(d.Text); w != TraceDirective {
			ps.add(c.position(p.Fset, d.Pos()), "unknown directive %s (want %s NAME=DTYPE[D0,...] ...)", w, TraceDirective)
			return nil
		}
	}
	if len(dirs) > 1 {
		ps.add(c.position(p.Fset, dirs[1].Pos()), "%s has a second %s directive (one per function)", name, TraceDirective)
		return nil
	}
	t, msg := c.signature(p, fd)
	if msg != "" {
		ps.add(pos, "%s %s: %s", TraceDirective, name, msg)
		return nil
	}
	t.pos, t.marked = pos, true
	items, err := ParseShapes(strings.TrimPrefix(dirs[0].Text, TraceDirective))
	if err == nil {
		err = t.setItems(items)
	}
	if err != nil {
		ps.add(pos, "%s %s: %v", TraceDirective, name, err)
		return nil
	}
	for _, n := range []string{t.wrapper(), t.varName()} {
		if o := p.Types.Scope().Lookup(n); o != nil {
			ps.add(pos, "%s %s: the generated %s is already declared at %s; rename it", TraceDirective, name, n, c.position(p.Fset, o.Pos()))
			return nil
		}
	}
	return t
}

// signature checks fd's type: *lazy.Tensor parameters, *lazy.Tensor
// results optionally followed by an error. The message is empty when it
// fits.
func (c *Config) signature(p *packages.Package, fd *ast.FuncDecl) (*target, string) {
	if fd.Recv != nil {
		return nil, "methods cannot be traced ahead of time (trace a function that takes the receiver's tensors as parameters)"
	}
	if fd.Type.TypeParams != nil {
		return nil, "generic functions cannot be traced ahead of time"
	}
	obj, _ := p.TypesInfo.Defs[fd.Name].(*types.Func)
	if obj == nil {
		return nil, "no type information (does the package compile?)"
	}
	sig := obj.Type().(*types.Signature)
	t := &target{name: fd.Name.Name, file: p.Fset.Position(fd.Pos()).Filename, decl: fd}
	if sig.Variadic() {
		return nil, "variadic functions cannot be traced ahead of time"
	}
	for i := 0; i < sig.Params().Len(); i++ {
		v := sig.Params().At(i)
		if v.Name() == "" || v.Name() == "_" {
			return nil, fmt.Sprintf("parameter %d has no name (the directive gives shapes by parameter name)", i)
		}
		t.params = append(t.params, v.Name())
		t.types = append(t.types, v.Type())
	}
	errType := types.Universe.Lookup("error").Type()
	for i := 0; i < sig.Results().Len(); i++ {
		rt := sig.Results().At(i).Type()
		switch {
		case i == sig.Results().Len()-1 && types.Identical(rt, errType):
			t.hasErr = true
		case isTensorPtr(rt):
			t.results++
		default:
			return nil, fmt.Sprintf("result %d is %s; ahead-of-time traces return *lazy.Tensor values, optionally followed by an error", i, typeString(rt))
		}
	}
	return t, ""
}

// setItems takes the directive's items: a shape for each tensor parameter
// (or an example call), an example call for every other parameter.
func (t *target) setItems(items []ParamShape) error {
	ordered, err := matchParams(t.params, items)
	if err != nil {
		return err
	}
	t.shapes, t.exprs = make([]string, len(ordered)), make([]bool, len(ordered))
	for i, it := range ordered {
		if !it.Expr && !isTensorPtr(t.types[i]) {
			return fmt.Errorf("parameter %s is %s: give an example value instead of a shape (%s=newValue(), a call of this package)", t.params[i], typeString(t.types[i]), t.params[i])
		}
		t.shapes[i], t.exprs[i] = it.Shape, it.Expr
	}
	return nil
}

// values reports whether t has a parameter given by an example value (its
// wrapper then calls AOT.Call).
func (t *target) values() bool {
	for i, e := range t.exprs {
		if e || !isTensorPtr(t.types[i]) {
			return true
		}
	}
	return false
}

func paramLabel(v *types.Var, i int) string {
	if v.Name() != "" && v.Name() != "_" {
		return v.Name()
	}
	return fmt.Sprint(i)
}

func typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

func isTensorPtr(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == lazyPath && n.Obj().Name() == "Tensor"
}
