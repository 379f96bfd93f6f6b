package host

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xlajit/xlajit/internal/corpusdir"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// FuzzExecute runs arbitrary text through the whole executor path: parse,
// verify, compile, and execute with arguments derived from the second
// input, either directly (Program.Run) or through the device seam
// (Client.Compile, BufferFromHost, Execute), sometimes with arguments that
// do not match the entry. Whatever the input, nothing may panic, hang or
// take more memory than the small limit allows: every failure is an error
// value, loops stop when the run is canceled, and the memory account
// returns to the bytes of the live buffers. Seeds are the conformance
// corpus (when present) and a few hand-written programs; inputs that
// crashed are kept under testdata/fuzz/FuzzExecute.
//
//	nice go test -run '^$' -fuzz FuzzExecute -parallel 1 ./pjrt/host
func FuzzExecute(f *testing.F) {
	for i, s := range fuzzSeeds() {
		// The first byte picks the path (bit 0: through the seam), whether
		// the arguments are wrong (bit 1) and whether numbers of the
		// program are replaced by boundary values (bit 2).
		f.Add([]byte(s), []byte{byte(i % 8), 1, 4, 1, 5, 9, 2, 6, 17, 9, 25, 1, 33})
	}
	startHeapWatch()
	f.Fuzz(func(t *testing.T, src, seed []byte) {
		if len(src) > 1<<16 {
			return
		}
		fuzzOne(t, src, seed)
	})
}

// fuzzLimit is the memory limit of fuzzed executions.
const fuzzLimit = 16 << 20

// fuzzRunTime is how long an execution runs before it is canceled; a
// canceled run must return within fuzzStopTime.
// A whole input (parse, compile and a canceled run) must take less than
// fuzzSlow.
const (
	fuzzRunTime  = time.Second
	fuzzStopTime = 20 * time.Second
	fuzzSlow     = 5 * time.Second
)

func fuzzOne(t *testing.T, src, seed []byte) {
	var r byteSource = seed
	mode := r.next()
	if mode&4 != 0 {
		src = mutateNumbers(src, &r)
	}
	start := time.Now()
	phase := "parse"
	defer func() {
		if d := time.Since(start); d > fuzzSlow {
			t.Fatalf("took %v (in %s): more than %v", d, phase, fuzzSlow)
		}
	}()
	m, err := hlo.ParseModule("fuzz.mlir", src)
	if err != nil {
		return
	}
	phase = "compile"
	viaClient, wrongArgs := mode&1 != 0, mode&2 != 0
	var c *Client
	mem := kernel.NewMem(fuzzLimit, 0, "fuzz limit")
	var p *Program
	var exe pjrt.Executable
	if viaClient {
		c = NewClientWithLimit(1, fuzzLimit)
		exe, err = c.Compile(m, pjrt.CompileOptions{})
		if err == nil {
			p = exe.(*Executable).Program()
		}
	} else {
		p, err = compileMem(m, true, mem)
	}
	if err != nil {
		checkErr(t, err)
		return
	}
	phase = "run"
	args, ok := fuzzArgs(p.Entry(), &r)
	if !ok {
		return
	}
	if wrongArgs && len(args) > 0 {
		k := int(r.next()) % len(args)
		if l, ok := args[k].(*hlo.Literal); ok && len(l.Data) > 0 {
			args[k] = &hlo.Literal{DType: l.DType, Dims: append(append([]int64(nil), l.Dims...), 1), Data: l.Data}
		} else {
			args = args[:len(args)-1]
		}
	}
	cancel := make(chan struct{})
	stop := time.AfterFunc(fuzzRunTime, func() { close(cancel) })
	watchdog := time.AfterFunc(fuzzStopTime, func() {
		panic(fmt.Sprintf("FuzzExecute: execution still running %v after it was canceled", fuzzStopTime-fuzzRunTime))
	})
	defer watchdog.Stop()
	defer stop.Stop()
	log := &kernel.CheckLog{}
	log.SetOutput(io.Discard)
	if viaClient {
		var bufs []pjrt.Buffer
		for _, a := range args {
			l, ok := a.(*hlo.Literal)
			if !ok {
				return // tuples and tokens cannot be uploaded
			}
			b, err := c.BufferFromHost(l, 0)
			if err != nil {
				checkErr(t, err)
				return
			}
			bufs = append(bufs, b)
		}
		ctx, stopCtx := context.WithTimeout(context.Background(), fuzzRunTime)
		defer stopCtx()
		out, err := exe.Execute(bufs, pjrt.ExecuteOptions{Context: ctx})
		if err != nil {
			checkErr(t, err)
		}
		live := int64(0)
		for _, b := range append(bufs, out...) {
			live += b.(*Buffer).accounted()
		}
		if mi, _ := c.MemoryInfo(0); mi.BytesInUse != live {
			t.Fatalf("%d bytes in use after the run, the live buffers hold %d", mi.BytesInUse, live)
		}
		for _, b := range append(bufs, out...) {
			b.Delete()
		}
		if mi, _ := c.MemoryInfo(0); mi.BytesInUse != 0 {
			t.Fatalf("%d bytes in use after deleting every buffer", mi.BytesInUse)
		}
		return
	}
	_, err = p.Run(&kernel.Ctx{NumReplicas: 1, NumPartitions: 1, Checks: log, Cancel: cancel, Mem: mem}, args)
	if err != nil {
		checkErr(t, err)
	}
	if n := mem.InUse(); n != 0 {
		t.Fatalf("%d bytes still accounted after the run", n)
	}
}

// checkErr fails on errors that are not values a caller can act on: the
// executor's recovered panics.
func checkErr(t *testing.T, err error) {
	if strings.Contains(err.Error(), "panic:") {
		t.Fatalf("recovered panic: %v", err)
	}
	if errors.Is(err, pjrt.ErrOutOfMemory) {
		var oom *pjrt.OutOfMemoryError
		if !errors.As(err, &oom) || oom.Bytes <= 0 {
			t.Fatalf("out-of-memory error without its size: %v", err)
		}
	}
}

// boundaryNumbers are the sizes and offsets that overflow or exhaust
// things: mutateNumbers puts them in place of the numbers of a program.
var boundaryNumbers = []string{"0", "1", "2", "-1", "7", "255", "65536", "2147483647", "4294967296",
	"1099511627776", "4611686018427387904", "9223372036854775807", "-9223372036854775808"}

// mutateNumbers replaces some decimal numbers of src (dimensions,
// attribute values, indices) with boundary values, as the input's bytes
// choose: the byte-level mutator rarely writes such numbers itself.
func mutateNumbers(src []byte, r *byteSource) []byte {
	var out []byte
	for i := 0; i < len(src); {
		c := src[i]
		dimAfterX := i >= 2 && src[i-1] == 'x' && src[i-2] >= '0' && src[i-2] <= '9' // 2x3
		if c < '0' || c > '9' || i > 0 && !dimAfterX && (isIdent(src[i-1]) || src[i-1] == '%' || src[i-1] == '@' || src[i-1] == '#') {
			out = append(out, c)
			i++
			continue
		}
		j := i
		for j < len(src) && src[j] >= '0' && src[j] <= '9' {
			j++
		}
		if b := r.next(); b%8 == 1 {
			out = append(out, boundaryNumbers[int(b/8)%len(boundaryNumbers)]...)
		} else {
			out = append(out, src[i:j]...)
		}
		i = j
	}
	return out
}

func isIdent(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// byteSource hands out the bytes of a fuzz input, then zeros.
type byteSource []byte

func (b *byteSource) next() byte {
	if len(*b) == 0 {
		return 0
	}
	v := (*b)[0]
	*b = (*b)[1:]
	return v
}

// fuzzArgs makes arguments of the entry's types: dynamic dimensions of 0
// to 7, elements from the input (each element normalized to its type's
// storage), false when they would not fit a quarter of the limit.
func fuzzArgs(fn *hlo.Func, r *byteSource) ([]kernel.Value, bool) {
	var out []kernel.Value
	for _, a := range fn.Args {
		v, ok := fuzzValue(a.Type, r)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

func fuzzValue(t hlo.Type, r *byteSource) (kernel.Value, bool) {
	switch t := t.(type) {
	case *hlo.TensorType:
		dims := make([]int64, len(t.Dims))
		for i, d := range t.Dims {
			dims[i] = d
			if d < 0 {
				dims[i] = int64(r.next() % 8)
			}
		}
		dt := t.DType
		if t.Quant != nil {
			dt = t.Quant.Storage
		}
		n, ok := hlo.ByteSize(dt, dims)
		if !ok || n > fuzzLimit/4 || dt.Size() == 0 {
			return nil, false
		}
		l := hlo.NewLiteral(dt, dims...)
		for i := 0; i < l.NumElements(); i++ {
			var raw [8]byte
			for k := 0; k < dt.Size(); k++ {
				raw[k] = r.next()
			}
			bits := binary.LittleEndian.Uint64(raw[:])
			switch {
			case dt.IsBool():
				l.Data[i] = byte(bits & 1)
			case dt.IsInt():
				l.SetInt(i, int64(bits))
			case dt.IsFloat() && dt.Bits() < 64:
				l.SetBits(i, bits&(1<<uint(dt.Bits())-1))
			default:
				copy(l.Data[i*dt.Size():(i+1)*dt.Size()], raw[:dt.Size()])
			}
		}
		return l, true
	case *hlo.TupleType:
		var tv kernel.Tuple
		for _, e := range t.Elems {
			v, ok := fuzzValue(e, r)
			if !ok {
				return nil, false
			}
			tv = append(tv, v)
		}
		return tv, true
	case *hlo.TokenType:
		return kernel.Token{}, true
	}
	return nil, false
}

// heapWatchLimit is the most heap the fuzzing process may hold: the
// memory limit bounds tensors, and anything far beyond it is an
// allocation that escaped the limit (before it takes the machine down).
const heapWatchLimit = 2 << 30

var heapWatchOnce sync.Once

// startHeapWatch samples the heap while fuzzing and panics (a crash the
// fuzzer records with its input) when it passes heapWatchLimit.
func startHeapWatch() {
	heapWatchOnce.Do(func() {
		go func() {
			s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
			for {
				metrics.Read(s)
				if v := s[0].Value.Uint64(); v > heapWatchLimit {
					panic(fmt.Sprintf("FuzzExecute: heap holds %d bytes, beyond %d (an allocation escaped the %d-byte limit)", v, heapWatchLimit, fuzzLimit))
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	})
}

// fuzzSeeds are the conformance corpus's cases (when the corpus is
// present) and programs that once ran out of bounds.
func fuzzSeeds() []string {
	seeds := []string{
		"func.func @main() -> tensor<1099511627776xf32> {\n  %0 = stablehlo.constant dense<1.0> : tensor<1099511627776xf32>\n  return %0 : tensor<1099511627776xf32>\n}",
		"func.func @main(%x: tensor<f32>) -> tensor<65536x65536xf32> {\n  %0 = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<65536x65536xf32>\n  return %0 : tensor<65536x65536xf32>\n}",
		"func.func @main() -> tensor<4294967296x4294967296x16xf32> {\n  %0 = stablehlo.iota dim = 0 : tensor<4294967296x4294967296x16xf32>\n  return %0 : tensor<4294967296x4294967296x16xf32>\n}",
		"func.func @main(%s: tensor<2xi64>) -> tensor<?x?xf32> {\n  %0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xi64>) -> tensor<?x?xf32>\n  return %0 : tensor<?x?xf32>\n}",
		"func.func @main(%x: tensor<3xf32>, %p: tensor<1xi64>) -> tensor<?xf32> {\n  %z = stablehlo.constant dense<0.0> : tensor<f32>\n  %0 = stablehlo.dynamic_pad %x, %z, %p, %p, %p : (tensor<3xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>\n  return %0 : tensor<?xf32>\n}",
		"func.func @main(%x: tensor<2xf32>) -> tensor<1xf32> {\n  %z = stablehlo.constant dense<0.0> : tensor<f32>\n  %0 = \"stablehlo.reduce_window\"(%x, %z) ({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n    %s = stablehlo.add %a, %b : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n  }) {window_dimensions = array<i64: 1099511627776>, padding = dense<[[0, 1099511627774]]> : tensor<1x2xi64>} : (tensor<2xf32>, tensor<f32>) -> tensor<1xf32>\n  return %0 : tensor<1xf32>\n}",
		"func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {\n  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n  return %0 : tensor<3x2xf32>\n}",
		"func.func @main(%i: tensor<i64>) -> tensor<i64> {\n  %r = stablehlo.while(%k = %i) : tensor<i64>\n  cond {\n    %t = stablehlo.constant dense<true> : tensor<i1>\n    stablehlo.return %t : tensor<i1>\n  } do {\n    stablehlo.return %k : tensor<i64>\n  }\n  return %r : tensor<i64>\n}",
	}
	if root := fuzzCorpusRoot(); root != "" {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".mlir") {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			for _, c := range hlo.SplitInputFile(src) {
				if len(c.Text) <= 8192 {
					seeds = append(seeds, c.Text)
				}
			}
			return nil
		})
	}
	return seeds
}

// fuzzCorpusRoot finds shared/conformance/stablehlo above the package
// directory, or "".
func fuzzCorpusRoot() string {
	c, _ := corpusdir.Find(".", corpusdir.StableHLO)
	return c
}
