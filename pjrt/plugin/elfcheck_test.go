package plugin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckELF(t *testing.T) {
	f := fakes(t)
	dir := t.TempDir()
	cases := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nope.so"), "no such file"},
		{"directory", dir, "is a directory"},
		{"empty", f.empty, "empty file"},
		{"not ELF", f.notELF, "not an ELF file"},
		{"truncated header", f.truncHeader, "truncated"},
		{"truncated half", f.truncHalf, "truncated"},
		{"truncated segments", f.truncSegments, "truncated: a loadable segment"},
		{"wrong architecture", f.wrongArch, "wrong architecture"},
		{"not a shared object", f.notShared, "not a shared object"},
		{"missing symbol", f.noSymbol, "does not export GetPjrtApi"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkELF(c.path)
			if err == nil {
				t.Fatalf("checkELF(%s) = nil, want an error containing %q", c.path, c.want)
			}
			var le *LoadError
			if !errors.As(err, &le) || le.Path != c.path {
				t.Errorf("error %v is not a *LoadError naming %s", err, c.path)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
				t.Errorf("checkELF(%s) = %q, want it to name the path and contain %q", c.path, err, c.want)
			}
		})
	}
	for _, ok := range []string{f.good, f.old, f.missingDep} {
		if err := checkELF(ok); err != nil {
			t.Errorf("checkELF(%s) = %v, want nil (a well-formed shared object exporting GetPjrtApi)", ok, err)
		}
	}
}

func TestCheckELFSpecialFile(t *testing.T) {
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip("no /dev/null")
	}
	if err := checkELF("/dev/null"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("checkELF(/dev/null) = %v, want 'not a regular file'", err)
	}
}
