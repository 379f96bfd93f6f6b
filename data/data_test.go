package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

func sampleMemory(t *testing.T, n int) *Memory {
	t.Helper()
	xs := make([]float32, n*3)
	ys := make([]int32, n)
	for i := range n {
		for j := 0; j < 3; j++ {
			xs[i*3+j] = float32(i*10 + j)
		}
		ys[i] = int32(i)
	}
	m, err := NewMemory(Column("x", xs, 3), Column("y", ys))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMemoryChecksColumns(t *testing.T) {
	if _, err := NewMemory(Column("x", make([]float32, 10), 3)); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("10 values in rows of 3: err %v", err)
	}
	if _, err := NewMemory(Column("x", make([]float32, 9), 3), Column("y", make([]int32, 4))); err == nil || !strings.Contains(err.Error(), "3") {
		t.Errorf("3 vs 4 examples: err %v", err)
	}
	m := sampleMemory(t, 4)
	if err := m.Read(4, []any{make([]float32, 3), make([]int32, 1)}); err == nil {
		t.Error("reading past the end did not fail")
	}
	if err := m.Read(0, []any{make([]float64, 3), make([]int32, 1)}); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("wrong destination type: err %v", err)
	}
}

// TestLoaderBatches checks every mode: each example appears exactly once
// per epoch, shuffling is a function of (seed, epoch), the last partial
// batch is dropped, padded with a mask, or short.
func TestLoaderBatches(t *testing.T) {
	m := sampleMemory(t, 10)
	collect := func(cfg LoaderConfig, epoch int) (ids []int32, sizes []int, rows []int64, masks [][]bool) {
		l, err := NewLoader(m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for b, err := range l.Epoch(epoch) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			ys := b.Tensors[1].Int64s()
			xs := b.Tensors[0].Float32s()
			for r := 0; r < b.Size; r++ {
				ids = append(ids, int32(ys[r]))
				if xs[r*3+2] != float32(ys[r]*10+2) {
					t.Fatalf("row %d: x %v does not belong to y %d", r, xs[r*3:r*3+3], ys[r])
				}
			}
			sizes = append(sizes, b.Size)
			rows = append(rows, b.Tensors[0].Dim(0))
			if b.Mask != nil {
				masks = append(masks, b.Mask.Bools())
			}
		}
		if n != l.Len() {
			t.Errorf("%d batches, Len says %d", n, l.Len())
		}
		return
	}
	ids, sizes, rows, _ := collect(LoaderConfig{BatchSize: 4}, 0)
	if !slices.Equal(ids, []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) || !slices.Equal(sizes, []int{4, 4, 2}) || !slices.Equal(rows, []int64{4, 4, 2}) {
		t.Errorf("in order: ids %v sizes %v rows %v", ids, sizes, rows)
	}
	ids, sizes, _, _ = collect(LoaderConfig{BatchSize: 4, DropLast: true, Shuffle: true, Seed: 3}, 0)
	if len(ids) != 8 || !slices.Equal(sizes, []int{4, 4}) {
		t.Errorf("drop last: ids %v sizes %v", ids, sizes)
	}
	ids, sizes, rows, masks := collect(LoaderConfig{BatchSize: 4, Pad: true, Shuffle: true, Seed: 3}, 0)
	if !slices.Equal(rows, []int64{4, 4, 4}) || !slices.Equal(sizes, []int{4, 4, 2}) ||
		!slices.Equal(masks[2], []bool{true, true, false, false}) || !slices.Equal(masks[0], []bool{true, true, true, true}) {
		t.Errorf("pad: sizes %v rows %v masks %v", sizes, rows, masks)
	}
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	if !slices.Equal(sorted, []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) || slices.IsSorted(ids) {
		t.Errorf("shuffled epoch is not a permutation: %v", ids)
	}
	again, _, _, _ := collect(LoaderConfig{BatchSize: 4, Pad: true, Shuffle: true, Seed: 3}, 0)
	other, _, _, _ := collect(LoaderConfig{BatchSize: 4, Pad: true, Shuffle: true, Seed: 3}, 1)
	if !slices.Equal(ids, again) || slices.Equal(ids, other) {
		t.Errorf("shuffle must depend on seed and epoch only: %v, %v, epoch 1 %v", ids, again, other)
	}
	for _, bad := range []LoaderConfig{{}, {BatchSize: 2, Pad: true, DropLast: true}, {BatchSize: 2, Prefetch: -1}} {
		if _, err := NewLoader(m, bad); err == nil {
			t.Errorf("config %+v accepted", bad)
		}
	}
}

// slowSet counts reads and takes a while per example.
type slowSet struct {
	*Memory
	reads chan int
}

func (s *slowSet) Read(i int, dst []any) error {
	s.reads <- i
	return s.Memory.Read(i, dst)
}

// TestLoaderPrefetchesAndStops checks that the next batches are read
// before the consumer asks for them, and that leaving the loop early ends
// the reading goroutine.
func TestLoaderPrefetchesAndStops(t *testing.T) {
	s := &slowSet{Memory: sampleMemory(t, 40), reads: make(chan int, 100)}
	l, err := NewLoader(s, LoaderConfig{BatchSize: 2, Prefetch: 3})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	for b, err := range l.Epoch(0) {
		if err != nil {
			t.Fatal(err)
		}
		_ = b
		// While the consumer holds batch 0, the loader reads ahead.
		deadline := time.Now().Add(5 * time.Second)
		for len(s.reads) < 8 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if len(s.reads) < 8 {
			t.Errorf("only %d examples read while the first batch was in use; want prefetching", len(s.reads))
		}
		break
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines after leaving the loop, %d before", g, before)
	}
	if n := len(s.reads); n > 2*(1+3+1) {
		t.Errorf("%d examples read after an early stop; the reader did not stop", n)
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	m := sampleMemory(t, 7)
	path := filepath.Join(t.TempDir(), "set.rec")
	if err := WriteRecords(path, m); err != nil {
		t.Fatal(err)
	}
	r, err := OpenRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Len() != 7 || specsString(r.Specs()) != "[x f32[3] y i32[]]" {
		t.Fatalf("len %d specs %s", r.Len(), specsString(r.Specs()))
	}
	for i := 0; i < 7; i++ {
		a := []any{make([]float32, 3), make([]int32, 1)}
		b := []any{make([]float32, 3), make([]int32, 1)}
		if err := m.Read(i, a); err != nil {
			t.Fatal(err)
		}
		if err := r.Read(i, b); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a[0].([]float32), b[0].([]float32)) || a[1].([]int32)[0] != b[1].([]int32)[0] {
			t.Fatalf("example %d: memory %v, file %v", i, a, b)
		}
	}
	// A truncated file and a foreign file are errors naming the problem.
	body, _ := os.ReadFile(path)
	os.WriteFile(path, body[:len(body)-1], 0o644)
	if _, err := OpenRecords(path); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("truncated: %v", err)
	}
	os.WriteFile(path, []byte("hello"), 0o644)
	if _, err := OpenRecords(path); err == nil || !strings.Contains(err.Error(), "not a record file") {
		t.Errorf("foreign file: %v", err)
	}
}

func TestText(t *testing.T) {
	tx, err := NewText("abcabd", 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if tx.Vocab.Size() != 4 || tx.Len() != 4 {
		t.Fatalf("vocab %d windows %d", tx.Vocab.Size(), tx.Len())
	}
	x, y := make([]int32, 2), make([]int32, 2)
	if err := tx.Read(3, []any{x, y}); err != nil {
		t.Fatal(err)
	}
	if got := tx.Vocab.Decode([]int64{int64(x[0]), int64(x[1])}) + "|" + tx.Vocab.Decode([]int64{int64(y[0]), int64(y[1])}); got != "ab|bd" {
		t.Errorf("window 3 = %q, want ab|bd", got)
	}
	if _, err := tx.Vocab.Encode("abz"); err == nil || !strings.Contains(err.Error(), `'z'`) {
		t.Errorf("unknown character: %v", err)
	}
	if _, err := NewText("ab", 2, 1); err == nil {
		t.Error("too short a text was accepted")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("skip"), 0o644)
	s, err := ReadTextFiles(dir, "*.go", 0)
	if err != nil || s != "package a\n" {
		t.Errorf("ReadTextFiles = %q, %v", s, err)
	}
	if _, err := ReadTextFiles(dir, "*.c", 0); err == nil {
		t.Error("no match was not an error")
	}
}

func TestBucket(t *testing.T) {
	b := []int{8, 16, 32}
	for n, want := range map[int]int{1: 8, 8: 8, 9: 16, 32: 32, 33: 64, 70: 96} {
		if got := Bucket(n, b); got != want {
			t.Errorf("Bucket(%d) = %d, want %d", n, got, want)
		}
	}
	toks, mask, err := PadSequences([][]int32{{1, 2, 3}, {4}}, []int{4, 8}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(toks.Dims(), []int64{2, 4}) || !slices.Equal(toks.Int64s(), []int64{1, 2, 3, 0, 4, 0, 0, 0}) ||
		!slices.Equal(mask.Bools(), []bool{true, true, true, false, true, false, false, false}) {
		t.Errorf("tokens %v mask %v", toks.Int64s(), mask.Bools())
	}
}

func TestProgressShowsThroughput(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, 5, "train", "img")
	for range 5 {
		p.Add(1)
	}
	p.Finish()
	out := buf.String()
	if !strings.Contains(out, "5/5") || !strings.Contains(out, "img/s") || !strings.Contains(out, "train") {
		t.Errorf("progress output %q lacks the count, the throughput or the label", out)
	}
}

// TestRecordsRejectOverflowingHeaders checks that OpenRecords refuses a
// header whose sizes overflow int64 instead of letting them wrap: an
// element count per field, the sum of the fields' bytes per record, and
// the record count times the record size. Each wrapped value could match
// the file's size (here an empty body) and later make a loader allocate
// a wrapped or huge buffer. Nor may a header describe examples of no
// bytes, whose count the file's size does not bound.
func TestRecordsRejectOverflowingHeaders(t *testing.T) {
	for _, c := range []struct{ header, want string }{
		// u8 [2^31, 2^31, 2]: 2^63 elements, two records wrap to 0 bytes.
		{`{"n":2,"fields":[{"name":"x","dtype":"ui8","dims":[2147483648,2147483648,2]}]}`, `field "x": dims [2147483648 2147483648 2] have more than 2^63-1 elements`},
		// Two fields of 2^62 bytes: a record of 2^63 bytes.
		{`{"n":0,"fields":[{"name":"x","dtype":"ui8","dims":[2147483648,2147483648]},{"name":"y","dtype":"ui8","dims":[2147483648,2147483648]}]}`, `field "y": 4611686018427387904 bytes after 4611686018427387904`},
		// Four records of 2^62 bytes.
		{`{"n":4,"fields":[{"name":"x","dtype":"ui8","dims":[2147483648,2147483648]}]}`, "4 examples of 4611686018427387904 bytes"},
		// Examples of 0 bytes: the file's size does not bound their count.
		{`{"n":1000000000000000000,"fields":[{"name":"x","dtype":"ui8","dims":[0]}]}`, "1000000000000000000 examples of 0 bytes"},
	} {
		p := filepath.Join(t.TempDir(), "r.rec")
		if err := os.WriteFile(p, []byte(recordsMagic+c.header+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := OpenRecords(p)
		if err == nil {
			r.Close()
			t.Errorf("header %s accepted", c.header)
		} else if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("header %s: error %q does not name the path and %q", c.header, err, c.want)
		}
	}
}

// TestMemoryRejectsOverflowingDims checks that a column whose per-example
// element count overflows int64 (3 * 6148914691236517206 wraps to 2) or
// whose dims are negative is an error from NewMemory naming the column,
// rather than a dataset whose batches panic.
func TestMemoryRejectsOverflowingDims(t *testing.T) {
	for _, dims := range [][]int64{{3, 6148914691236517206}, {2, -2}} {
		_, err := NewMemory(Column("x", []float32{1, 2, 3, 4}, dims...))
		if err == nil || !strings.Contains(err.Error(), `"x"`) || !strings.Contains(err.Error(), "dim") {
			t.Errorf("dims %v: err %v", dims, err)
		}
	}
}

// badSpecs is a dataset whose spec NewMemory would refuse.
type badSpecs struct{ *Memory }

func (badSpecs) Specs() []Spec {
	return []Spec{{"x", dtypeOf[float32](), []int64{3, 6148914691236517206}}}
}

// TestLoaderChecksBeforeAllocating checks that the loader rejects what
// would make it allocate a wrapped or needless buffer: a dataset's spec
// whose size overflows, a batch whose element count overflows, and an
// example index out of range, each with an error rather than a panic.
func TestLoaderChecksBeforeAllocating(t *testing.T) {
	m := sampleMemory(t, 4)
	if _, err := NewLoader(badSpecs{m}, LoaderConfig{BatchSize: 1}); err == nil || !strings.Contains(err.Error(), `field "x"`) {
		t.Errorf("overflowing spec: err %v", err)
	}
	if s := (badSpecs{}).Specs()[0].String(); s != "x f32[3 6148914691236517206]" {
		t.Errorf("String of an overflowing spec = %q", s)
	}
	// A padded batch of 2^62 rows of x f32[3]: 3*2^62 elements.
	l, err := NewLoader(m, LoaderConfig{BatchSize: 1 << 62, Pad: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Batch([]int{0}); err == nil || !strings.Contains(err.Error(), `field "x"`) {
		t.Errorf("overflowing batch: err %v", err)
	}
	l, err = NewLoader(m, LoaderConfig{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{-1, 4} {
		if _, err := l.Batch([]int{0, i}); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("example %d: err %v", i, err)
		}
	}
}

// TestTextSplitRejectsBadFractions checks that Split with a fraction
// outside [0, 1] (or NaN) is an error naming it, not a slice-bounds panic.
func TestTextSplitRejectsBadFractions(t *testing.T) {
	tx, err := NewText("hello world, hello go", 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, frac := range []float64{1.5, -0.25, math.NaN(), math.Inf(1)} {
		if _, _, err := tx.Split(frac); err == nil || !strings.Contains(err.Error(), "fraction") {
			t.Errorf("Split(%v): err %v", frac, err)
		}
	}
	if a, b, err := tx.Split(0.5); err != nil || a.Len()+b.Len() == 0 {
		t.Errorf("Split(0.5): %v", err)
	}
}

// Bucket ignores bucket lengths that are not positive (a zero largest
// bucket divided by zero; a negative one returned a length shorter than
// n), and PadSequences refuses them instead of cutting sequences short.
func TestBucketNonPositive(t *testing.T) {
	for _, c := range []struct {
		n       int
		buckets []int
		want    int
	}{{5, []int{0}, 5}, {5, []int{-2}, 5}, {5, []int{4, -2}, 8}, {5, []int{4, 0}, 8}, {3, []int{8, 0, 16}, 8}} {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("Bucket(%d, %v) panicked: %v", c.n, c.buckets, p)
				}
			}()
			if got := Bucket(c.n, c.buckets); got != c.want {
				t.Errorf("Bucket(%d, %v) = %d, want %d", c.n, c.buckets, got, c.want)
			}
		}()
	}
	for _, b := range [][]int{{0}, {4, -2}} {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("PadSequences with buckets %v panicked: %v", b, p)
				}
			}()
			toks, _, err := PadSequences([][]int32{{1, 2, 3, 4, 5}}, b, 0)
			if err == nil || !strings.Contains(err.Error(), "bucket") {
				t.Errorf("PadSequences with buckets %v = %v, %v", b, toks, err)
			}
		}()
	}
}

// A bucket length whose padded batch overflows the element count is an
// error, not a makeslice panic.
func TestPadSequencesOverflow(t *testing.T) {
	seqs := [][]int32{{1, 2, 3}, {4}, {5}}
	if _, _, err := PadSequences(seqs, []int{math.MaxInt / 2}, 0); err == nil || !strings.Contains(err.Error(), "more elements than a slice holds") {
		t.Errorf("err %v, want one about the element count", err)
	}
}

// ReadTextFiles reads no more of a file than maxBytes asks for: a huge
// file under the limit of a few bytes is not loaded whole. A cut inside a
// multi-byte character drops the partial character instead of turning it
// into U+FFFD, and a negative limit is an error.
func TestReadTextFilesBoundsItsReads(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 20); err != nil { // sparse: 64 MiB of zeros
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := ReadTextFiles(dir, "big.txt", 100)
	runtime.ReadMemStats(&after)
	if err != nil || len(s) != 101 {
		t.Fatalf("ReadTextFiles(max 100) = %d bytes, %v", len(s), err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("ReadTextFiles(max 100) of a 64 MiB file allocated %d bytes", got)
	}

	os.WriteFile(filepath.Join(dir, "u.txt"), []byte("aé"), 0o644) // é is 2 bytes
	if s, err := ReadTextFiles(dir, "u.txt", 2); err != nil || s != "a\n" {
		t.Errorf("ReadTextFiles cutting inside é = %q, %v, want %q", s, err, "a\n")
	}
	if _, err := ReadTextFiles(dir, "u.txt", -1); err == nil || !strings.Contains(err.Error(), "-1") {
		t.Errorf("ReadTextFiles(max -1): err = %v", err)
	}
}

// panicSet panics reading example at.
type panicSet struct {
	*Memory
	at int
}

var errBroken = errors.New("broken example")

func (s *panicSet) Read(i int, dst []any) error {
	if i == s.at {
		panic(fmt.Errorf("reading %d: %w", i, errBroken))
	}
	return s.Memory.Read(i, dst)
}

// A panic in a dataset's Read on the loader's goroutine reaches the loop
// that ranges over the epoch, as a panic the caller can recover (with the
// value, which errors.Is sees through, and the goroutine's stack), instead
// of ending the process; the goroutine is gone afterwards.
func TestLoaderPanicReachesTheLoop(t *testing.T) {
	l, err := NewLoader(&panicSet{Memory: sampleMemory(t, 10), at: 5}, LoaderConfig{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	batches := 0
	var got any
	func() {
		defer func() { got = recover() }()
		for _, err := range l.Epoch(0) {
			if err != nil {
				t.Fatal(err)
			}
			batches++
		}
	}()
	err, _ = got.(error)
	if err == nil || !errors.Is(err, errBroken) || !strings.Contains(err.Error(), "panicSet") || batches != 2 {
		t.Errorf("after %d batches recovered %v, want the dataset's panic after 2", batches, got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines after the panic, %d before", g, before)
	}
}

// Errors about a column's or a destination's length give the length for
// every element type (int8, uint16, ... said -1).
func TestLengthErrorsForEveryType(t *testing.T) {
	if _, err := NewMemory(Column("x", []int8{1, 2, 3}, 2)); err == nil || !strings.Contains(err.Error(), "3 values") {
		t.Errorf("NewMemory of 3 int8 values in examples of 2: err = %v", err)
	}
	m, err := NewMemory(Column("x", []uint16{1, 2, 3, 4}, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Read(0, []any{make([]uint16, 3)}); err == nil || !strings.Contains(err.Error(), "length 3") {
		t.Errorf("Read into 3 uint16: err = %v", err)
	}
}

// failingSet fails to read example at.
type failingSet struct {
	*Memory
	at int
}

func (s *failingSet) Read(i int, dst []any) error {
	if i == s.at {
		return errors.New("disk gone")
	}
	return s.Memory.Read(i, dst)
}

// A WriteRecords that fails part-way leaves what was at the path as it
// was (it truncated the old file and left half a new one), and leaves no
// temporary file behind; nil datasets are errors, not nil dereferences.
func TestWriteRecordsFailureKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "set.rec")
	if err := WriteRecords(path, sampleMemory(t, 3)); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(path)
	err := WriteRecords(path, &failingSet{Memory: sampleMemory(t, 5), at: 3})
	if err == nil || !strings.Contains(err.Error(), "example 3") {
		t.Errorf("WriteRecords of a failing dataset: err = %v", err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, old) {
		t.Errorf("the failed write changed the file: %d bytes, %d before", len(now), len(old))
	}
	if r, err := OpenRecords(path); err != nil || r.Len() != 3 {
		t.Errorf("OpenRecords after the failed write: %v", err)
	} else {
		r.Close()
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode of the written file: %v, %v", st.Mode(), err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("files left in the directory: %v", names)
	}
	if err := WriteRecords(filepath.Join(dir, "nil.rec"), nil); err == nil {
		t.Error("WriteRecords of a nil dataset: no error")
	}
	if _, err := Subset(nil, 0, 0); err == nil {
		t.Error("Subset of a nil dataset: no error")
	}
}

// A dataset whose Read panics part-way is a failed write too: the panic
// reaches the caller, and the file at the path is the old one, not the
// half-written temporary file renamed over it.
func TestWriteRecordsPanicKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "set.rec")
	if err := WriteRecords(path, sampleMemory(t, 3)); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(path)
	var got any
	func() {
		defer func() { got = recover() }()
		WriteRecords(path, &panicSet{Memory: sampleMemory(t, 5), at: 3})
	}()
	if err, _ := got.(error); err == nil || !errors.Is(err, errBroken) {
		t.Errorf("WriteRecords of a panicking dataset: recovered %v, want its panic", got)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, old) {
		t.Errorf("the panicked write changed the file: %d bytes, %d before", len(now), len(old))
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("files left in the directory: %v", names)
	}
}

// A Read that fails leaves its destinations as they were: a record with
// a bool byte other than 0 or 1 writes none of its fields, and no invalid
// bool reaches a []bool.
func TestRecordsReadFailureWritesNothing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.rec")
	header := `{"n":2,"fields":[{"name":"x","dtype":"f32","dims":[2]},{"name":"b","dtype":"i1","dims":[2]}]}`
	one := func(x0, x1 float32, b0, b1 byte) []byte {
		rec := binary.LittleEndian.AppendUint32(nil, math.Float32bits(x0))
		rec = binary.LittleEndian.AppendUint32(rec, math.Float32bits(x1))
		return append(rec, b0, b1)
	}
	body := append(one(1, 2, 1, 0), one(3, 4, 1, 2)...)
	if err := os.WriteFile(p, append([]byte(recordsMagic+header+"\n"), body...), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := OpenRecords(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	x, b := []float32{-7, -7}, []bool{false, true}
	dst := []any{x, b}
	if err := r.Read(0, dst); err != nil || !slices.Equal(x, []float32{1, 2}) || !slices.Equal(b, []bool{true, false}) {
		t.Fatalf("example 0: %v, x %v b %v", err, x, b)
	}
	x[0], x[1], b[0], b[1] = -7, -7, false, true
	err = r.Read(1, dst)
	if err == nil || !strings.Contains(err.Error(), `field "b": bool element 1 is 2`) {
		t.Fatalf("example 1: error %v, want one naming the bool element", err)
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), 2)
	if !slices.Equal(x, []float32{-7, -7}) || raw[0] != 0 || raw[1] != 1 {
		t.Errorf("after the failed read x = %v, b bytes = %v: want them as they were ([-7 -7], [0 1])", x, raw)
	}
	// A destination of the wrong size is refused before anything is read.
	if err := r.Read(0, []any{x, []bool{false}}); err == nil || !strings.Contains(err.Error(), `field "b"`) || x[0] != -7 {
		t.Errorf("short destination: %v, x %v", err, x)
	}
}

// A Memory or Text Read with a destination of the wrong type writes none
// of the others.
func TestMemoryReadFailureWritesNothing(t *testing.T) {
	m := sampleMemory(t, 3)
	x := []float32{-7, -7, -7}
	err := m.Read(1, []any{x, []int64{0}})
	if err == nil || !strings.Contains(err.Error(), `field "y"`) {
		t.Fatalf("memory: error %v, want one naming field y", err)
	}
	if !slices.Equal(x, []float32{-7, -7, -7}) {
		t.Errorf("memory: after the failed read x = %v, want it as it was", x)
	}
	txt, err := NewText("hello world", 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	tx := []int32{-7, -7, -7, -7}
	if err := txt.Read(0, []any{tx, []int32{0}}); err == nil || !strings.Contains(err.Error(), `field "y"`) {
		t.Fatalf("text: error %v, want one naming field y", err)
	}
	if !slices.Equal(tx, []int32{-7, -7, -7, -7}) {
		t.Errorf("text: after the failed read x = %v, want it as it was", tx)
	}
}
