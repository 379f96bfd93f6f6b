package mnist

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// idx is an IDX file of unsigned bytes: its dims, then body.
func idx(dims []uint32, body []byte) []byte {
	var b bytes.Buffer
	b.Write([]byte{0, 0, 8, byte(len(dims))})
	binary.Write(&b, binary.BigEndian, dims)
	b.Write(body)
	return b.Bytes()
}

func gz(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write(data)
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestLoadRejectsDamagedFiles: a data directory of damaged IDX files is
// an error naming the file and what is wrong, never a panic or an
// allocation sized by a header's count: a count of 2^32-1 images with two
// images of data, images of 30x30 pixels, fewer labels than images, a
// wrong magic, data past the count.
func TestLoadRejectsDamagedFiles(t *testing.T) {
	img := func(n uint32, rows, cols uint32, have int) []byte {
		return idx([]uint32{n, rows, cols}, make([]byte, have*int(rows*cols)))
	}
	lab := func(n uint32, have int) []byte { return idx([]uint32{n}, make([]byte, have)) }
	good := func() map[string][]byte {
		return map[string][]byte{
			trainImages: img(3, 28, 28, 3), trainLabels: lab(3, 3),
			testImages: img(2, 28, 28, 2), testLabels: lab(2, 2),
		}
	}
	for _, c := range []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"huge count", trainImages, img(1<<32-1, 28, 28, 2), "ends after 2 of the 4294967295 items"},
		{"30x30 images", trainImages, img(3, 30, 30, 3), "dims [30 30], want [28 28]"},
		{"fewer labels", testLabels, lab(1, 1), "2 images"},
		{"magic", trainLabels, append([]byte{0, 0, 8, 3}, lab(3, 3)[4:]...), "magic"},
		{"data after", testImages, img(2, 28, 28, 3), "data after the 2 items"},
		{"short header", trainLabels, []byte{0, 0, 8, 1, 0}, "dimensions"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files := good()
			files[c.file] = c.data
			for name, data := range files {
				if err := os.WriteFile(filepath.Join(dir, name), gz(t, data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("XLAJIT_MNIST_DIR", dir)
			train, test, err := Load()
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.file) {
				t.Fatalf("Load = %v, %v, %v; want an error naming %s and containing %q", train, test, err, c.file, c.want)
			}
		})
	}
	// The good files load.
	dir := t.TempDir()
	for name, data := range good() {
		os.WriteFile(filepath.Join(dir, name), gz(t, data), 0o644)
	}
	t.Setenv("XLAJIT_MNIST_DIR", dir)
	if train, test, err := Load(); err != nil || train.N != 3 || test.N != 2 || len(train.Images) != 3*Pixels || len(test.Labels) != 2 {
		t.Errorf("Load of good files = %+v, %+v, %v", train, test, err)
	}
}

// FuzzReadIDX: no input makes readIDX panic, and what it passes on is
// never more than the input holds.
func FuzzReadIDX(f *testing.F) {
	f.Add(idx([]uint32{1, 2, 2}, []byte{1, 2, 3, 4}), 2)
	f.Add(idx([]uint32{1<<32 - 1, 2, 2}, []byte{1, 2, 3, 4}), 2)
	f.Add(idx([]uint32{3}, []byte{7, 8, 9}), 0)
	f.Add([]byte{0, 0, 8, 3, 0, 0}, 2)
	f.Fuzz(func(t *testing.T, data []byte, rank int) {
		dims := []int64{2, 2}[:max(0, min(rank, 2))]
		total := 0
		_ = readIDX(bytes.NewReader(data), dims, func(b []byte) { total += len(b) })
		if total > len(data) {
			t.Fatalf("%d bytes passed on from %d of input", total, len(data))
		}
	})
}

// TestDatasetBadDims: image dims that do not hold one 28x28 image, or a
// count N past the set's slices, are an error naming them, not a panic
// (dims [2 28 28] made 30000 "images" for 60000 labels).
func TestDatasetBadDims(t *testing.T) {
	s := &Set{N: 2, Images: make([]float32, 2*Pixels), Labels: make([]int32, 2)}
	for _, dims := range [][]int64{{2, 28, 28}, {-1}, {392}, {0}} {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("Dataset(%v) panicked: %v", dims, p)
				}
			}()
			if _, err := s.Dataset(dims...); err == nil || !strings.Contains(err.Error(), "dims") {
				t.Errorf("Dataset(%v): err = %v", dims, err)
			}
		}()
	}
	if ds, err := s.Dataset(1, 28, 28); err != nil || ds.Len() != 2 {
		t.Errorf("Dataset(1, 28, 28) = %v, %v", ds, err)
	}
	big := &Set{N: 3, Images: make([]float32, 2*Pixels), Labels: make([]int32, 2)}
	if _, err := big.Dataset(); err == nil || !strings.Contains(err.Error(), "3") {
		t.Errorf("Dataset of N=3 with 2 images: err = %v", err)
	}
}
