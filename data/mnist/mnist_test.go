package mnist

import (
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
