package codegen

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/xlajit/xlajit/codegen/gentrace"
	"github.com/xlajit/xlajit/internal/atomicfile"
)

// Config says where and how packages are loaded and traced.
type Config struct {
	Dir  string   // directory the patterns are resolved in ("" = the current one)
	Env  []string // environment of the go command (nil = this process's)
	Tags []string // build tags added to xlajit_gen when loading and tracing
}

func (c *Config) env() []string {
	if c.Env != nil {
		// Clipped: callers append to it, and runs sharing a Config's
		// Env (two at once) must not write into one backing array.
		return slices.Clip(c.Env)
	}
	return os.Environ()
}

// File is one generated file.
type File struct {
	Path string // absolute
	Data []byte
}

// Output is the result of a generation: the files to write and the
// generated files whose sources no longer mark any function.
type Output struct {
	Files  []File
	Remove []string
}

// Generate loads the packages matching patterns (default "."), checks
// their //xlajit:trace directives and the marked signatures, traces each
// marked function on placeholders of its shapes and returns the generated
// files (one zz_xlajit_<file>.go per source file with directives). Nothing
// is written. Every problem is reported, as *Error when it is in the
// user's code.
func Generate(ctx context.Context, cfg Config, patterns ...string) (*Output, error) {
	pkgs, err := cfg.load(ctx, patterns)
	if err != nil {
		return nil, err
	}
	out := &Output{}
	var ps problems
	for _, p := range pkgs {
		info, err := cfg.scan(p)
		if e, ok := err.(*Error); ok {
			ps.list = append(ps.list, e.Problems...)
			continue
		}
		if info.dir == "" {
			continue
		}
		wanted := map[string]bool{}
		if len(info.targets) > 0 {
			files, err := cfg.generatePkg(ctx, info, &ps)
			if err != nil {
				return nil, err
			}
			for _, f := range files {
				wanted[f.Path] = true
				out.Files = append(out.Files, f)
			}
		}
		old, err := generatedFiles(info.dir)
		if err != nil {
			return nil, err
		}
		for _, o := range old {
			if !wanted[o] {
				out.Remove = append(out.Remove, o)
			}
		}
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Path < out.Files[j].Path })
	sort.Strings(out.Remove)
	return out, nil
}

func (c *Config) generatePkg(ctx context.Context, info *pkgInfo, ps *problems) ([]File, error) {
	res, err := c.trace(ctx, info, info.targets)
	if err != nil {
		return nil, err
	}
	failed := false
	for i, r := range res {
		if r.Err != "" {
			ps.add(info.targets[i].pos, "%s %s: %s", TraceDirective, r.Name, r.Err)
			failed = true
		}
	}
	if failed {
		return nil, nil
	}
	bySrc := map[string][]int{}
	var srcs []string
	for i, t := range info.targets {
		if bySrc[t.file] == nil {
			srcs = append(srcs, t.file)
		}
		bySrc[t.file] = append(bySrc[t.file], i)
	}
	var files []File
	for _, src := range srcs {
		var ts []*target
		var rs []gentrace.Result
		for _, i := range bySrc[src] {
			ts, rs = append(ts, info.targets[i]), append(rs, res[i])
		}
		data, err := emit(info, ts, rs)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: GeneratedName(src), Data: data})
	}
	return files, nil
}

// generatedFiles lists the files in dir that xlajit gen wrote.
func generatedFiles(dir string) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "zz_xlajit_*.go"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		if bytes.HasPrefix(data, []byte(Header+"\n")) {
			out = append(out, n)
		}
	}
	return out, nil
}

// Write writes the generated files (only those whose contents changed),
// each whole or not at all, and removes the obsolete ones.
func (o *Output) Write() error {
	for _, f := range o.Files {
		if old, err := os.ReadFile(f.Path); err == nil && bytes.Equal(old, f.Data) {
			continue
		}
		// Whole or not at all: an interrupted go generate leaves the old
		// file, never half a Go file.
		err := atomicfile.Write(f.Path, func(w io.Writer) error { _, err := w.Write(f.Data); return err })
		if err != nil {
			return err
		}
	}
	for _, r := range o.Remove {
		if err := os.Remove(r); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// Stale lists the files on disk that differ from the output: generated
// files that are missing or have other contents, and obsolete ones.
func (o *Output) Stale() []string {
	var out []string
	for _, f := range o.Files {
		if old, err := os.ReadFile(f.Path); err != nil || !bytes.Equal(old, f.Data) {
			out = append(out, f.Path)
		}
	}
	for _, r := range o.Remove {
		if _, err := os.Stat(r); err == nil {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

// Dump traces one function of the package matching pattern with the
// shapes given in the directive's form ("x=f32[2,3] w=f32[3,4]"), or, when
// shapes is empty, those of its //xlajit:trace directive. The function
// need not be marked. The result carries every dump format.
func Dump(ctx context.Context, cfg Config, pattern, fn, shapes string) (*gentrace.Result, error) {
	pkgs, err := cfg.load(ctx, []string{pattern})
	if err != nil {
		return nil, err
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("xlajit dump: %s matches %d packages; name one", pattern, len(pkgs))
	}
	info, err := cfg.scan(pkgs[0])
	if err != nil {
		return nil, err
	}
	var t *target
	for _, m := range info.targets {
		if m.name == fn {
			t = m
		}
	}
	if shapes != "" || t == nil {
		fd := info.funcs[fn]
		if fd == nil {
			return nil, fmt.Errorf("xlajit dump: package %s has no function %s", pkgs[0].PkgPath, fn)
		}
		pos := cfg.position(pkgs[0].Fset, fd.Pos())
		nt, msg := cfg.signature(pkgs[0], fd)
		if msg != "" {
			return nil, fmt.Errorf("%s: %s: %s", pos, fn, msg)
		}
		if shapes == "" {
			return nil, fmt.Errorf("%s: %s has no %s directive; give its shapes with -shapes 'NAME=DTYPE[D0,...] ...'", pos, fn, TraceDirective)
		}
		items, err := ParseShapes(shapes)
		if err == nil {
			err = nt.setItems(items)
		}
		if err != nil {
			return nil, fmt.Errorf("-shapes of %s: %w", fn, err)
		}
		nt.pos = pos
		t = nt
	}
	res, err := cfg.trace(ctx, info, []*target{t})
	if err != nil {
		return nil, err
	}
	if res[0].Err != "" {
		return nil, fmt.Errorf("%s: %s", t.pos, res[0].Err)
	}
	return &res[0], nil
}

// Format returns one dump format of a traced function: "fx" (the fx graph
// with call sites), "ir" (the lazy IR of its device graph), "hlo"
// (StableHLO) or "dot" (Graphviz of the lazy IR).
// A nil r only checks the format's name.
func Format(r *gentrace.Result, format string) (string, error) {
	if r == nil {
		r = &gentrace.Result{}
	}
	switch strings.ToLower(format) {
	case "fx":
		return r.GraphSite, nil
	case "ir":
		return r.IR, nil
	case "hlo":
		return r.HLO, nil
	case "dot":
		return r.DOT, nil
	}
	return "", fmt.Errorf("unknown format %q (want fx, ir, hlo or dot)", format)
}
