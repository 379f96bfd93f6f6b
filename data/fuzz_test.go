package data

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpenRecords checks that no header and body make OpenRecords, a
// loader made on what it accepts, or a batch of the first and last
// examples panic; the file's size bounds what a batch allocates, so an
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
		l, err := NewLoader(r, LoaderConfig{BatchSize: 2, Pad: true})
		if err != nil || r.Len() == 0 {
			return
		}
		if _, err := l.Batch([]int{0, r.Len() - 1}); err != nil {
			t.Logf("batch: %v", err)
		}
	})
}
