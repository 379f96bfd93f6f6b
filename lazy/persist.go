package lazy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/xlajit/xlajit/hlo"
)

// The persistent compile cache (XLAJIT_PERSISTENT_CACHE_PATH) keeps one file
// per graph hash: a header line
//
//	xlajit-cache v2 <hash> <sha256 of the body> <build revision> <signature>
//
// and the module's StableHLO text. An entry is used only when every header
// field equals the request, the checksum holds, the text parses, the
// module verifies and its entry function has the requested parameter and
// result types; it must be a regular file of at most maxPersistEntry
// bytes. Anything else is a warning and a recompile: the cache is a
// directory anyone may write to, never trusted to hold the right program.

const persistMagic = "xlajit-cache v2"

// maxPersistEntry caps the size of a persistent cache entry read back.
const maxPersistEntry = 256 << 20

func persistentDir() string { return os.Getenv("XLAJIT_PERSISTENT_CACHE_PATH") }

func persistentPath(dir string, h Hash) string { return filepath.Join(dir, h.String()+".mlir") }

// graphSignature is the parameter and result types a graph's module must
// have: "(f32[2,3],f32[3])->(f32[2])".
func graphSignature(g *Graph) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, p := range g.Params {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.out[0].String())
	}
	b.WriteString(")->(")
	for i, r := range g.Roots {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(r.Shape().String())
	}
	b.WriteByte(')')
	return b.String()
}

// moduleSignature is graphSignature read off a module's entry function:
// its parameters and its results but the run-time checks' flags (the last
// result, marked with checkAttr), which are no root of the graph.
func moduleSignature(m *hlo.Module) (string, error) {
	f := m.Entry()
	if f == nil {
		return "", fmt.Errorf("no entry function")
	}
	var b strings.Builder
	b.WriteByte('(')
	for i, a := range f.Args {
		if i > 0 {
			b.WriteByte(',')
		}
		tt, ok := a.Type.(*hlo.TensorType)
		if !ok {
			return "", fmt.Errorf("parameter %d is %s, not a tensor", i, a.Type)
		}
		b.WriteString(hlo.ShapeString(tt.DType, tt.Dims))
	}
	b.WriteString(")->(")
	results := f.ResultTypes
	if n := len(results); n > 0 && n <= len(f.ResultAttrs) && f.ResultAttrs[n-1] != nil && f.ResultAttrs[n-1].Get(checkAttr) != nil {
		results = results[:n-1]
	}
	for i, r := range results {
		if i > 0 {
			b.WriteByte(',')
		}
		tt, ok := r.(*hlo.TensorType)
		if !ok {
			return "", fmt.Errorf("result %d is %s, not a tensor", i, r)
		}
		b.WriteString(hlo.ShapeString(tt.DType, tt.Dims))
	}
	b.WriteByte(')')
	return b.String(), nil
}

// persistentLoad returns the entry for hash h if it is present and checks
// out against sig; a bad entry is a warning.
func persistentLoad(h Hash, sig string) (*hlo.Module, bool) {
	dir := persistentDir()
	if dir == "" {
		return nil, false
	}
	p := persistentPath(dir, h)
	m, err := readPersistent(p, h, sig)
	if err != nil {
		if !os.IsNotExist(err) {
			log.Printf("xlajit: warning: persistent cache entry %s: %v; recompiling", p, err)
		}
		return nil, false
	}
	return m, true
}

func readPersistent(p string, h Hash, sig string) (*hlo.Module, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	if fi.Size() > maxPersistEntry {
		return nil, fmt.Errorf("%d bytes, more than the %d an entry may have", fi.Size(), maxPersistEntry)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi2, err := f.Stat(); err != nil || !fi2.Mode().IsRegular() || !os.SameFile(fi, fi2) {
		return nil, fmt.Errorf("changed while being opened")
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxPersistEntry+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxPersistEntry {
		return nil, fmt.Errorf("grew past %d bytes while being read", maxPersistEntry)
	}
	body, err := checkEntry(raw, h, sig)
	if err != nil {
		return nil, err
	}
	m, err := hlo.ParseModule(p, body)
	if err != nil {
		return nil, fmt.Errorf("does not parse: %w", err)
	}
	if err := hlo.Verify(m); err != nil {
		return nil, fmt.Errorf("does not verify: %w", err)
	}
	got, err := moduleSignature(m)
	if err != nil {
		return nil, err
	}
	if got != sig {
		return nil, fmt.Errorf("its program has types %s, the graph needs %s", got, sig)
	}
	return m, nil
}

// checkEntry checks an entry's header against the request and its body
// against the checksum, returning the body.
func checkEntry(raw []byte, h Hash, sig string) ([]byte, error) {
	nl := bytes.IndexByte(raw, '\n')
	if nl < 0 {
		return nil, fmt.Errorf("truncated (no header line)")
	}
	f := strings.Fields(string(raw[:nl]))
	if len(f) != 6 || f[0]+" "+f[1] != persistMagic {
		return nil, fmt.Errorf("unknown header %.80q", raw[:nl])
	}
	body := raw[nl+1:]
	sum := sha256.Sum256(body)
	switch {
	case f[2] != h.String():
		return nil, fmt.Errorf("holds graph %s", f[2])
	case f[3] != hex.EncodeToString(sum[:]):
		return nil, fmt.Errorf("corrupt or truncated (checksum mismatch)")
	case f[4] != buildRevision:
		return nil, fmt.Errorf("written by lowering revision %s, this build is %s", f[4], buildRevision)
	case f[5] != sig:
		return nil, fmt.Errorf("is for types %s, the graph needs %s", f[5], sig)
	}
	return body, nil
}

func persistentStore(h Hash, sig string, m *hlo.Module) {
	dir := persistentDir()
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Printf("xlajit: warning: persistent cache: %v", err)
		return
	}
	body := []byte(m.String())
	sum := sha256.Sum256(body)
	data := append([]byte(fmt.Sprintf("%s %s %s %s %s\n", persistMagic, h, hex.EncodeToString(sum[:]), buildRevision, sig)), body...)
	p := persistentPath(dir, h)
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		log.Printf("xlajit: warning: persistent cache: %v", err)
		return
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		log.Printf("xlajit: warning: persistent cache: %v", err)
		return
	}
	tmp.Close()
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		log.Printf("xlajit: warning: persistent cache: %v", err)
	}
}
