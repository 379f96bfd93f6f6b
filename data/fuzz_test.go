package data

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/xlajit/xlajit/lazy"
)

// FuzzOpenRecords checks that no header and body make OpenRecords, a
// loader made on what it accepts, or a batch of the first and last
// examples panic, and that a Read that fails writes no destination; the file's size bounds what a batch allocates, so an
// accepted header never asks for more memory than the file holds.
func FuzzOpenRecords(f *testing.F) {
	f.Add(`{"n":2,"fields":[{"name":"x","dtype":"f32","dims":[3]},{"name":"y","dtype":"i32","dims":[]}]}`, make([]byte, 32))
	f.Add(`{"n":2,"fields":[{"name":"x","dtype":"ui8","dims":[2147483648,2147483648,2]}]}`, []byte{})
	f.Add(`{"n":1,"fields":[{"name":"b","dtype":"i1","dims":[2]}]}`, []byte{1, 2})
	f.Add(`{"n":4,"fields":[{"name":"x","dtype":"ui8","dims":[0]}]}`, []byte{})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		p := filepath.Join(dir, "f.rec")
		if err := os.WriteFile(p, append([]byte(recordsMagic+header+"\n"), body...), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := OpenRecords(p)
		if err != nil {
			return
		}
		defer r.Close()
		_ = specsString(r.Specs())
		// A failed Read writes no destination: each starts as 0x5a
		// bytes (0 and 1 for bools) and must be so after an error.
		if r.Len() > 0 && r.record <= 1<<20 {
			dst := make([]any, len(r.Specs()))
			for k, s := range r.Specs() {
				d, err := newSlice(s.DType, s.size())
				if err != nil {
					return
				}
				dst[k] = d
				fillPattern(rawBytes(d), s.DType)
			}
			if err := r.Read(r.Len()-1, dst); err != nil {
				for k, s := range r.Specs() {
					want := make([]byte, len(rawBytes(dst[k])))
					fillPattern(want, s.DType)
					if !bytes.Equal(rawBytes(dst[k]), want) {
						t.Fatalf("Read failed (%v) but wrote field %q", err, s.Name)
					}
				}
			}
		}
		l, err := NewLoader(r, LoaderConfig{BatchSize: 2, Pad: true})
		if err != nil || r.Len() == 0 {
			return
		}
		if _, err := l.Batch([]int{0, r.Len() - 1}); err != nil {
			t.Logf("batch: %v", err)
		}
	})
}

// fillPattern fills a destination's bytes with a pattern valid for dt.
func fillPattern(b []byte, dt lazy.DType) {
	for i := range b {
		b[i] = 0x5a
		if dt == lazy.Bool {
			b[i] = byte(i % 2)
		}
	}
}
