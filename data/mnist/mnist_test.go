package mnist

import (
	"fmt"
	"strings"
	"testing"
)

func TestLoadAsDataset(t *testing.T) {
	train, test, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if train.N != 60000 || test.N != 10000 {
		t.Fatalf("%d training and %d test images", train.N, test.N)
	}
	ds, err := train.Dataset(1, 28, 28)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 60000 || len(ds.Specs()) != 2 || ds.Specs()[0].String() != "image f32[1,28,28]" || ds.Specs()[1].String() != "label i32[]" {
		t.Fatalf("dataset %d %v", ds.Len(), ds.Specs())
	}
	img, lab := make([]float32, Pixels), make([]int32, 1)
	if err := ds.Read(0, []any{img, lab}); err != nil {
		t.Fatal(err)
	}
	lo, hi := img[0], img[0]
	for _, p := range img {
		lo, hi = min(lo, p), max(hi, p)
	}
	if lab[0] != train.Labels[0] || lab[0] < 0 || lab[0] > 9 || lo != 0 || hi != 1 {
		t.Errorf("label %d, pixels in [%g, %g]", lab[0], lo, hi)
	}
}

// Batch names the arguments it cannot serve in its panic, before copying
// anything.
func TestBatchRefusesBadArguments(t *testing.T) {
	s := &Set{N: 2, Images: make([]float32, 2*Pixels), Labels: []int32{3, 4}}
	empty := &Set{}
	for _, c := range []struct {
		what string
		call func()
		want string
	}{
		{"negative from", func() { s.Batch(-1, 1, make([]float32, Pixels), make([]int32, 1)) }, "negative"},
		{"empty set", func() { empty.Batch(0, 1, make([]float32, Pixels), make([]int32, 1)) }, "empty set"},
		{"short images", func() { s.Batch(0, 2, make([]float32, Pixels), make([]int32, 2)) }, "want 1568 and 2"},
		{"short labels", func() { s.Batch(0, 2, make([]float32, 2*Pixels), make([]int32, 1)) }, "want 1568 and 2"},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), c.want) {
					t.Errorf("%s: panic %v, want one containing %q", c.what, r, c.want)
				}
			}()
			c.call()
		}()
	}
	labels := make([]int32, 3)
	s.Batch(1, 3, make([]float32, 3*Pixels), labels)
	if labels[0] != 4 || labels[1] != 3 || labels[2] != 4 {
		t.Errorf("labels %v, want [4 3 4] (wrapping around)", labels)
	}
}
