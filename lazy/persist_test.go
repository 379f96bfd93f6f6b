package lazy_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt/host"
)

// withFreshDevice runs fn with a new embedded device (an empty compile
// cache) as the default and returns what was logged meanwhile.
func withFreshDevice(t *testing.T, fn func()) string {
	t.Helper()
	old := lazy.DefaultDevice()
	lazy.SetDefaultDevice(lazy.DevicesOf(host.NewClient(1))[0])
	defer lazy.SetDefaultDevice(old)
	var buf bytes.Buffer
	log.SetOutput(&buf)
	defer log.SetOutput(os.Stderr)
	fn()
	return buf.String()
}

// TestPersistentCacheDistrustsEntries puts wrong things where a cache entry
// should be: each must give a warning and a recompile, never a wrong result,
// a hang or an exhausted memory.
func TestPersistentCacheDistrustsEntries(t *testing.T) {
	progA := func() []float32 { return lazy.FromSlice([]float32{1, 2}).MulScalar(3).Float32s() }
	progB := func() []float32 { return lazy.FromSlice([]float32{1, 2}).AddScalar(3).Float32s() }
	progC := func() []float32 { return lazy.FromSlice([]float32{1, 2, 3}).AddScalar(3).Float32s() }
	entryOf := func(dir string, prog func() []float32) string {
		before, _ := filepath.Glob(filepath.Join(dir, "*.mlir"))
		withFreshDevice(t, func() { prog() })
		after, _ := filepath.Glob(filepath.Join(dir, "*.mlir"))
		for _, a := range after {
			found := false
			for _, b := range before {
				found = found || a == b
			}
			if !found {
				return a
			}
		}
		t.Fatalf("no new cache entry in %s", dir)
		return ""
	}
	cases := []struct {
		name  string
		plant func(dir, b, a, c string) // b: the entry to replace; a, c: other programs' entries
		warn  string
	}{
		{"another graph's entry", func(dir, b, a, c string) { copyFile(t, a, b) }, "holds graph"},
		{"another graph's body under a forged header", func(dir, b, a, c string) {
			hdr, _ := firstLine(b)
			_, body := firstLine(a)
			os.WriteFile(b, append([]byte(hdr+"\n"), body...), 0o644)
		}, "checksum"},
		{"another signature's body with a matching header", func(dir, b, a, c string) {
			// The body of program C (3 elements) with B's hash and a
			// checksum that matches: the signature check catches it.
			hdrB, _ := firstLine(b)
			hdrC, bodyC := firstLine(c)
			f := strings.Fields(hdrB)
			fc := strings.Fields(hdrC)
			f[3] = fc[3]
			os.WriteFile(b, append([]byte(strings.Join(f, " ")+"\n"), bodyC...), 0o644)
		}, "types"},
		{"a symlink to /dev/zero", func(dir, b, a, c string) { os.Remove(b); os.Symlink("/dev/zero", b) }, "not a regular file"},
		{"a FIFO", func(dir, b, a, c string) { os.Remove(b); syscall.Mkfifo(b, 0o644) }, "not a regular file"},
		{"a directory", func(dir, b, a, c string) { os.Remove(b); os.Mkdir(b, 0o755) }, "not a regular file"},
		{"a huge file", func(dir, b, a, c string) {
			f, _ := os.OpenFile(b, os.O_WRONLY|os.O_TRUNC, 0o644)
			f.Truncate(1 << 40) // sparse
			f.Close()
		}, "more than"},
		{"an old revision", func(dir, b, a, c string) {
			raw, _ := os.ReadFile(b)
			hdr, body := firstLine(b)
			f := strings.Fields(hdr)
			f[4] = "xlajit-lowering-0"
			_ = raw
			os.WriteFile(b, append([]byte(strings.Join(f, " ")+"\n"), body...), 0o644)
		}, "revision"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("XLAJIT_PERSISTENT_CACHE_PATH", dir)
			a := entryOf(dir, progA)
			b := entryOf(dir, progB)
			cc := entryOf(dir, progC)
			c.plant(dir, b, a, cc)
			done := make(chan string, 1)
			var got []float32
			var uncached int64
			go func() {
				done <- withFreshDevice(t, func() {
					before := lazy.Counter(lazy.MetricUncachedCompile)
					got = progB()
					uncached = lazy.Counter(lazy.MetricUncachedCompile) - before
				})
			}()
			select {
			case logged := <-done:
				if fmt.Sprint(got) != "[4 5]" {
					t.Errorf("result %v, want [4 5]", got)
				}
				if uncached != 1 {
					t.Errorf("%d uncached compiles, want 1 (a recompile)", uncached)
				}
				if !strings.Contains(logged, "warning") || !strings.Contains(logged, c.warn) {
					t.Errorf("log does not warn with %q:\n%s", c.warn, logged)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("hung on the planted entry")
			}
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	raw, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(to, raw, 0o644)
}

func firstLine(p string) (string, []byte) {
	raw, _ := os.ReadFile(p)
	i := bytes.IndexByte(raw, '\n')
	return string(raw[:i]), raw[i+1:]
}

// A graph with run-time checks (integer Rem checks for a zero divisor)
// is served by the persistent cache like any other: its module's extra
// result, the checks' flags, is no root of the graph's signature.
func TestPersistentCacheServesCheckedGraphs(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XLAJIT_PERSISTENT_CACHE_PATH", dir)
	prog := func() []int32 {
		return lazy.FromSlice([]int32{7, -7, 9}).Rem(lazy.FromSlice([]int32{3, 3, 4})).Int32s()
	}
	var first []int32
	withFreshDevice(t, func() { first = prog() })
	hits := lazy.Counter("PersistentCacheHit")
	var second []int32
	logged := withFreshDevice(t, func() { second = prog() })
	if strings.Contains(logged, "warning") {
		t.Errorf("the entry this build wrote was refused:\n%s", logged)
	}
	if lazy.Counter("PersistentCacheHit") != hits+1 {
		t.Errorf("the second device did not read the persistent cache")
	}
	if fmt.Sprint(first) != fmt.Sprint(second) || fmt.Sprint(first) != "[1 -1 1]" {
		t.Errorf("results %v and %v, want [1 -1 1]", first, second)
	}
}

// With XLAJIT_DEBUG=2, an entry read from the persistent cache is
// compared with the graph's own lowering: a program that is not the
// graph's (a lowering changed without its build revision) is a collision
// error, not a wrong answer. Run in a child process (XLAJIT_DEBUG is read
// once).
func TestDebug2ComparesPersistentHits(t *testing.T) {
	prog := func() ([]float32, error) {
		var got []float32
		err := lazy.Try(func() { got = lazy.FromSlice([]float32{1, 2}).Exp().Float32s() })
		return got, err
	}
	if os.Getenv("XLAJIT_TEST_CHILD") == "1" {
		got, err := prog()
		fmt.Printf("result %v error %v\n", got, err)
		return
	}
	dir := t.TempDir()
	t.Setenv("XLAJIT_PERSISTENT_CACHE_PATH", dir)
	withFreshDevice(t, func() { prog() })
	ents, _ := filepath.Glob(filepath.Join(dir, "*.mlir"))
	if len(ents) != 1 {
		t.Fatalf("cache entries %v", ents)
	}
	// Another program under the graph's hash, with a consistent checksum.
	hdr, body := firstLine(ents[0])
	body = bytes.Replace(body, []byte("stablehlo.exponential"), []byte("stablehlo.negate"), 1)
	sum := sha256.Sum256(body)
	f := strings.Fields(hdr)
	f[3] = hex.EncodeToString(sum[:])
	if err := os.WriteFile(ents[0], append([]byte(strings.Join(f, " ")+"\n"), body...), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestDebug2ComparesPersistentHits$", "-test.count=1")
	cmd.Env = append(os.Environ(), "XLAJIT_TEST_CHILD=1", "XLAJIT_DEBUG=2")
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "collision") || strings.Contains(string(out), "result [-1 -2]") {
		t.Errorf("XLAJIT_DEBUG=2 ran a persistent entry that is not the graph's program:\n%s", out)
	}
}
