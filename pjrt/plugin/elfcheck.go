package plugin

import (
	"debug/elf"
	"errors"
	"io"
	"os"
	"runtime"
)

// apiSymbol is the function every PJRT plugin exports.
const apiSymbol = "GetPjrtApi"

// hostMachine is the ELF machine and class of this process, or ok=false for
// architectures we do not know (then the check is skipped).
func hostMachine() (elf.Machine, elf.Class, bool) {
	switch runtime.GOARCH {
	case "amd64":
		return elf.EM_X86_64, elf.ELFCLASS64, true
	case "arm64":
		return elf.EM_AARCH64, elf.ELFCLASS64, true
	case "386":
		return elf.EM_386, elf.ELFCLASS32, true
	case "arm":
		return elf.EM_ARM, elf.ELFCLASS32, true
	case "ppc64le", "ppc64":
		return elf.EM_PPC64, elf.ELFCLASS64, true
	case "s390x":
		return elf.EM_S390, elf.ELFCLASS64, true
	case "riscv64":
		return elf.EM_RISCV, elf.ELFCLASS64, true
	}
	return 0, 0, false
}

// checkELF verifies, without loading it, that path is a shared object this
// process can dlopen and that it defines GetPjrtApi. dlopen of a truncated
// file can map pages past its end (SIGBUS on first touch) and dlopen of
// any shared object runs its initialisers, so junk must be refused here.
func checkELF(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return loadErr(path, "no such file")
		}
		return loadErr(path, "%v", err)
	}
	if fi.IsDir() {
		return loadErr(path, "is a directory, not a shared object")
	}
	if !fi.Mode().IsRegular() {
		return loadErr(path, "not a regular file (%v)", fi.Mode().Type())
	}
	if fi.Size() == 0 {
		return loadErr(path, "empty file, not a shared object")
	}
	fh, err := os.Open(path)
	if err != nil {
		return loadErr(path, "%v", err)
	}
	defer fh.Close()
	var magic [4]byte
	if n, _ := io.ReadFull(fh, magic[:]); n < 4 || string(magic[:]) != elf.ELFMAG {
		return loadErr(path, "not an ELF file (starts with %q)", magic[:n])
	}
	f, err := elf.NewFile(fh)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return loadErr(path, "truncated: its ELF headers run past the end of the file (%d bytes)", fi.Size())
		}
		return loadErr(path, "malformed ELF file: %v", err)
	}
	if m, c, ok := hostMachine(); ok && (f.Machine != m || f.Class != c) {
		return loadErr(path, "wrong architecture: built for %v (%v), this process is %s/%s", f.Machine, f.Class, runtime.GOOS, runtime.GOARCH)
	}
	if f.Type != elf.ET_DYN {
		return loadErr(path, "not a shared object (ELF type %v)", f.Type)
	}
	size := fi.Size()
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Off+p.Filesz > uint64(size) {
			return loadErr(path, "truncated: a loadable segment needs bytes %d..%d, the file has %d", p.Off, p.Off+p.Filesz, size)
		}
	}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOBITS && s.Type != elf.SHT_NULL && s.Offset+s.FileSize > uint64(size) {
			return loadErr(path, "truncated: section %s needs bytes %d..%d, the file has %d", s.Name, s.Offset, s.Offset+s.FileSize, size)
		}
	}
	if len(f.Sections) == 0 {
		// Section headers stripped: only dlsym can tell; that is checked
		// after dlopen.
		return nil
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		if errors.Is(err, elf.ErrNoSymbols) {
			return loadErr(path, "exports no dynamic symbols, so no %s: not a PJRT plugin", apiSymbol)
		}
		return loadErr(path, "reading the dynamic symbol table: %v", err)
	}
	for _, s := range syms {
		if s.Name != apiSymbol {
			continue
		}
		if s.Section == elf.SHN_UNDEF {
			return loadErr(path, "references %s but does not define it: not a PJRT plugin", apiSymbol)
		}
		if t := elf.ST_TYPE(s.Info); t != elf.STT_FUNC && t != elf.STT_GNU_IFUNC {
			return loadErr(path, "%s is not a function (symbol type %v): not a PJRT plugin", apiSymbol, t)
		}
		return nil
	}
	return loadErr(path, "does not export %s: not a PJRT plugin", apiSymbol)
}
