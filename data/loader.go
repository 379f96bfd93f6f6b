package data

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"runtime/debug"
	"unsafe"

	"github.com/xlajit/xlajit/lazy"
)

// LoaderConfig says how a Loader cuts a dataset into batches.
type LoaderConfig struct {
	BatchSize int
	// Shuffle visits the examples in a new order every epoch, a function of
	// Seed and the epoch number only (reproducible, resumable).
	Shuffle bool
	Seed    uint64
	// DropLast leaves out the last batch when it is partial.
	DropLast bool
	// Pad fills the last partial batch up to BatchSize with zero examples
	// and sets Batch.Mask, so every batch has the same shape (a compiled
	// step traces once). Without DropLast or Pad the last batch is smaller.
	Pad bool
	// Prefetch is how many batches are prepared ahead on another goroutine
	// (0: 2).
	Prefetch int
	// Device receives the batches (nil: the default device).
	Device *lazy.Device
}

// Batch is one batch: a tensor [B, dims...] per field of the dataset.
type Batch struct {
	Tensors []*lazy.Tensor
	// Size is the number of real examples (B unless padded).
	Size int
	// Mask is a bool [B] tensor, true for real examples, when the loader
	// pads (nil otherwise).
	Mask *lazy.Tensor
	// Epoch and Index locate the batch.
	Epoch, Index int
}

// Loader cuts a dataset into batches.
type Loader struct {
	ds    Dataset
	cfg   LoaderConfig
	specs []Spec
}

// NewLoader checks the configuration against the dataset.
func NewLoader(ds Dataset, cfg LoaderConfig) (*Loader, error) {
	if ds == nil {
		return nil, fmt.Errorf("data.NewLoader: nil dataset")
	}
	if cfg.BatchSize <= 0 {
		return nil, fmt.Errorf("data.NewLoader: batch size %d must be positive", cfg.BatchSize)
	}
	if cfg.DropLast && cfg.Pad {
		return nil, fmt.Errorf("data.NewLoader: DropLast and Pad exclude each other")
	}
	if cfg.Prefetch < 0 {
		return nil, fmt.Errorf("data.NewLoader: negative prefetch %d", cfg.Prefetch)
	}
	if cfg.Prefetch == 0 {
		cfg.Prefetch = 2
	}
	specs := ds.Specs()
	for _, s := range specs {
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("data.NewLoader: %w", err)
		}
		if _, err := newSlice(s.DType, 0); err != nil {
			return nil, fmt.Errorf("data.NewLoader: field %q: %w", s.Name, err)
		}
	}
	return &Loader{ds: ds, cfg: cfg, specs: specs}, nil
}

// Len is the number of batches per epoch.
func (l *Loader) Len() int {
	n, b := l.ds.Len(), l.cfg.BatchSize
	if l.cfg.DropLast {
		return n / b
	}
	return (n + b - 1) / b
}

// Order returns the example order of an epoch.
func (l *Loader) Order(epoch int) []int {
	return Order(l.ds.Len(), l.cfg.Shuffle, l.cfg.Seed, epoch)
}

// Order is 0..n-1, or with shuffle a permutation determined by seed and
// epoch alone.
func Order(n int, shuffle bool, seed uint64, epoch int) []int {
	if !shuffle {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	return rand.New(rand.NewPCG(seed, uint64(epoch)*0x9e3779b97f4a7c15+1)).Perm(n)
}

// Epoch yields the batches of one epoch, prepared Prefetch batches ahead
// on another goroutine (reading examples and copying them to the device).
// Stopping the loop early stops the goroutine. A read error is yielded
// once, with a nil batch, and ends the epoch. A panic on the goroutine (in
// the dataset's Read) ends it and is raised again in the loop, as an
// error that wraps the panic's value and carries the goroutine's stack.
func (l *Loader) Epoch(epoch int) iter.Seq2[*Batch, error] {
	return func(yield func(*Batch, error) bool) {
		order := l.Order(epoch)
		type item struct {
			b     *Batch
			err   error
			panic *loaderPanic
		}
		ch := make(chan item, l.cfg.Prefetch)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer close(ch)
			k := 0
			defer func() {
				if p := recover(); p != nil {
					lp := &loaderPanic{value: p, epoch: epoch, batch: k, stack: debug.Stack()}
					select {
					case ch <- item{panic: lp}:
					case <-stop:
					}
				}
			}()
			for ; k < l.Len(); k++ {
				from := k * l.cfg.BatchSize
				idx := order[from:min(from+l.cfg.BatchSize, len(order))]
				b, err := l.make(idx)
				if b != nil {
					b.Epoch, b.Index = epoch, k
				}
				select {
				case ch <- item{b: b, err: err}:
				case <-stop:
					return
				}
				if err != nil {
					return
				}
			}
		}()
		defer func() {
			close(stop)
			<-done
		}()
		for it := range ch {
			if it.panic != nil {
				panic(it.panic)
			}
			if !yield(it.b, it.err) || it.err != nil {
				return
			}
		}
	}
}

// loaderPanic is a panic of a loader's goroutine, raised again in the loop
// over the epoch.
type loaderPanic struct {
	value        any
	epoch, batch int
	stack        []byte
}

func (p *loaderPanic) Error() string {
	return fmt.Sprintf("data: panic preparing batch %d of epoch %d: %v\n\nthe loader goroutine's stack:\n%s", p.batch, p.epoch, p.value, p.stack)
}

// Unwrap is the panic's value when it is an error.
func (p *loaderPanic) Unwrap() error {
	err, _ := p.value.(error)
	return err
}

// Batch makes the batch of the given example indices (padded to BatchSize
// when the loader pads).
func (l *Loader) Batch(idx []int) (*Batch, error) { return l.make(idx) }

func (l *Loader) make(idx []int) (*Batch, error) {
	rows := len(idx)
	if l.cfg.Pad {
		rows = l.cfg.BatchSize
	}
	if len(idx) == 0 || len(idx) > rows {
		return nil, fmt.Errorf("data: batch of %d examples (batch size %d)", len(idx), l.cfg.BatchSize)
	}
	// Check before allocating: an index out of range or a batch whose
	// element count overflows is an error, not a huge or wrapped buffer.
	for _, i := range idx {
		if i < 0 || i >= l.ds.Len() {
			return nil, fmt.Errorf("data: example %d out of range [0, %d)", i, l.ds.Len())
		}
	}
	for _, s := range l.specs {
		if _, err := lazy.NewShapeE(s.DType, append([]int64{int64(rows)}, s.Dims...)...); err != nil {
			return nil, fmt.Errorf("data: batch of %d: field %q: %w", rows, s.Name, err)
		}
	}
	bufs := make([]any, len(l.specs))
	row := make([]any, len(l.specs))
	for k, s := range l.specs {
		bufs[k], _ = newSlice(s.DType, rows*s.size())
	}
	for r, i := range idx {
		for k, s := range l.specs {
			row[k] = sliceOf(bufs[k], r*s.size(), s.size())
		}
		if err := l.ds.Read(i, row); err != nil {
			return nil, fmt.Errorf("data: example %d: %w", i, err)
		}
	}
	dev := l.cfg.Device
	if dev == nil {
		dev = lazy.DefaultDevice()
	}
	b := &Batch{Size: len(idx)}
	for k, s := range l.specs {
		dims := append([]int64{int64(rows)}, s.Dims...)
		b.Tensors = append(b.Tensors, toDevice(dev, bufs[k], dims))
	}
	if l.cfg.Pad {
		m := make([]bool, rows)
		for r := range idx {
			m[r] = true
		}
		b.Mask = toDevice(dev, m, []int64{int64(rows)})
	}
	return b, nil
}

func newSlice(dt lazy.DType, n int) (any, error) {
	switch dt {
	case lazy.F32:
		return make([]float32, n), nil
	case lazy.F64:
		return make([]float64, n), nil
	case lazy.I32:
		return make([]int32, n), nil
	case lazy.I64:
		return make([]int64, n), nil
	case lazy.U8:
		return make([]uint8, n), nil
	case lazy.Bool:
		return make([]bool, n), nil
	case lazy.I8:
		return make([]int8, n), nil
	case lazy.I16:
		return make([]int16, n), nil
	case lazy.U16:
		return make([]uint16, n), nil
	case lazy.U32:
		return make([]uint32, n), nil
	case lazy.U64:
		return make([]uint64, n), nil
	}
	return nil, fmt.Errorf("element type %s is not supported by data", dt)
}

func sliceOf(buf any, off, n int) any {
	switch b := buf.(type) {
	case []float32:
		return b[off : off+n]
	case []float64:
		return b[off : off+n]
	case []int32:
		return b[off : off+n]
	case []int64:
		return b[off : off+n]
	case []uint8:
		return b[off : off+n]
	case []bool:
		return b[off : off+n]
	case []int8:
		return b[off : off+n]
	case []int16:
		return b[off : off+n]
	case []uint16:
		return b[off : off+n]
	case []uint32:
		return b[off : off+n]
	case []uint64:
		return b[off : off+n]
	}
	panic(fmt.Sprintf("data: unsupported buffer %T", buf))
}

func toDevice(dev *lazy.Device, buf any, dims []int64) *lazy.Tensor {
	var l *lazy.Literal
	switch b := buf.(type) {
	case []float32:
		l = literal(b, dims)
	case []float64:
		l = literal(b, dims)
	case []int32:
		l = literal(b, dims)
	case []int64:
		l = literal(b, dims)
	case []uint8:
		l = literal(b, dims)
	case []bool:
		l = literal(b, dims)
	case []int8:
		l = literal(b, dims)
	case []int16:
		l = literal(b, dims)
	case []uint16:
		l = literal(b, dims)
	case []uint32:
		l = literal(b, dims)
	case []uint64:
		l = literal(b, dims)
	default:
		panic(fmt.Sprintf("data: unsupported buffer %T", buf))
	}
	return lazy.FromLiteralOn(dev, l)
}

// literal copies xs into a literal (16-byte aligned storage, as literals
// need).
func literal[T Element](xs []T, dims []int64) *lazy.Literal {
	var z T
	n := len(xs) * int(unsafe.Sizeof(z))
	words := make([]complex128, (n+15)/16+1)
	out := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
	if n > 0 {
		copy(out, unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), n))
	}
	return &lazy.Literal{DType: dtypeOf[T](), Dims: dims, Data: out}
}
