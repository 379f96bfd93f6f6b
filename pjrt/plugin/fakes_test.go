package plugin

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// The broken and fake plugins are built with gcc from testdata/*.c once per
// test binary (a Go c-shared library cannot be loaded into a Go process).

var (
	fakeOnce sync.Once
	fakeDir  string
	fakeErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fakeDir != "" {
		os.RemoveAll(fakeDir)
	}
	os.Exit(code)
}

// fakeFlags passes the package's slot numbers to fake_plugin.c.
func fakeFlags() []string {
	var stubs []string
	for _, f := range needClient {
		if f.slot != slotClientCreate {
			stubs = append(stubs, fmt.Sprint(f.slot))
		}
	}
	return []string{
		"-DSTUB_SLOTS=" + strings.Join(stubs, ","),
		fmt.Sprintf("-DNSLOTS=%d", headerSlots),
		fmt.Sprintf("-DSLOT_ERROR_DESTROY=%d", slotErrorDestroy),
		fmt.Sprintf("-DSLOT_ERROR_MESSAGE=%d", slotErrorMessage),
		fmt.Sprintf("-DSLOT_ERROR_GETCODE=%d", slotErrorGetCode),
		fmt.Sprintf("-DSLOT_PLUGIN_INITIALIZE=%d", slotPluginInitialize),
		fmt.Sprintf("-DSLOT_PLUGIN_ATTRIBUTES=%d", slotPluginAttributes),
		fmt.Sprintf("-DSLOT_CLIENT_CREATE=%d", slotClientCreate),
	}
}

type fakeSet struct {
	dir string
	// Built shared objects.
	good, old, major1, shortTable, tiny, nullAPI, noSymbol, missingDep string
	noInit, noClient                                                   string // NULL functions
	// Damaged copies of good.
	notELF, empty, truncHeader, truncHalf, truncSegments, wrongArch, notShared string
}

func gcc(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found: the plugin loader tests build small shared objects with it")
	}
	return p
}

func fakes(t *testing.T) *fakeSet {
	t.Helper()
	cc := gcc(t)
	fakeOnce.Do(func() { fakeDir, fakeErr = buildFakes(cc) })
	if fakeErr != nil {
		t.Fatalf("building fake plugins: %v", fakeErr)
	}
	d := fakeDir
	p := func(n string) string { return filepath.Join(d, n) }
	return &fakeSet{
		dir: d, good: p("pjrt_c_api_fake_plugin.so"), old: p("old.so"), major1: p("major1.so"),
		shortTable: p("short_table.so"), tiny: p("tiny.so"), nullAPI: p("null_api.so"),
		noSymbol: p("no_symbol.so"), missingDep: p("missing_dep.so"),
		noInit: p("no_init.so"), noClient: p("no_client.so"),
		notELF: p("not_elf.so"), empty: p("empty.so"), truncHeader: p("trunc_header.so"),
		truncHalf: p("trunc_half.so"), truncSegments: p("trunc_segments.so"),
		wrongArch: p("wrong_arch.so"), notShared: p("not_shared.so"),
	}
}

func buildFakes(cc string) (string, error) {
	d, err := os.MkdirTemp("", "xlajit-fake-plugins-")
	if err != nil {
		return "", err
	}
	build := func(out, src string, flags ...string) error {
		args := append([]string{"-shared", "-fPIC", "-O1", "-o", filepath.Join(d, out), filepath.Join("testdata", src)}, flags...)
		if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("gcc %v: %v\n%s", args, err, b)
		}
		return nil
	}
	fake := fakeFlags()
	steps := []struct {
		out, src string
		flags    []string
	}{
		{"pjrt_c_api_fake_plugin.so", "fake_plugin.c", fake},
		{"old.so", "fake_plugin.c", append(fake, "-DFAKE_MINOR=40")},
		{"major1.so", "fake_plugin.c", append(fake, "-DFAKE_MAJOR=1", "-DFAKE_MINOR=0")},
		{"short_table.so", "fake_plugin.c", append(fake, fmt.Sprintf("-DFAKE_STRUCT_SIZE=%d", apiFirstSlot+40*ptrSize))},
		{"tiny.so", "fake_plugin.c", append(fake, "-DFAKE_STRUCT_SIZE=8")},
		{"null_api.so", "fake_plugin.c", append(fake, "-DFAKE_NULL_API")},
		{"no_init.so", "fake_plugin.c", append(fake, "-DFAKE_NO_INIT")},
		{"no_client.so", "fake_plugin.c", fake[1:]}, // without the client stubs
		{"no_symbol.so", "no_symbol.c", nil},
		{"libfakedep.so", "dep.c", nil},
		{"missing_dep.so", "uses_dep.c", []string{"-L" + d, "-lfakedep"}},
	}
	for _, s := range steps {
		if err := build(s.out, s.src, s.flags...); err != nil {
			return d, err
		}
	}
	// The dependency disappears: dlopen of missing_dep.so must fail.
	if err := os.Remove(filepath.Join(d, "libfakedep.so")); err != nil {
		return d, err
	}
	good, err := os.ReadFile(filepath.Join(d, "pjrt_c_api_fake_plugin.so"))
	if err != nil {
		return d, err
	}
	write := func(name string, b []byte) error { return os.WriteFile(filepath.Join(d, name), b, 0o755) }
	patched := func(off int, v uint16) []byte {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint16(b[off:], v)
		return b
	}
	// A file whose section header table is gone (so only the program
	// headers describe it) cut in half: its loadable segments run past EOF.
	noSections := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(noSections[0x28:], 0) // e_shoff
	binary.LittleEndian.PutUint16(noSections[0x3c:], 0) // e_shnum
	binary.LittleEndian.PutUint16(noSections[0x3e:], 0) // e_shstrndx
	other := uint16(183)                                // EM_AARCH64
	if runtime.GOARCH == "arm64" {
		other = 62 // EM_X86_64
	}
	for _, w := range []struct {
		name string
		b    []byte
	}{
		{"not_elf.so", []byte("this is a text file, not a shared object\n")},
		{"empty.so", nil},
		{"trunc_header.so", good[:30]},
		{"trunc_half.so", good[:len(good)/2]},
		{"trunc_segments.so", noSections[:len(noSections)/2]},
		{"wrong_arch.so", patched(18, other)}, // e_machine
		{"not_shared.so", patched(16, 2)},     // e_type = ET_EXEC
	} {
		if err := write(w.name, w.b); err != nil {
			return d, err
		}
	}
	return d, nil
}
